import type { Logger } from '@esp/logging';
import { systemClock, type Clock, type TimerHandle } from '@esp/timers';
import { hashKey, type Artifact } from './artifact';
import { ArtifactCache, type ActiveEntry, type ReplicaEntry } from './caches';
import { ConsistentHashRouter } from './consistent-hash';
import { SsrBusy, SsrUnavailable } from './errors';
import { buddyOf, memberKey, Membership, nameOfKey, sourceOf, type Member, type MembershipEvent, type View } from './membership';
import type { IdVersion, SsrMessage } from './messages';
import type { SsrSnapshot } from './snapshot';
import type { SsrTransport } from './transport';

export interface SsrNodeOptions {
  name: string;
  /** Distinguishes a restarted instance from its previous life; default: random. */
  incarnation?: string;
  transport: SsrTransport;
  clock?: Clock;
  log?: Logger;
  heartbeatMs?: number;
  /** Silence before a member is suspected (temporary failure, 2.8); default 3 heartbeats. */
  suspectAfterMs?: number;
  /** Silence before a member has failed permanently and the cluster reshapes (2.11); default 1500 ms. */
  failAfterMs?: number;
  /** Time to collect heartbeats after start before serving (so the first view is the group's); default 3 heartbeats. */
  joinSettleMs?: number;
  /**
   * Wait for the buddy's acknowledgement before put/remove resolve (default false: asynchronous replication, 2.7.1).
   * Timer firings always wait for it, so that a timer never fires twice (2.14).
   */
  waitForAck?: boolean;
  ackTimeoutMs?: number;
  /** How long a load request waits for the members that have not answered (2.13 "4 seconds"); default 1000 ms. */
  loadTimeoutMs?: number;
  /** A copy handed out by a load request comes back if the requester never commits; default 5000 ms. */
  transferTimeoutMs?: number;
  /** Replica timers fire this long after the expiry, times (1 + depth) (2.14, 2.14.1); must exceed failAfterMs. */
  graceMs?: number;
  /**
   * 2.14.1 reactivation window after a failure: every replica of the failed owner is reactivated on its home
   * between lowMs and highMs after the notification (children later than parents); items whose timer expires
   * earlier go earlier. Undefined: only timers reactivate (and traffic).
   */
  reactivation?: { lowMs: number; highMs: number };
  /** 2.22.2.1 repair-under-load: replicate the whole active cache to a new buddy, then purge the old one (2.19). */
  repairUnderLoad?: boolean;
  repairBatch?: number;
  /** false: no buddy replication at all (the baseline of bench:ssr); default true. */
  replication?: boolean;
  /** A timer of an active artifact fired; called once the firing is on the buddy (2.14). */
  onFire?: (a: Artifact) => void | Promise<void>;
  /** Caches reloaded from disk (2.22.1): every entry starts suspect and is repaired from the partners. */
  restore?: SsrSnapshot;
}

export interface PutOptions {
  parentId?: string;
  /** The key whose hash picks the home; default: the parent's home (children live with their parent) or the id. */
  homeKey?: string;
  /** Next firing time (ms epoch); null clears the timer; undefined keeps it. */
  nextFire?: number | null;
}

export interface CensusEntry {
  id: string;
  version: number;
  owner: string;
  where: 'active' | 'replica';
  suspect: boolean;
}

interface PendingLoad {
  awaited: Set<string>;
  missing: boolean;
  /** the view the request was made in; an answer from another view makes the result unavailable */
  viewId: string;
  otherView: boolean;
  busy: boolean;
  found: { from: string; items: Artifact[] }[];
  minVersion?: number;
  finish: () => void;
}

type LoadResult = { items: Artifact[]; unavailable: boolean };

function percentile(xs: number[], q: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
}

/**
 * One SSR instance: an active cache and a replica cache, replication of every change to the buddy (next in the ring,
 * 2.7), lazy replication and lazy reactivation by load requests (2.12, 2.13), expat lists (2.13), timers on
 * replicas (2.14), migration back and purge (2.17 - 2.19), quiescence (2.16) and disk repair (2.22.1). A state
 * machine on a Clock with the network behind SsrTransport: the app calls put / get / remove on the home instance of
 * an artifact (routing is the caller's, as the load balancer's in the spec).
 */
export class SsrNode {
  readonly name: string;
  readonly self: Member;
  readonly key: string;
  private readonly clock: Clock;
  private readonly log: Logger | undefined;
  private readonly o: Required<Omit<SsrNodeOptions, 'incarnation' | 'clock' | 'log' | 'onFire' | 'restore' | 'reactivation'>> & Pick<SsrNodeOptions, 'reactivation' | 'onFire'>;
  private readonly membership: Membership;
  private currentView: View;
  private router: ConsistentHashRouter;
  readonly active = new ArtifactCache<ActiveEntry>();
  readonly replica = new ArtifactCache<ReplicaEntry>();
  private buddy: Member | undefined;
  private seqOut = 0;
  private acked = 0;
  private ackWaiters: { seq: number; resolve: (ok: boolean) => void; timer: TimerHandle }[] = [];
  private unacked: { seq: number; at: number; ids: string[] }[] = [];
  private reqSeq = 0;
  private readonly loads = new Map<string, PendingLoad>();
  /** finished loads: late 'found' answers are committed or given back (req → chosen versions by id) */
  private readonly doneLoads = new Map<string, Map<string, number> | null>();
  private readonly transfers = new Map<string, { ids: string[]; until: number }>();
  private readonly rpcs = new Map<string, (m: SsrMessage) => void>();
  private readonly idLocks = new Map<string, Promise<void>>();
  /** Tree activations under way (2.4.2.5): the children of a parent just activated here, on their way. */
  private readonly childLoads = new Map<string, Promise<void>>();
  private readonly ownerGoneAt = new Map<string, number>();
  private lastViewAt = 0;
  /** loaded, removed everywhere else, not yet active here: answered busy meanwhile (id → since) */
  private readonly arriving = new Map<string, number>();
  private expat = new Map<string, number>();
  private expatFrom = new Set<string>();
  private readonly expatInbox = new Map<string, { from: string; items: IdVersion[] }[]>();
  private timers: TimerHandle[] = [];
  private started = false;
  private stopped = false;
  private readyFlag = false;
  private quiescing = false;
  private repairs = 0;
  /**
   * Active copies reloaded from disk that the buddy's list has not yet sorted into kept and dropped: until then
   * such a copy may be one deleted (or reactivated and changed) while this instance was down, so it is neither
   * handed to a load nor used here; both answer busy (retryable) for the few hundred milliseconds it takes.
   */
  private reloadUnsorted: boolean;
  private resettling = false;
  private aloneAt = -Infinity;
  readonly loadLatencies: number[] = [];
  readonly counters = { loads: 0, loadNacksOnly: 0, busy: 0, fired: 0, advisories: 0, purged: 0, repaired: 0, reactivated: 0 };

