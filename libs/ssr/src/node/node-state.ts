import type { Logger } from '@esp/logging';
import { systemClock, type Clock, type TimerHandle } from '@esp/timers';
import { ArtifactCache, type ActiveEntry, type ReplicaEntry } from '../caches';
import { ConsistentHashRouter } from '../consistent-hash';
import { memberKey, Membership, nameOfKey, type Member, type View } from '../membership';
import type { SsrMessage } from '../messages';
import { ExpatList } from './expat-list';
import type { LoadTally } from './load-rules';
import { resolveOptions, type ResolvedOptions, type SsrNodeOptions } from './options';
import type { Unacked } from './replication-rules';

/** A load request waiting for its answers; `finish` settles it (on the last answer, a timeout or a reshape). */
export interface PendingLoad extends LoadTally {
  finish: () => void;
}

export interface AckWaiter {
  seq: number;
  resolve: (ok: boolean) => void;
  timer: TimerHandle;
}

/**
 * The one state of an SSR instance, shared by its parts (node/*.ts): the caches, the view, the replication
 * sequence, the load requests and transfers under way, the expat list, and the plumbing every part uses (sending,
 * timers on the Clock, the per-artifact lock). The parts hold no state of their own.
 */
export class NodeState {
  readonly name: string;
  readonly self: Member;
  readonly key: string;
  readonly clock: Clock;
  readonly log: Logger | undefined;
  readonly o: ResolvedOptions;
  readonly membership: Membership;
  view: View;
  router: ConsistentHashRouter;
  readonly active = new ArtifactCache<ActiveEntry>();
  readonly replica = new ArtifactCache<ReplicaEntry>();
  buddy: Member | undefined;
  // replication to the buddy (2.7)
  seqOut = 0;
  acked = 0;
  ackWaiters: AckWaiter[] = [];
  unacked: Unacked[] = [];
  // load requests (2.13) and the transfers this instance answered with (2.18)
  reqSeq = 0;
  readonly loads = new Map<string, PendingLoad>();
  /** finished loads: late 'found' answers are committed or given back (req → chosen versions by id) */
  readonly doneLoads = new Map<string, Map<string, number> | null>();
  readonly transfers = new Map<string, { ids: string[]; until: number }>();
  /** loaded, removed everywhere else, not yet active here: answered busy meanwhile (id → since) */
  readonly arriving = new Map<string, number>();
  /** Tree activations under way (2.4.2.5): the children of a parent just activated here, on their way. */
  readonly childLoads = new Map<string, Promise<void>>();
  readonly rpcs = new Map<string, (m: SsrMessage) => void>();
  readonly idLocks = new Map<string, Promise<void>>();
  readonly expat = new ExpatList();
  readonly ownerGoneAt = new Map<string, number>();
  lastViewAt = 0;
  aloneAt = -Infinity;
  timers: TimerHandle[] = [];
  started = false;
  stopped = false;
  ready = false;
  quiescing = false;
  repairs = 0;
  /**
   * Active copies reloaded from disk that the buddy's list has not yet sorted into kept and dropped: until then
   * such a copy may be one deleted (or reactivated and changed) while this instance was down, so it is neither
   * handed to a load nor used here; both answer busy (retryable) for the few hundred milliseconds it takes.
   */
  reloadUnsorted: boolean;
  resettling = false;
  readonly loadLatencies: number[] = [];
  readonly counters = { loads: 0, loadNacksOnly: 0, busy: 0, fired: 0, advisories: 0, purged: 0, repaired: 0, reactivated: 0 };

  constructor(opts: SsrNodeOptions) {
    this.o = resolveOptions(opts);
    this.name = opts.name;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log;
    this.self = { name: opts.name, incarnation: opts.incarnation ?? Math.random().toString(36).slice(2, 10) };
    this.key = memberKey(this.self);
    this.membership = new Membership(this.self, { suspectAfterMs: this.o.suspectAfterMs, failAfterMs: this.o.failAfterMs }, this.clock.now());
    this.view = this.membership.view;
    this.router = new ConsistentHashRouter([this.name]);
    this.reloadUnsorted = (opts.restore?.actives.length ?? 0) > 0;
    if (opts.restore) {
      // 2.22.1.1 / 2.22.1.2: everything reloaded from disk is suspect until the partners confirm it
      for (const a of opts.restore.actives) this.active.set({ a, suspect: true });
      for (const a of opts.restore.replicas) this.replica.set({ a, suspect: true });
    }
  }

  /** Every member's expat list of this view is in (2.13). */
  expatReady(): boolean {
    return this.ready && this.expat.complete(this.view, this.name);
  }

  isMember(key: string): boolean {
    return this.view.members.some((m) => memberKey(m) === key);
  }

  isArriving(id: string): boolean {
    const since = this.arriving.get(id);
    if (since === undefined) return false;
    if (this.clock.now() - since < this.o.transferTimeoutMs) return true;
    this.arriving.delete(id);
    return false;
  }

  dropActive(id: string): void {
    const e = this.active.delete(id);
    if (e?.timer) this.clock.clearTimeout(e.timer);
  }

  dropReplica(id: string): void {
    const e = this.replica.delete(id);
    if (e?.timer) this.clock.clearTimeout(e.timer);
  }

  /** An instance never holds a replica of what it holds active: the replica belongs on another instance. */
  dropOwnReplica(id: string): void {
    const r = this.replica.get(id);
    if (r && !r.transfer) this.dropReplica(id);
  }

  nextReq(prefix: string): string {
    return `${prefix}${this.name}.${++this.reqSeq}`;
  }

  /** To a member key (name:incarnation): the message is dropped by any other incarnation of that name. */
  sendTo(key: string, m: SsrMessage): void {
    this.o.transport.send(nameOfKey(key), m);
  }

  /** One request, one answer by `req` ('advr', 'vlistr'); undefined after timeoutMs. */
  rpc(to: string, req: string, m: SsrMessage, timeoutMs: number): Promise<SsrMessage | undefined> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.rpcs.delete(req);
        resolve(undefined);
      }, timeoutMs);
      this.rpcs.set(req, (r) => {
        this.clock.clearTimeout(timer);
        this.rpcs.delete(req);
        resolve(r);
      });
      this.sendTo(to, m);
    });
  }

  every(ms: number, fn: () => void): void {
    const loop = (): void => {
      if (this.stopped) return;
      fn();
      this.timers.push(this.clock.setTimeout(loop, ms));
      if (this.timers.length > 64) this.timers.splice(0, 32);
    };
    this.timers.push(this.clock.setTimeout(loop, ms));
  }

  after(ms: number, fn: () => void): void {
    this.timers.push(this.clock.setTimeout(() => !this.stopped && fn(), ms));
  }

  /** Serializes the operations on one artifact in this instance; while one runs, load requests for it answer busy. */
  async withIdLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    for (;;) {
      const held = this.idLocks.get(id);
      if (!held) break;
      await held;
    }
    let release!: () => void;
    const p = new Promise<void>((r) => (release = r));
    this.idLocks.set(id, p);
    try {
      return await fn();
    } finally {
      this.idLocks.delete(id);
      release();
    }
  }

  describeView(): string {
    return this.view.members.map((m) => m.name).join(' → ');
  }
}
