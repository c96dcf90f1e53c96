import type { Artifact } from './artifact';
import type { ActiveEntry, ArtifactCache, ReplicaEntry } from './caches';
import type { Member, View } from './membership';
import { dispatch } from './node/dispatch';
import { nodeParts, type NodeParts } from './node/node-parts';
import { NodeState } from './node/node-state';
import type { CensusEntry, PutOptions, SsrNodeOptions } from './node/options';
import { homeHashFor } from './node/placement';
import { hasSuspects } from './node/repair-rules';
import { waitsForAck } from './node/replication-rules';
import { createdArtifact, touchSlots, updatedArtifact } from './node/versions';
import type { SsrSnapshot } from './snapshot';

export type { CensusEntry, PutOptions, SsrNodeOptions } from './node/options';

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
 *
 * This class is the public face; the state is one NodeState and the work is done by the parts in node/ (the rules
 * of each concept are pure functions there, in the *-rules.ts files and expat-list.ts).
 */
export class SsrNode {
  readonly name: string;
  readonly self: Member;
  readonly key: string;
  readonly active: ArtifactCache<ActiveEntry>;
  readonly replica: ArtifactCache<ReplicaEntry>;
  readonly loadLatencies: number[];
  readonly counters: NodeState['counters'];
  private readonly s: NodeState;
  private readonly n: NodeParts;

  constructor(opts: SsrNodeOptions) {
    const s = new NodeState(opts);
    this.s = s;
    this.n = nodeParts(s);
    this.name = s.name;
    this.self = s.self;
    this.key = s.key;
    this.active = s.active;
    this.replica = s.replica;
    this.loadLatencies = s.loadLatencies;
    this.counters = s.counters;
  }

  // ---------------------------------------------------------------- lifecycle

  async start(): Promise<void> {
    const { s, n } = this;
    if (s.started) return;
    s.started = true;
    await s.o.transport.start(s.name, (m) => dispatch(n, m));
    this.heartbeat();
    s.every(s.o.heartbeatMs, () => {
      this.heartbeat();
      n.views.handle(s.membership.tick(s.clock.now()));
      n.answers.sweepTransfers();
      n.replication.resendUnacked();
    });
    s.after(s.o.joinSettleMs, () => {
      s.ready = true;
      s.log?.info({ view: s.describeView() }, 'ssr instance ready');
      n.expat.send();
      for (const e of s.active.values()) if (!e.suspect) n.timers.armActive(e);
      if (hasSuspects(s.active, s.replica)) void n.repair.fromPartners();
    });
  }

  get ready(): boolean {
    return this.s.ready && !this.s.stopped;
  }
  get view(): View {
    return this.s.view;
  }
  get isQuiescing(): boolean {
    return this.s.quiescing;
  }
  get buddyName(): string | undefined {
    return this.s.buddy?.name;
  }
  /** Number of repairs under way (repair-under-load, disk repair). */
  get repairing(): number {
    return this.s.repairs;
  }

  /** Our bus is down: nobody leaves the view for a silence that is ours (Membership.hold); `releaseMembership` after. */
  holdMembership(): void {
    this.s.membership.hold();
  }

  releaseMembership(): void {
    this.s.membership.release(this.s.clock.now());
  }

  homeOf(homeHash: number): string | undefined {
    return this.s.router.home(homeHash);
  }

  /** The home hash of a new artifact: children live with their parent. */
  homeHashFor(id: string, opts: PutOptions = {}): number {
    return homeHashFor(id, opts, opts.parentId !== undefined ? this.s.active.get(opts.parentId)?.a.homeHash : undefined);
  }

  /** 2.16 quiescence: stop taking operations, let those under way finish, flush replication to the buddy. */
  async quiesce(): Promise<void> {
    this.s.quiescing = true;
    while (this.s.idLocks.size > 0) await Promise.all([...this.s.idLocks.values()]);
    await this.flushReplication();
    await this.n.repair.confirmReplicas();
  }

  /** 2.15 planned shutdown: announce the departure (the others reshape at once) and stop. */
  async leave(): Promise<void> {
    if (this.s.stopped) return;
    this.s.o.transport.broadcast({ t: 'hb', from: this.s.self, state: 'leaving' });
    await this.s.o.transport.flush();
    await this.stop();
  }

  /** Stops timers and the transport without a goodbye (what a crash looks like to the others). */
  async stop(): Promise<void> {
    const s = this.s;
    if (s.stopped) return;
    s.stopped = true;
    for (const t of s.timers) s.clock.clearTimeout(t);
    for (const e of s.active.values()) if (e.timer) s.clock.clearTimeout(e.timer);
    for (const e of s.replica.values()) if (e.timer) s.clock.clearTimeout(e.timer);
    this.n.replication.abandonWaiters();
    await s.o.transport.close();
  }