  constructor(opts: SsrNodeOptions) {
    const hb = opts.heartbeatMs ?? 200;
    const failAfterMs = opts.failAfterMs ?? 1500;
    this.o = {
      name: opts.name,
      transport: opts.transport,
      heartbeatMs: hb,
      suspectAfterMs: opts.suspectAfterMs ?? 3 * hb,
      failAfterMs,
      joinSettleMs: opts.joinSettleMs ?? 3 * hb,
      waitForAck: opts.waitForAck ?? false,
      ackTimeoutMs: opts.ackTimeoutMs ?? 2000,
      loadTimeoutMs: opts.loadTimeoutMs ?? 1000,
      transferTimeoutMs: opts.transferTimeoutMs ?? 5000,
      graceMs: opts.graceMs ?? 2 * failAfterMs,
      reactivation: opts.reactivation,
      repairUnderLoad: opts.repairUnderLoad ?? true,
      repairBatch: opts.repairBatch ?? 200,
      replication: opts.replication ?? true,
      onFire: opts.onFire,
    };
    if (this.o.graceMs <= failAfterMs) throw new Error('graceMs must exceed failAfterMs (2.8: no replica timer may fire during a temporary failure)');
    this.name = opts.name;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log;
    this.self = { name: opts.name, incarnation: opts.incarnation ?? Math.random().toString(36).slice(2, 10) };
    this.key = memberKey(this.self);
    this.membership = new Membership(this.self, { suspectAfterMs: this.o.suspectAfterMs, failAfterMs }, this.clock.now());
    this.currentView = this.membership.view;
    this.router = new ConsistentHashRouter([this.name]);
    this.reloadUnsorted = (opts.restore?.actives.length ?? 0) > 0;
    if (opts.restore) {
      // 2.22.1.1 / 2.22.1.2: everything reloaded from disk is suspect until the partners confirm it
      for (const a of opts.restore.actives) this.active.set({ a, suspect: true });
      for (const a of opts.restore.replicas) this.replica.set({ a, suspect: true });
    }
  }

  // ---------------------------------------------------------------- lifecycle

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.o.transport.start(this.name, (m) => this.onMessage(m));
    this.heartbeat();
    this.every(this.o.heartbeatMs, () => {
      this.heartbeat();
      this.handleEvents(this.membership.tick(this.clock.now()));
      this.sweepTransfers();
      this.resendUnacked();
    });
    this.after(this.o.joinSettleMs, () => {
      this.readyFlag = true;
      this.log?.info({ view: this.describeView() }, 'ssr instance ready');
      this.sendExpatLists();
      for (const e of this.active.values()) if (!e.suspect) this.armActive(e);
      if (this.hasSuspects()) void this.repairFromPartners();
    });
  }

  get ready(): boolean {
    return this.readyFlag && !this.stopped;
  }
  get view(): View {
    return this.currentView;
  }
  get isQuiescing(): boolean {
    return this.quiescing;
  }
  get buddyName(): string | undefined {
    return this.buddy?.name;
  }
  /** Number of repairs under way (repair-under-load, disk repair). */
  get repairing(): number {
    return this.repairs;
  }

  homeOf(homeHash: number): string | undefined {
    return this.router.home(homeHash);
  }

  /** The home hash of a new artifact: children live with their parent. */
  homeHashFor(id: string, opts: PutOptions = {}): number {
    if (opts.homeKey !== undefined) return hashKey(opts.homeKey);
    if (opts.parentId !== undefined) return this.active.get(opts.parentId)?.a.homeHash ?? hashKey(opts.parentId);
    return hashKey(id);
  }

  /** 2.16 quiescence: stop taking operations, let those under way finish, flush replication to the buddy. */
  async quiesce(): Promise<void> {
    this.quiescing = true;
    while (this.idLocks.size > 0) await Promise.all([...this.idLocks.values()]);
    await this.flushReplication();
    await this.confirmReplicas();
  }

  /**
   * Before a save (2.16, 2.22.1): the reload keeps an active copy only if the buddy holds our replica of it, so the
   * buddy's list is checked now and whatever it lacks (or holds at another version) is replicated again, with
   * acknowledgement. An acknowledgement alone does not prove the replica is still there when the save happens.
   */
  private async confirmReplicas(): Promise<void> {
    for (let round = 0; round < 3 && !this.stopped && this.o.replication; round++) {
      const b = this.buddy;
      if (!b) return;
      const list = await this.versionList(b, 'replicas-of-mine');
      if (!list) return; // a silent buddy: the reload will settle what it can by loads
      if (this.buddy !== b) continue;
      const have = new Map(list);
      const missing = [...this.active.values()].filter((e) => !e.suspect && !e.transfer && have.get(e.a.id) !== e.a.version).map((e) => e.a);
      if (!missing.length) return;
      this.log?.warn({ buddy: b.name, artifacts: missing.length, ids: missing.slice(0, 5).map((a) => `${a.id}@${a.version}`) }, 'quiesce: the buddy lacked replicas of active copies; sent again');
      for (let i = 0; i < missing.length; i += this.o.repairBatch) await this.replicate(missing.slice(i, i + this.o.repairBatch), true);
    }
  }

  /** 2.15 planned shutdown: announce the departure (the others reshape at once) and stop. */
  async leave(): Promise<void> {
    if (this.stopped) return;
    this.o.transport.broadcast({ t: 'hb', from: this.self, state: 'leaving' });
    await this.o.transport.flush();
    await this.stop();
  }

  /** Stops timers and the transport without a goodbye (what a crash looks like to the others). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) this.clock.clearTimeout(t);
    for (const e of this.active.values()) if (e.timer) this.clock.clearTimeout(e.timer);
    for (const e of this.replica.values()) if (e.timer) this.clock.clearTimeout(e.timer);
    for (const w of this.ackWaiters) this.clock.clearTimeout(w.timer);
    for (const w of this.ackWaiters) w.resolve(false);
    this.ackWaiters = [];
    await this.o.transport.close();
  }

  /** The caches as they are, for disk save (2.22.1 "Save and Reload"). */
  snapshot(): SsrSnapshot {
    return {
      name: this.name,
      savedAt: this.clock.now(),
      actives: [...this.active.values()].map((e) => e.a),
      replicas: [...this.replica.values()].map((e) => e.a),
    };
  }

  census(): CensusEntry[] {
    const out: CensusEntry[] = [];
    for (const e of this.active.values()) out.push({ id: e.a.id, version: e.a.version, owner: e.a.owner, where: 'active', suspect: e.suspect });
    for (const e of this.replica.values()) out.push({ id: e.a.id, version: e.a.version, owner: e.a.owner, where: 'replica', suspect: e.suspect });
    return out;
  }

  stats(): Record<string, number | string | boolean> {
    let armed = 0;
    for (const e of this.replica.values()) if (e.timer) armed++;
    return {
      name: this.name,
      ready: this.ready,
      members: this.currentView.members.length,
      view: this.currentView.id,
      active: this.active.size,
      replica: this.replica.size,
      armedReplicas: armed,
      repairing: this.repairs,
      expatReady: this.expatReady(),
      unacked: this.seqOut - this.acked,
      loadP50: percentile(this.loadLatencies, 0.5),
      loadP99: percentile(this.loadLatencies, 0.99),
      ...this.counters,
    };
  }

  // ---------------------------------------------------------------- operations

  /** Reads an artifact: active cache, else a load request (lazy reactivation, migration). undefined if none exists. */
  async get(id: string): Promise<Artifact | undefined> {
    return this.withIdLock(id, async () => {
      const e = await this.find(id, 'get');
      if (!e) return undefined;
      e.a.lastAccess = this.clock.now();
      return e.a;
    });
  }

  /** Creates or replaces an artifact here (find vs create, 2.13) and replicates it to the buddy. */
  async put(id: string, body: Uint8Array, opts: PutOptions = {}): Promise<Artifact> {
    return this.withIdLock(id, async () => {
      const e = await this.find(id, 'create');
      const now = this.clock.now();
      let a: Artifact;
      if (e) {
        a = { ...e.a, version: e.a.version + 1, owner: this.key, body, lastAccess: now };
        if (opts.nextFire === null) delete a.nextFire;
        else if (opts.nextFire !== undefined) a.nextFire = opts.nextFire;
      } else {
        const parent = opts.parentId !== undefined ? this.active.get(opts.parentId) : undefined;
        a = {
          id,
          version: 1,
          owner: this.key,
          homeHash: this.homeHashFor(id, opts),
          depth: opts.parentId !== undefined ? (parent ? parent.a.depth + 1 : 1) : 0,
          lastAccess: now,
          body,
        };
        if (opts.parentId !== undefined) a.parentId = opts.parentId;
        if (typeof opts.nextFire === 'number') a.nextFire = opts.nextFire;
      }
      const entry: ActiveEntry = { a, suspect: false };
      if (e?.timer) this.clock.clearTimeout(e.timer);
      this.active.set(entry);
      this.dropOwnReplica(id);
      this.expat.delete(id);
      this.armActive(entry);
      await this.replicate([a], this.o.waitForAck);
      return a;
    });
  }

  /**
   * The children of `parentId` active here (confirmed copies, in no order). When the parent was just activated here
   * (a reactivation or migration), its children are being loaded along with it (tree activation, 2.4.2.5): this
   * waits for that load first, so a caller that has just got the parent sees its whole tree.
   */
  async children(parentId: string): Promise<Artifact[]> {
    await this.childLoads.get(parentId);
    return this.active
      .children(parentId)
      .filter((e) => !e.suspect && !e.transfer)
      .map((e) => e.a);
  }

  /** Removes an artifact everywhere it is known: active here, its replica on the buddy. false if it did not exist. */
  async remove(id: string): Promise<boolean> {
    return this.withIdLock(id, async () => {
      const e = await this.find(id, 'get');
      if (!e) return false;
      this.dropActive(id);
      await this.sendRemove([id], this.o.waitForAck);
      return true;
    });
  }

  /** Updates the externalized slots only (2.4.2.2): no new version, no body on the wire. */
  async touch(id: string, nextFire?: number | null): Promise<boolean> {
    return this.withIdLock(id, async () => {
      const e = await this.find(id, 'get');
      if (!e) return false;
      e.a.lastAccess = this.clock.now();
      if (nextFire === null) delete e.a.nextFire;
      else if (nextFire !== undefined) e.a.nextFire = nextFire;
      this.armActive(e);
      const b = this.buddy;
      if (b && this.o.replication) {
        const item: { id: string; version: number; lastAccess: number; nextFire?: number } = { id, version: e.a.version, lastAccess: e.a.lastAccess };
        if (e.a.nextFire !== undefined) item.nextFire = e.a.nextFire;
        const seq = ++this.seqOut;
        this.o.transport.send(b.name, { t: 'slot', from: this.key, to: memberKey(b), seq, items: [item] });
        if (this.o.waitForAck) await this.waitAck(seq);
      }
      return true;
    });
  }

  /** Resolves once the buddy acknowledged everything sent so far (or after ackTimeoutMs). */
  async flushReplication(): Promise<boolean> {
    if (!this.buddy || this.acked >= this.seqOut) return true;
    return this.waitAck(this.seqOut);
  }

  // ---------------------------------------------------------------- find, load requests (2.13)

  /**
   * The active copy, or a reactivated / migrated one. `create` trusts the expat list: an artifact that is neither
   * active here nor in the expat list does not exist, and no broadcast is needed (2.13 "find vs create"). `get`
   * broadcasts before it concludes an artifact does not exist (non-version-aware when no expat entry says which
   * version to ask for).
   */
  private async find(id: string, mode: 'get' | 'create'): Promise<ActiveEntry | undefined> {
    const e = this.active.get(id);
    if (e && e.transfer) throw new SsrBusy(`${id} is being moved to another instance`);
    if (e && e.suspect && this.reloadUnsorted) throw new SsrBusy(`${id}: the copy reloaded from disk is not yet confirmed by the buddy`);
    if (!e && this.isArriving(id)) throw new SsrBusy(`${id} is being activated here`);
    if (e && !e.suspect) return e;
    const expatVersion = this.expat.get(id);
    if (!e && mode === 'create' && this.expatReady() && expatVersion === undefined && this.replica.get(id) === undefined) return undefined;
    const t0 = this.clock.now();
    const r = await this.load({ id, ...(expatVersion !== undefined ? { minVersion: expatVersion } : {}) });
    this.loadLatencies.push(this.clock.now() - t0);
    if (this.loadLatencies.length > 5000) this.loadLatencies.splice(0, 2500);
    const a = r.items.find((x) => x.id === id);
    if (a && expatVersion !== undefined && a.version < expatVersion) {
      // version-aware load: the expat list promised a newer copy than any that answered (lost with a failure?)
      this.log?.warn({ id, expected: expatVersion, got: a.version }, 'load found an older version than the expat list');
    }
    if (!a) {
      if (r.unavailable && mode === 'get') throw new SsrUnavailable(`${id}: a member did not answer the load request`);
      if (r.unavailable) throw new SsrUnavailable(`${id}: cannot tell find from create while a member is silent`);
      this.expat.delete(id);
      return undefined;
    }
    return this.activate(a);
  }

  /** Makes a loaded copy active here (reactivation or migration): this instance owns it now and replicates it. */
  private async activate(a: Artifact): Promise<ActiveEntry> {
    const old = this.active.get(a.id);
    if (old?.timer) this.clock.clearTimeout(old.timer);
    this.log?.debug({ id: a.id, version: a.version, from: a.owner }, 'activated from a load');
    a.owner = this.key;
    const e: ActiveEntry = { a, suspect: false };
    this.active.set(e);
    this.arriving.delete(a.id);
    this.dropOwnReplica(a.id);
    this.expat.delete(a.id);
    this.counters.reactivated++;
    // the loaded copies were removed everywhere: replicate now, or the artifact has one copy until its next change
    await this.replicate([a], this.o.waitForAck);
    this.armActive(e);
    // tree activation (2.4.2.5, 2.14.1 loadAllChildren): a root brings its children; a child makes sure of its parent
    if (a.depth === 0) this.startChildLoad(a.id);
    else if (a.parentId !== undefined && !this.active.has(a.parentId)) void this.ensureParent(a);
    return e;
  }

  private startChildLoad(parentId: string): void {
    const p = this.loadChildren(parentId).finally(() => {
      if (this.childLoads.get(parentId) === p) this.childLoads.delete(parentId);
    });
    this.childLoads.set(parentId, p);
  }

  private async loadChildren(parentId: string): Promise<void> {
    try {
      const r = await this.load({ parentId });
      // all children become active in this turn (activate sets the entry before it waits for the buddy): the load
      // has removed them everywhere else, so a find for one of them must not meet an instant with no copy
      await Promise.all(
        r.items.map((c) => {
          const mine = this.active.get(c.id);
          if (!mine || mine.suspect || mine.a.version < c.version) return this.activate(c);
          // already active here: the load removed its replica on the buddy too, so replicate it again
          this.arriving.delete(c.id);
          return this.replicate([mine.a], false);
        }),
      );
    } catch (err) {
      this.log?.debug({ err, parentId }, 'children load failed; they come with their own timers or traffic');
    }
  }

  /**
   * 2.14.1: no child outlives its parent. A child whose parent is found nowhere, twice, a grace period apart (a
   * parent may be in transfer or on an instance this view does not show yet), is removed.
   */
  private async ensureParent(child: Artifact, second = false): Promise<void> {
    const pid = child.parentId as string;
    try {
      const p = await this.withIdLock(pid, () => this.find(pid, 'get'));
      if (!p && !second) {
        this.after(this.o.graceMs, () => void this.ensureParent(child, true));
        return;
      }
      if (!p) {
        await this.withIdLock(child.id, async () => {
          if (!this.active.has(child.id)) return;
          this.dropActive(child.id);
          await this.sendRemove([child.id], false);
        });
        this.log?.info({ id: child.id, parent: pid }, 'orphan child removed');
      }
    } catch {
      /* busy / unavailable: the parent is somewhere; leave the child */
    }
  }

  /**
   * Broadcasts a load request and collects one answer per member (negative acknowledgements make a missing artifact
   * cost one round, not a timeout). The best copy wins; every copy found is then removed where it was (2.13, 2.18:
   * no duplicate active copies), or given back if a member answered busy (2.18.1).
   */
  private load(q: { id?: string; parentId?: string; minVersion?: number }): Promise<LoadResult> {
    const req = `${this.name}.${this.self.incarnation}.${++this.reqSeq}`;
    this.counters.loads++;
    // this instance's own copies take part without the network (2.13: "no network communication is needed")
    const local: Artifact[] = [];
    const ids = q.id !== undefined ? [q.id] : [...this.replica.children(q.parentId as string), ...this.active.children(q.parentId as string)].map((e) => e.a.id);
    for (const id of ids) {
      const r = this.replica.get(id);
      if (r && !r.suspect && !r.transfer) local.push(r.a);
      const ae = this.active.get(id);
      if (ae && q.id !== undefined && ae.suspect) local.push(ae.a);
    }
    const awaited = new Set(this.currentView.members.filter((m) => m.name !== this.name && !this.membership.isSuspected(m.name)).map(memberKey));
    const missing = awaited.size < this.currentView.members.length - 1;
    return new Promise<LoadResult>((resolve, reject) => {
      const p: PendingLoad = {
        awaited,
        missing,
        viewId: this.currentView.id,
        otherView: false,
        busy: false,
        found: [],
        ...(q.minVersion !== undefined ? { minVersion: q.minVersion } : {}),
        finish: () => {
          if (!this.loads.has(req)) return;
          this.loads.delete(req);
          this.clock.clearTimeout(timer);
          const finders = p.found.map((f) => f.from);
          if (p.busy) {
            this.counters.busy++;
            for (const f of finders) this.sendTo(f, { t: 'commit', from: this.key, to: f, req, remove: false });
            this.doneLoads.set(req, null);
            this.forgetLoadLater(req);
            reject(new SsrBusy(`${q.id ?? `children of ${q.parentId}`} is locked by an access on another instance; retry`));
            return;
          }
          const best = new Map<string, Artifact>();
          for (const a of [...local, ...p.found.flatMap((f) => f.items)]) {
            const b = best.get(a.id);
            if (!b || a.version > b.version) best.set(a.id, a);
          }
          // right after a reshape a member may not be in this view yet: "found nowhere" is not trusted then
          // an answer from a member in another view (or a reshape here since the request): the expat lists of the
          // view this copy would move in were made before it moved, so the home of the artifact would not know it
          // exists here and could create a fresh version 1 beside it (2.13 find vs create)
          const unavailable =
            p.missing || p.awaited.size > 0 || this.clock.now() - this.lastViewAt < this.o.suspectAfterMs || p.otherView || this.currentView.id !== p.viewId;
          if (unavailable && q.id !== undefined) {
            // someone silent (or not yet in this young view) may hold a newer copy: nothing is taken, the copies
            // found are given back, and the caller retries (2.8: 503 during a temporary failure)
            for (const f of finders) this.sendTo(f, { t: 'commit', from: this.key, to: f, req, remove: false });
            this.doneLoads.set(req, null);
            this.forgetLoadLater(req);
            resolve({ items: [], unavailable: true });
            return;
          }
          for (const f of finders) this.sendTo(f, { t: 'commit', from: this.key, to: f, req, remove: true });
          for (const id of best.keys()) this.arriving.set(id, this.clock.now());
          for (const a of local) {
            const r = this.replica.get(a.id);
            if (r && r.a.version <= (best.get(a.id)?.version ?? 0)) this.dropReplica(a.id);
          }
          if (p.found.length === 0 && local.length === 0) this.counters.loadNacksOnly++;
          this.doneLoads.set(req, new Map([...best].map(([id, a]) => [id, a.version])));
          this.forgetLoadLater(req);
          resolve({ items: [...best.values()].map((a) => ({ ...a })), unavailable });
        },
      };
      const timer = this.clock.setTimeout(() => p.finish(), this.o.loadTimeoutMs);
      this.loads.set(req, p);
      const m: SsrMessage = { t: 'load', from: this.key, req, viewId: p.viewId };
      if (q.id !== undefined) m.id = q.id;
      if (q.parentId !== undefined) m.parentId = q.parentId;
      if (q.minVersion !== undefined) m.minVersion = q.minVersion;
      if (awaited.size === 0) p.finish();
      else this.o.transport.broadcast(m);
    });
  }

  private onLoad(m: Extract<SsrMessage, { t: 'load' }>): void {
    const ids = m.id !== undefined ? [m.id] : [...this.active.children(m.parentId ?? ''), ...this.replica.children(m.parentId ?? '')].map((e) => e.a.id);
    const items: Artifact[] = [];
    const marked: { t: ActiveEntry | ReplicaEntry }[] = [];
    let busy = false;
    const until = this.clock.now() + this.o.transferTimeoutMs;
    for (const id of new Set(ids)) {
      if (this.isArriving(id)) busy = true;
      const ae = this.active.get(id);
      if (ae) {
        // 2.18.1: an actively locked copy answers busy (and so does a reloaded copy the repair has not sorted yet)
        if (this.idLocks.has(id) || ae.transfer || (ae.suspect && this.reloadUnsorted)) busy = true;
        else marked.push({ t: ae });
      }
      const re = this.replica.get(id);
      if (re && !re.suspect) {
        if (re.transfer) busy = true;
        else marked.push({ t: re });
      }
    }
    if (busy) {
      this.reply(m.from, { t: 'loadr', from: this.key, to: m.from, req: m.req, result: 'busy', viewId: this.currentView.id });
      return;
    }
    for (const { t } of marked) {
      t.transfer = { req: m.req, until };
      items.push(t.a);
    }
    if (items.length) this.transfers.set(m.req, { ids: [...new Set(items.map((a) => a.id))], until });
    this.log?.debug({ req: m.req, id: m.id, parent: m.parentId, found: items.map((a) => `${a.id}@${a.version}`).slice(0, 4), busy }, 'load answered');
    const viewId = this.currentView.id;
    this.reply(m.from, items.length ? { t: 'loadr', from: this.key, to: m.from, req: m.req, result: 'found', items, viewId } : { t: 'loadr', from: this.key, to: m.from, req: m.req, result: 'nack', viewId });
  }

  private onLoadReply(m: Extract<SsrMessage, { t: 'loadr' }>): void {
    const p = this.loads.get(m.req);
    if (!p) {
      // late answer to a finished load: commit if what it holds is not newer than what was taken, else give it back
      if (m.result !== 'found') return;
      const chosen = this.doneLoads.get(m.req);
      const remove = chosen != null && (m.items ?? []).every((a) => a.version <= (chosen.get(a.id) ?? -1));
      this.sendTo(m.from, { t: 'commit', from: this.key, to: m.from, req: m.req, remove });
      return;
    }
    p.awaited.delete(m.from);
    if (m.viewId !== undefined && m.viewId !== p.viewId) p.otherView = true;
    if (m.result === 'busy') p.busy = true;
    if (m.result === 'found') p.found.push({ from: m.from, items: m.items ?? [] });
    // every member's answer is awaited even once a sufficient version is in hand (2.13 version-aware would stop
    // there): a copy not yet heard of may be an active one that answers busy, and taking the replica then would
    // leave two active copies (2.18). Negative acknowledgements keep the wait to one round.
    if (p.awaited.size === 0) p.finish();
  }

  private onCommit(m: Extract<SsrMessage, { t: 'commit' }>): void {
    const t = this.transfers.get(m.req);
    if (!t) {
      if (m.from) this.log?.debug({ req: m.req, remove: m.remove }, 'commit for an unknown transfer');
      return;
    }
    this.log?.debug({ req: m.req, remove: m.remove, ids: t.ids.slice(0, 4) }, 'commit');
    this.transfers.delete(m.req);
    for (const id of t.ids) {
      let gone: Artifact | undefined;
      const ae = this.active.get(id);
      if (ae?.transfer?.req === m.req) {
        if (m.remove) {
          this.dropActive(id);
          gone = ae.a;
        } else delete ae.transfer;
      }
      const re = this.replica.get(id);
      if (re?.transfer?.req === m.req) {
        if (m.remove) {
          this.dropReplica(id);
          if (!gone || re.a.version > gone.version) gone = re.a;
        } else delete re.transfer;
      }
      // an artifact of this home taken by another instance (a reload's repair, an advisory or a read in a view
      // that disagrees with ours) now lives elsewhere, and no expat list of this view says so: a create here must
      // do the load round, or it would make a fresh version 1 beside it (2.13 find vs create)
      if (gone && this.router.home(gone.homeHash) === this.name && (this.expat.get(id) ?? -1) < gone.version) this.expat.set(id, gone.version);
    }
  }

  private sweepTransfers(): void {
    const now = this.clock.now();
    for (const [req, t] of this.transfers) {
      if (t.until > now) continue;
      this.onCommit({ t: 'commit', from: '', to: this.key, req, remove: false });
    }
  }

  // ---------------------------------------------------------------- replication (2.7, 2.12)

  private replicate(items: Artifact[], wait: boolean): Promise<boolean> {
    const b = this.buddy;
    if (!b || items.length === 0 || !this.o.replication) return Promise.resolve(false);
    const seq = ++this.seqOut;
    this.o.transport.send(b.name, { t: 'rep', from: this.key, to: memberKey(b), seq, items });
    this.unacked.push({ seq, at: this.clock.now(), ids: items.map((a) => a.id) });
    return wait ? this.waitAck(seq) : Promise.resolve(true);
  }

  /**
   * Replication that the buddy has not acknowledged within ackTimeoutMs (a message lost to a slow-consumer
   * disconnect, say) is sent again with the current version: asynchronous replication (2.7.1) may lose a message,
   * but an artifact must not stay with one copy until its next change.
   */
  private resendUnacked(): void {
    while (this.unacked.length && (this.unacked[0] as { seq: number }).seq <= this.acked) this.unacked.shift();
    const head = this.unacked[0];
    if (!head || this.clock.now() - head.at < this.o.ackTimeoutMs || !this.buddy) return;
    const ids = new Set(this.unacked.splice(0).flatMap((u) => u.ids));
    const items = [...ids].map((id) => this.active.get(id)).filter((e): e is ActiveEntry => !!e && !e.suspect && !e.transfer).map((e) => e.a);
    this.log?.warn({ buddy: this.buddy.name, artifacts: items.length }, 'replication not acknowledged in time; sent again');
    for (let i = 0; i < items.length; i += this.o.repairBatch) void this.replicate(items.slice(i, i + this.o.repairBatch), false);
  }

  private sendRemove(ids: string[], wait: boolean): Promise<boolean> {
    const b = this.buddy;
    if (!b || !this.o.replication) return Promise.resolve(false);
    const seq = ++this.seqOut;
    this.o.transport.send(b.name, { t: 'rm', from: this.key, to: memberKey(b), seq, ids });
    return wait ? this.waitAck(seq) : Promise.resolve(true);
  }

  private waitAck(seq: number): Promise<boolean> {
    if (this.acked >= seq) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.ackWaiters = this.ackWaiters.filter((w) => w.timer !== timer);
        resolve(false);
      }, this.o.ackTimeoutMs);
      this.ackWaiters.push({ seq, resolve, timer });
    });
  }

  private onAck(m: Extract<SsrMessage, { t: 'ack' }>): void {
    if (!this.buddy || m.from !== memberKey(this.buddy)) return;
    if (m.seq > this.acked) this.acked = m.seq;
    const done = this.ackWaiters.filter((w) => w.seq <= this.acked);
    if (!done.length) return;
    this.ackWaiters = this.ackWaiters.filter((w) => w.seq > this.acked);
    for (const w of done) {
      this.clock.clearTimeout(w.timer);
      w.resolve(true);
    }
  }

  private onReplicate(m: Extract<SsrMessage, { t: 'rep' }>): void {
    for (const a of m.items) {
      const old = this.replica.get(a.id);
      // version-monotonic whoever sends it: a late replication from a former owner (or one that made a second,
      // older active copy) must not overwrite a newer replica, which may be the only other copy of the artifact.
      // A suspect copy reloaded from disk is no evidence of anything and is replaced.
      if (old && !old.suspect && !old.transfer && old.a.version > a.version) continue;
      // a copy in transfer is replaced: the load's commit then finds no transfer on the new entry and keeps it
      if (old?.timer) this.clock.clearTimeout(old.timer);
      const e: ReplicaEntry = { a, suspect: false, seq: m.seq };
      this.replica.set(e);
      this.armReplica(e);
    }
    this.reply(m.from, { t: 'ack', from: this.key, to: m.from, seq: m.seq });
  }

  private onRemove(m: Extract<SsrMessage, { t: 'rm' }>): void {
    for (const id of m.ids) {
      // only the owner may remove: a late remove of a former owner must not delete the new owner's replica
      const r = this.replica.get(id);
      if (r && r.a.owner === m.from && !r.transfer) this.dropReplica(id);
    }
    this.reply(m.from, { t: 'ack', from: this.key, to: m.from, seq: m.seq });
  }

  private onSlot(m: Extract<SsrMessage, { t: 'slot' }>): void {
    for (const s of m.items) {
      const r = this.replica.get(s.id);
      if (!r || r.a.version !== s.version) continue;
      r.a.lastAccess = s.lastAccess;
      if (s.nextFire === undefined) delete r.a.nextFire;
      else r.a.nextFire = s.nextFire;
      this.armReplica(r);
    }
    this.reply(m.from, { t: 'ack', from: this.key, to: m.from, seq: m.seq });
  }

  /**
   * 2.17 / 2.19: tells a former buddy (if still a member) to drop the replicas this instance sent it. The purge names
   * the replication sequence number it covers: only replicas written by messages sent before it go, so a purge
   * that meets the instance after it has become the buddy again never removes what was sent to it since.
   */
  private sendPurge(old: Member): void {
    if (!this.currentView.members.some((m) => memberKey(m) === memberKey(old))) return;
    this.sendTo(memberKey(old), { t: 'purge', from: this.key, to: memberKey(old), owner: this.key, beforeSeq: this.seqOut + 1 });
  }

  /** 2.17 / 2.19: the former buddy drops the replicas it holds for this owner (those written before the purge). */
  private onPurge(m: Extract<SsrMessage, { t: 'purge' }>): void {
    let n = 0;
    for (const e of [...this.replica.values()]) {
      if (e.a.owner === m.owner && !e.transfer && (m.beforeSeq === undefined || (e.seq ?? 0) < m.beforeSeq)) {
        this.dropReplica(e.a.id);
        n++;
      }
    }
    this.counters.purged += n;
    this.log?.info({ owner: m.owner, purged: n }, 'stale replicas purged');
  }

  private onPull(m: Extract<SsrMessage, { t: 'pull' }>): void {
    const items = m.ids.map((id) => this.active.get(id)).filter((e): e is ActiveEntry => !!e && !e.suspect).map((e) => e.a);
    for (let i = 0; i < items.length; i += this.o.repairBatch) void this.replicate(items.slice(i, i + this.o.repairBatch), false);
  }

  /** 2.22.2.1 repair-under-load: the whole active cache to the new buddy, then purge of the old buddy (2.19). */
  private async repairTo(nb: Member, old: Member | undefined): Promise<void> {
    this.repairs++;
    try {
      const all = [...this.active.values()].filter((e) => !e.suspect).map((e) => e.a);
      for (let i = 0; i < all.length; i += this.o.repairBatch) {
        if (this.buddy?.name !== nb.name || this.stopped) return;
        const batch = all.slice(i, i + this.o.repairBatch).filter((a) => this.active.get(a.id)?.a === a);
        if (batch.length && !(await this.replicate(batch, true))) this.log?.warn({ buddy: nb.name }, 'repair batch not acknowledged');
      }
      this.counters.repaired += all.length;
      // the buddy may have changed while the last batch waited for its acknowledgement (the new buddy failed, say,
      // and the old one is the buddy again, with a repair of its own already on the wire): purging it now would
      // drop the replicas that repair just sent, leaving one copy of everything this instance holds
      if (this.stopped || !this.buddy || memberKey(this.buddy) !== memberKey(nb)) return;
      if (old) this.sendPurge(old);
    } finally {
      this.repairs--;
    }
  }

  // ---------------------------------------------------------------- timers (2.14, 2.14.1)

  private armActive(e: ActiveEntry): void {
    if (e.timer) this.clock.clearTimeout(e.timer);
    delete e.timer;
    if (e.a.nextFire === undefined || !this.readyFlag || this.stopped) return;
    const id = e.a.id;
    e.timer = this.clock.setTimeout(() => void this.fireActive(id), Math.max(0, e.a.nextFire - this.clock.now()));
  }

  /**
   * A timer fires on the active copy. The firing is recorded (nextFire cleared, new version) and acknowledged by the
   * buddy before onFire runs, so a failure of this instance afterwards cannot make the replica fire it again.
   */
  private async fireActive(id: string): Promise<void> {
    let fired: Artifact | undefined;
    try {
      await this.withIdLock(id, async () => {
        const e = this.active.get(id);
        if (!e || e.suspect || e.transfer || e.a.nextFire === undefined) return;
        if (e.a.nextFire > this.clock.now()) return this.armActive(e);
        const a: Artifact = { ...e.a, version: e.a.version + 1, lastAccess: this.clock.now() };
        delete a.nextFire;
        this.active.set({ a, suspect: false });
        await this.replicate([a], true);
        fired = a;
      });
    } catch (err) {
      this.log?.warn({ err, id }, 'timer firing failed');
      return;
    }
    if (!fired) return;
    this.counters.fired++;
    try {
      await this.o.onFire?.(fired);
    } catch (err) {
      this.log?.warn({ err, id }, 'onFire handler failed');
    }
  }

  /** Arms a replica's timer while its owner is gone (2.14): expiry + grace × (1 + depth), or the 2.14.1 window. */
  private armReplica(e: ReplicaEntry): void {
    if (e.timer) this.clock.clearTimeout(e.timer);
    delete e.timer;
    if (this.stopped || e.suspect) return;
    if (this.isMember(e.a.owner)) return;
    // an owner never seen here (a replica that arrived before the owner's first heartbeat) counts as gone only
    // after it stayed unseen for a failure-detection time; replicaDue checks again before acting
    const goneAt = this.ownerGoneAt.get(e.a.owner) ?? this.clock.now() + this.o.failAfterMs;
    const g = this.o.graceMs;
    let due = e.a.nextFire !== undefined ? e.a.nextFire + g * (1 + e.a.depth) : Infinity;
    const w = this.o.reactivation;
    if (w) {
      const spread = (hashKey(e.a.id) % 1000) / 1000;
      due = Math.min(due, goneAt + w.lowMs + spread * (w.highMs - w.lowMs) + e.a.depth * g);
    }
    if (due === Infinity) return;
    const id = e.a.id;
    e.timer = this.clock.setTimeout(() => void this.replicaDue(id), Math.max(0, due - this.clock.now()));
  }

  /** The replica's timer expired with its owner gone: a load advisory to the home instance (2.14). */
  private async replicaDue(id: string): Promise<void> {
    const e = this.replica.get(id);
    if (!e || this.stopped) return;
    delete e.timer;
    if (e.suspect || this.isMember(e.a.owner)) return; // the owner is (back) in the view: its replica is no orphan
    if (e.transfer) {
      // a load has it in hand; if that load gives it back, this timer must still be running
      e.timer = this.clock.setTimeout(() => void this.replicaDue(id), this.o.transferTimeoutMs);
      return;
    }
    const home = this.router.home(e.a.homeHash);
    let outcome: 'drop' | 'taken' | 'retry';
    if (home === this.name) outcome = await this.handleAdvisory(id, e.a.version);
    else {
      const member = this.currentView.members.find((m) => m.name === home);
      if (!member) outcome = 'retry';
      else {
        const req = `adv.${this.name}.${++this.reqSeq}`;
        const r = await this.rpc(memberKey(member), req, { t: 'adv', from: this.key, to: memberKey(member), req, id, version: e.a.version }, this.o.loadTimeoutMs * 3);
        outcome = r?.t === 'advr' ? r.outcome : 'retry';
      }
    }
    const now = this.replica.get(id);
    if (outcome === 'drop' && now && now.a === e.a && !now.transfer) this.dropReplica(id);
    // whatever happened, a replica of a gone owner that is still here keeps a timer: it must not stay an orphan
    const left = this.replica.get(id);
    if (left && !left.timer && !left.suspect && !this.isMember(left.a.owner)) left.timer = this.clock.setTimeout(() => void this.replicaDue(id), this.o.graceMs);
  }

  /**
   * On the home: reactivate the advised artifact here, unless it is active here already (2.14 pseudo-code). An
   * active copy here older than the advising replica (a second active copy made while the newer one was out of
   * sight) does not send the replica away: it is settled by a load, as a suspect copy is, and the highest version
   * wins; dropping the replica would drop the newest, possibly the last, copy of the artifact.
   */
  private async handleAdvisory(id: string, version: number): Promise<'drop' | 'taken' | 'retry'> {
    this.counters.advisories++;
    if (!this.readyFlag || this.quiescing) return 'retry';
    try {
      return await this.withIdLock(id, async () => {
        const e = this.active.get(id);
        if (e && !e.suspect && !e.transfer && e.a.version < version) {
          this.log?.warn({ id, here: e.a.version, advised: version }, 'advising replica newer than the active copy here: settled by a load');
          e.suspect = true;
          try {
            const got = await this.find(id, 'get');
            return got ? 'taken' : 'drop';
          } finally {
            const now = this.active.get(id);
            if (now === e && e.suspect) {
              e.suspect = false;
              this.armActive(e);
            }
          }
        }
        // a suspect copy (reloaded from disk) is not trusted: the load below compares it with every other (2.22.1.1)
        if (e && !e.suspect) {
          // the advising replica goes; make sure the buddy holds a replica under this incarnation (the advising
          // one may have been it, under a former incarnation of this instance)
          e.a.owner = this.key;
          await this.replicate([e.a], this.o.waitForAck);
          return 'drop';
        }
        const got = await this.find(id, 'get');
        return got ? 'taken' : 'drop';
      });
    } catch {
      return 'retry';
    }
  }

  // ---------------------------------------------------------------- expat lists (2.13 find vs create)

  private expatReady(): boolean {
    if (!this.readyFlag) return false;
    return this.currentView.members.every((m) => m.name === this.name || this.expatFrom.has(memberKey(m)));
  }

  private sendExpatLists(): void {
    if (!this.readyFlag) return;
    const lists = new Map<string, IdVersion[]>();
    const add = (e: { a: Artifact; suspect: boolean }): void => {
      if (e.suspect) return;
      const home = this.router.home(e.a.homeHash);
      if (!home || home === this.name) return;
      let l = lists.get(home);
      if (!l) lists.set(home, (l = []));
      l.push([e.a.id, e.a.version]);
    };
    for (const e of this.active.values()) add(e);
    for (const e of this.replica.values()) add(e);
    for (const m of this.currentView.members) {
      if (m.name === this.name) continue;
      const items = lists.get(m.name) ?? [];
      for (let i = 0; i === 0 || i < items.length; i += 5000) {
        this.o.transport.send(m.name, { t: 'expat', from: this.key, to: memberKey(m), viewId: this.currentView.id, items: items.slice(i, i + 5000) });
      }
    }
  }

  private onExpat(m: Extract<SsrMessage, { t: 'expat' }>): void {
    let inbox = this.expatInbox.get(m.viewId);
    if (!inbox) {
      this.expatInbox.set(m.viewId, (inbox = []));
      // views an instance never reaches are forgotten
      if (this.expatInbox.size > 8) this.expatInbox.delete(this.expatInbox.keys().next().value as string);
    }
    inbox.push({ from: m.from, items: m.items });
    if (m.viewId === this.currentView.id) this.takeExpat(m.from, m.items);
  }

  private takeExpat(from: string, items: IdVersion[]): void {
    this.expatFrom.add(from);
    // kept even for ids active here: a suspect copy reloaded from disk may be dropped by the repair later, and then
    // only the expat entry says the artifact lives elsewhere
    for (const [id, v] of items) if ((this.expat.get(id) ?? -1) < v) this.expat.set(id, v);
  }

  // ---------------------------------------------------------------- repair after reload (2.22.1)

  private hasSuspects(): boolean {
    for (const e of this.active.values()) if (e.suspect) return true;
    for (const e of this.replica.values()) if (e.suspect) return true;
    return false;
  }

  /**
   * 2.22.1.1: an active copy reloaded from disk stays only if the buddy still holds our replica of it (else it was
   * reactivated elsewhere or removed meanwhile). 2.22.1.2: a replica stays only if the source still has it active;
   * newer or missing ones are pulled from the source.
   */
  async repairFromPartners(): Promise<void> {
    this.repairs++;
    try {
      const b = buddyOf(this.currentView, this.name);
      const confirmed: Artifact[] = [];
      if (b) {
        // asked again if it does not come: without it the reloaded copies cannot be told from deleted ones
        let list: IdVersion[] | undefined;
        for (let i = 0; i < 3 && !list && !this.stopped; i++) list = await this.versionList(b, 'replicas-of-mine');
        if (list) {
          const have = new Map(list);
          const check: string[] = [];
          const dropped: string[] = [];
          for (const e of [...this.active.values()]) {
            if (!e.suspect) continue;
            // any replica of ours still on the buddy means nobody took the artifact (a reactivation or a delete loads
            // every copy away): it is settled by a load. Not only at the saved version: a save whose replication was
            // not yet acknowledged (a stalled buddy) holds a newer version than the replica, and the newer one wins.
            if (have.has(e.a.id)) check.push(e.a.id);
            else {
              this.dropActive(e.a.id);
              dropped.push(`${e.a.id}@${e.a.version}`);
            }
          }
          this.reloadUnsorted = false;
          this.log?.info({ kept: check.length, dropped: dropped.length, ids: dropped.slice(0, 20) }, 'reloaded active copies the buddy holds no replica of were dropped');
          // what the buddy still holds is settled by a load request per artifact, as an access to a suspect copy
          // would (2.22.1.1): the highest version anywhere wins and every other copy goes, so a stale duplicate
          // that the buddy's list happens to match cannot come back as the active copy
          for (let round = 0; round < 5 && check.length && !this.stopped; round++) {
            if (round) await new Promise<void>((r) => this.after(this.o.loadTimeoutMs, r));
            let next = 0;
            await Promise.all(
              Array.from({ length: 16 }, async () => {
                while (next < check.length && !this.stopped) {
                  const id = check[next++] as string;
                  try {
                    await this.withIdLock(id, () => this.find(id, 'get'));
                  } catch {
                    /* busy or unavailable: tried again next round (and any access loads it meanwhile) */
                  }
                }
              }),
            );
            check.splice(0, check.length, ...check.filter((id) => this.active.get(id)?.suspect));
          }
        }
      } else {
        for (const e of this.active.values()) {
          if (!e.suspect) continue;
          e.suspect = false;
          confirmed.push(e.a);
          this.armActive(e);
        }
      }
      // no buddy, or no list from it: the copies stay suspect and every access settles its id by a load
      this.reloadUnsorted = false;
      for (let i = 0; i < confirmed.length; i += this.o.repairBatch) await this.replicate(confirmed.slice(i, i + this.o.repairBatch), true);
      const s = sourceOf(this.currentView, this.name);
      if (s) {
        const list = await this.versionList(s, 'actives');
        if (list) {
          const theirs = new Map(list);
          const pull: string[] = [];
          for (const e of [...this.replica.values()]) {
            if (!e.suspect) continue;
            const v = theirs.get(e.a.id);
            if (v === undefined || nameOfKey(e.a.owner) !== s.name) this.dropReplica(e.a.id);
            else {
              e.suspect = false;
              e.a.owner = memberKey(s);
              if (v > e.a.version) pull.push(e.a.id);
              this.armReplica(e);
            }
          }
          for (const id of theirs.keys()) if (!this.replica.has(id)) pull.push(id);
          if (pull.length) this.sendTo(memberKey(s), { t: 'pull', from: this.key, to: memberKey(s), ids: pull });
        }
      } else {
        for (const e of [...this.replica.values()]) if (e.suspect) this.dropReplica(e.a.id);
      }
      this.sendExpatLists();
      this.log?.info({ active: this.active.size, replica: this.replica.size }, 'repair from partners done');
    } finally {
      this.repairs--;
    }
  }

  /**
   * This instance was declared failed by another and is back without a restart (2.9, 2.10 in the small: a stall
   * longer than the failure time, or a short network split). Its artifacts may have been reactivated elsewhere while
   * it was out of the view, so its active copies are treated as if reloaded from disk (2.22.1.1): dropped unless the
   * buddy still holds a replica of them, else settled by a load, the highest version anywhere winning.
   */
  private onRejoined(m: Extract<SsrMessage, { t: 'rejoined' }>): void {
    if (this.resettling || !this.readyFlag || this.quiescing) return;
    this.log?.warn({ by: nameOfKey(m.from) }, 'declared failed while alive: active copies settled again with the partners');
    this.resettling = true;
    for (const e of this.active.values()) {
      if (e.transfer) continue;
      if (e.timer) this.clock.clearTimeout(e.timer);
      delete e.timer;
      e.suspect = true;
    }
    this.reloadUnsorted = true;
    void this.repairFromPartners().finally(() => {
      this.resettling = false;
    });
  }

  private async versionList(m: Member, kind: 'replicas-of-mine' | 'actives'): Promise<IdVersion[] | undefined> {
    const req = `vl.${this.name}.${++this.reqSeq}`;
    const r = await this.rpc(memberKey(m), req, { t: 'vlist', from: this.key, to: memberKey(m), req, kind }, 5000);
    if (r?.t !== 'vlistr') {
      this.log?.warn({ partner: m.name, kind }, 'no version list from partner; entries stay suspect');
      return undefined;
    }
    return r.items;
  }

  private onVersionList(m: Extract<SsrMessage, { t: 'vlist' }>): void {
    const items: IdVersion[] = [];
    if (m.kind === 'actives') {
      for (const e of this.active.values()) if (!e.suspect) items.push([e.a.id, e.a.version]);
    } else {
      // an artifact active here is not the asker's any more, whatever replica of it is still around
      const name = nameOfKey(m.from);
      for (const e of this.replica.values()) if (!e.suspect && nameOfKey(e.a.owner) === name && !this.active.has(e.a.id)) items.push([e.a.id, e.a.version]);
    }
    this.reply(m.from, { t: 'vlistr', from: this.key, to: m.from, req: m.req, items });
  }

  // ---------------------------------------------------------------- membership events

  private handleEvents(events: MembershipEvent[]): void {
    for (const ev of events) {
      if (ev.type === 'suspect') {
        this.log?.warn({ member: ev.member.name }, 'member suspected (temporary failure)');
        const k = memberKey(ev.member);
        for (const p of this.loads.values()) {
          if (!p.awaited.delete(k)) continue;
          p.missing = true;
          if (p.awaited.size === 0) p.finish();
        }
        continue;
      }
      if (ev.type === 'unsuspect') continue;
      this.onView(ev);
    }
  }

  private onView(ev: Extract<MembershipEvent, { type: 'view' }>): void {
    const now = this.clock.now();
    this.lastViewAt = now;
    this.currentView = ev.view;
    this.router = new ConsistentHashRouter(ev.view.members.map((m) => m.name));
    this.expat = new Map();
    this.expatFrom = new Set();
    for (const { from, items } of this.expatInbox.get(ev.view.id) ?? []) this.takeExpat(from, items);
    this.log?.info({ view: this.describeView(), joined: ev.joined.map((m) => m.name), failed: ev.failed.map((m) => m.name), left: ev.left.map((m) => m.name) }, 'reshape');
    const gone = [...ev.failed, ...ev.left].map(memberKey);
    for (const k of gone) this.ownerGoneAt.set(k, now);
    for (const k of gone) for (const p of this.loads.values()) if (p.awaited.delete(k) && p.awaited.size === 0) p.finish();
    if (gone.length) {
      const set = new Set(gone);
      for (const e of this.replica.values()) if (set.has(e.a.owner)) this.armReplica(e);
    }
    // every other member failed at once: most likely this instance stalled (its timers ran before the heartbeats
    // waiting for it), so it is the one the others declared failed, not the reverse
    if (ev.failed.length && ev.view.members.length === 1) this.aloneAt = now;
    for (const m of ev.joined) {
      // the same incarnation back after this instance declared it failed: it was alive all along (stalled, or cut
      // off), and what this side reactivated of it meanwhile may now exist twice; it settles its copies
      if (this.ownerGoneAt.has(memberKey(m)) && now - this.aloneAt > this.o.failAfterMs) this.sendTo(memberKey(m), { t: 'rejoined', from: this.key, to: memberKey(m) });
      this.ownerGoneAt.delete(memberKey(m));
    }
    const nb = buddyOf(ev.view, this.name);
    const old = this.buddy;
    if ((nb && memberKey(nb)) !== (old && memberKey(old))) {
      this.buddy = nb;
      this.acked = this.seqOut;
      this.unacked = [];
      for (const w of this.ackWaiters.splice(0)) {
        this.clock.clearTimeout(w.timer);
        w.resolve(false);
      }
      if (nb && this.o.repairUnderLoad && this.o.replication && this.readyFlag) void this.repairTo(nb, old);
      else if (old) this.sendPurge(old);
    }
    this.sendExpatLists();
  }

  // ---------------------------------------------------------------- plumbing

  private onMessage(m: SsrMessage): void {
    if (this.stopped) return;
    if (m.t === 'hb') {
      this.handleEvents(this.membership.heard(m.from, m.state, this.clock.now()));
      return;
    }
    if (m.from === this.key) return;
    if (m.t !== 'load' && m.to !== this.key) return; // for an earlier incarnation of this instance
    switch (m.t) {
      case 'rep':
        return this.onReplicate(m);
      case 'rm':
        return this.onRemove(m);
      case 'slot':
        return this.onSlot(m);
      case 'ack':
        return this.onAck(m);
      case 'load':
        return this.onLoad(m);
      case 'loadr':
        return this.onLoadReply(m);
      case 'commit':
        return this.onCommit(m);
      case 'expat':
        return this.onExpat(m);
      case 'adv':
        void this.handleAdvisory(m.id, m.version).then((outcome) => this.reply(m.from, { t: 'advr', from: this.key, to: m.from, req: m.req, outcome }));
        return;
      case 'purge':
        return this.onPurge(m);
      case 'vlist':
        return this.onVersionList(m);
      case 'pull':
        return this.onPull(m);
      case 'rejoined':
        return this.onRejoined(m);
      case 'advr':
      case 'vlistr':
        this.rpcs.get(m.req)?.(m);
        return;
    }
  }

  private rpc(to: string, req: string, m: SsrMessage, timeoutMs: number): Promise<SsrMessage | undefined> {
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

  private sendTo(key: string, m: SsrMessage): void {
    this.o.transport.send(nameOfKey(key), m);
  }
  private reply(key: string, m: SsrMessage): void {
    this.sendTo(key, m);
  }

  /**
   * A finished load is remembered as long as a responder may still hold a copy in transfer for it, so that a late
   * 'found' is committed (removed) or given back rather than left to come back on its own as a second copy.
   */
  private forgetLoadLater(req: string): void {
    this.after(this.o.transferTimeoutMs + this.o.loadTimeoutMs, () => this.doneLoads.delete(req));
  }

  private isArriving(id: string): boolean {
    const since = this.arriving.get(id);
    if (since === undefined) return false;
    if (this.clock.now() - since < this.o.transferTimeoutMs) return true;
    this.arriving.delete(id);
    return false;
  }

  /** An instance never holds a replica of what it holds active: the replica belongs on another instance. */
  private dropOwnReplica(id: string): void {
    const r = this.replica.get(id);
    if (r && !r.transfer) this.dropReplica(id);
  }

  private isMember(key: string): boolean {
    return this.currentView.members.some((m) => memberKey(m) === key);
  }

  private dropActive(id: string): void {
    const e = this.active.delete(id);
    if (e?.timer) this.clock.clearTimeout(e.timer);
  }
  private dropReplica(id: string): void {
    const e = this.replica.delete(id);
    if (e?.timer) this.clock.clearTimeout(e.timer);
  }

  private heartbeat(): void {
    this.o.transport.broadcast({ t: 'hb', from: this.self, state: 'up' });
  }

  private every(ms: number, fn: () => void): void {
    const loop = (): void => {
      if (this.stopped) return;
      fn();
      this.timers.push(this.clock.setTimeout(loop, ms));
      if (this.timers.length > 64) this.timers.splice(0, 32);
    };
    this.timers.push(this.clock.setTimeout(loop, ms));
  }
  private after(ms: number, fn: () => void): void {
    this.timers.push(this.clock.setTimeout(() => !this.stopped && fn(), ms));
  }

  /** Serializes the operations on one artifact in this instance; while one runs, load requests for it answer busy. */
  private async withIdLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
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

  private describeView(): string {
    return this.currentView.members.map((m) => m.name).join(' → ');
  }
}