  /** The caches as they are, for disk save (2.22.1 "Save and Reload"). */
  snapshot(): SsrSnapshot {
    const s = this.s;
    return { name: s.name, savedAt: s.clock.now(), actives: [...s.active.values()].map((e) => e.a), replicas: [...s.replica.values()].map((e) => e.a) };
  }

  census(): CensusEntry[] {
    const out: CensusEntry[] = [];
    for (const e of this.s.active.values()) out.push({ id: e.a.id, version: e.a.version, owner: e.a.owner, where: 'active', suspect: e.suspect });
    for (const e of this.s.replica.values()) out.push({ id: e.a.id, version: e.a.version, owner: e.a.owner, where: 'replica', suspect: e.suspect });
    return out;
  }

  stats(): Record<string, number | string | boolean> {
    const s = this.s;
    let armed = 0;
    for (const e of s.replica.values()) if (e.timer) armed++;
    return {
      name: s.name,
      ready: this.ready,
      members: s.view.members.length,
      view: s.view.id,
      active: s.active.size,
      replica: s.replica.size,
      armedReplicas: armed,
      repairing: s.repairs,
      expatReady: s.expatReady(),
      unacked: s.seqOut - s.acked,
      loadP50: percentile(s.loadLatencies, 0.5),
      loadP99: percentile(s.loadLatencies, 0.99),
      ...s.counters,
    };
  }

  // ---------------------------------------------------------------- operations

  /** Reads an artifact: active cache, else a load request (lazy reactivation, migration). undefined if none exists. */
  async get(id: string): Promise<Artifact | undefined> {
    return this.s.withIdLock(id, async () => {
      const e = await this.n.loads.find(id, 'get');
      if (!e) return undefined;
      e.a.lastAccess = this.s.clock.now();
      return e.a;
    });
  }

  /** Creates or replaces an artifact here (find vs create, 2.13) and replicates it to the buddy. */
  async put(id: string, body: Uint8Array, opts: PutOptions = {}): Promise<Artifact> {
    const { s, n } = this;
    return s.withIdLock(id, async () => {
      const e = await n.loads.find(id, 'create');
      const now = s.clock.now();
      const a = e
        ? updatedArtifact(e.a, body, opts, s.key, now)
        : createdArtifact(id, body, opts, { owner: s.key, now, homeHash: this.homeHashFor(id, opts), parent: opts.parentId !== undefined ? s.active.get(opts.parentId)?.a : undefined });
      const entry: ActiveEntry = { a, suspect: false };
      if (e?.timer) s.clock.clearTimeout(e.timer);
      s.active.set(entry);
      s.dropOwnReplica(id);
      s.expat.forget(id);
      n.timers.armActive(entry);
      await n.replication.replicate([a], waitsForAck('put', s.o.waitForAck));
      return a;
    });
  }

  /**
   * The children of `parentId` active here (confirmed copies, in no order). When the parent was just activated here
   * (a reactivation or migration), its children are being loaded along with it (tree activation, 2.4.2.5): this
   * waits for that load first, so a caller that has just got the parent sees its whole tree.
   */
  async children(parentId: string): Promise<Artifact[]> {
    await this.s.childLoads.get(parentId);
    return this.s.active
      .children(parentId)
      .filter((e) => !e.suspect && !e.transfer)
      .map((e) => e.a);
  }

  /** Removes an artifact everywhere it is known: active here, its replica on the buddy. false if it did not exist. */
  async remove(id: string): Promise<boolean> {
    return this.s.withIdLock(id, async () => {
      const e = await this.n.loads.find(id, 'get');
      if (!e) return false;
      this.s.dropActive(id);
      await this.n.replication.sendRemove([id], waitsForAck('remove', this.s.o.waitForAck));
      return true;
    });
  }

  /** Updates the externalized slots only (2.4.2.2): no new version, no body on the wire. */
  async touch(id: string, nextFire?: number | null): Promise<boolean> {
    return this.s.withIdLock(id, async () => {
      const e = await this.n.loads.find(id, 'get');
      if (!e) return false;
      touchSlots(e.a, this.s.clock.now(), nextFire);
      this.n.timers.armActive(e);
      await this.n.replication.sendSlots(e.a, waitsForAck('touch', this.s.o.waitForAck));
      return true;
    });
  }

  /** Resolves once the buddy acknowledged everything sent so far (or after ackTimeoutMs). */
  flushReplication(): Promise<boolean> {
    return this.n.replication.flush();
  }

  /** 2.22.1 repair from the partners (run on start when the caches were reloaded from disk). */
  repairFromPartners(): Promise<void> {
    return this.n.repair.fromPartners();
  }

  private heartbeat(): void {
    this.s.o.transport.broadcast({ t: 'hb', from: this.s.self, state: 'up' });
  }
}
