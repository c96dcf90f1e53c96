import { OperationSet, OperationState, OperationStatusInfo, SubsystemIdSet, type GuaranteeSet } from '@esp/codecs';
import {
  AlreadyBound,
  coreSessionFactoryInterface,
  coreSessionInterface,
  DISPATCHER_NAME,
  dispatcherNodeInterface,
  dispatcherNodeName,
  INDEXING_DISPATCHER_NAME,
  INTERNAL_PORT_OFFSET,
  EXTERNAL_SESSION_PORT_OFFSET,
  masterDispatcherInterface,
  operationCallbackInterface,
  processingSessionInterface,
  processorServerInterface,
  procserverHandlerInterface,
  ProcessorsBusy,
  sessionFactoryInterface,
  ShuttingDown,
  SystemResourceError,
  UnknownCollection,
  UnknownSession,
  ASSIGN_DISPATCHER_NONE_AVAILABLE,
  ResolveException,
  sameObject,
  type Aor,
  type Implementation,
  type InterfaceDef,
  type ProxyOf,
} from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { BadParameter, CallTimeout, ObjectNotExist, ServerBusy, type Middleware, type ServerObject, type SystemException } from '@esp/middleware';
import { decodeFrames, HEARTBEAT_INTERVAL_MS, HEARTBEAT_LIVENESS, livenessSubject, parsePppMessage, PppFrameError } from '@esp/ppp';
import { NatsSsrTransport, SsrNode, type Artifact } from '@esp/ssr';
import { backoffDelay, Lease, retry, sleep, systemClock, type Clock } from '@esp/timers';
import { CallbackSender } from './callback-sender';
import { fixedCollections, type CollectionHolder } from './collection-holder';
import { Election, type ElectionAction, type ElectionEvent, type ElectionRole } from './election';
import { ProcessorLiveness } from './liveness';
import { lostOperationSets } from './lost-operations';
import { docIdOf } from './operation-ids';
import { ProcessorPool, type InFlightOperation, type ProcessorEntry } from './processor-pool';
import { batchesToRedispatch, decodeBatch, decodeSessionArtifact, encodeBatch, type InFlightBatch, type SessionArtifact } from './session-artifact';
import { SessionStore } from './session-store';

export interface ContentDistributorOptions {
  mw: Middleware;
  log: Logger;
  /** This distributor's node id: its dispatcher_node and procserver_handler live at .../dispatcher/<nodeId>. */
  nodeId: number;
  basePort: number;
  /** The collections create_session accepts, when there is no collectionHolder. */
  collections: string[];
  /** The collection holder (ConfigServiceCollections: the config server's); default: the fixed `collections`. */
  collectionHolder?: CollectionHolder;
  /** Lease Timeout (MS-FSDPD 3.5.2), default 300 s. */
  leaseMs?: number;
  clock?: Clock;
  /** Heartbeat interval of the item processors, PPP (default 1000 ms). */
  heartbeatMs?: number;
  /** Silent heartbeat intervals before an item processor is declared dead (default 3). */
  liveness?: number;
  /**
   * Called on a Lease Timeout, after the lost operations went to the indexer, and when PPP liveness declares a
   * processor dead: the node-controller restart hook.
   */
  onLeaseExpired?: (p: { name: string; pid: number; host: string }) => void | Promise<void>;
  /** Check-for-master timer of a backup: __ping of the master every interval (MS-FSCDFT 3.4.2, default 5000 ms). */
  pingIntervalMs?: number;
  /** Check-master-status timer of the master (MS-FSCDFT 3.3.2, default 5000 ms). */
  checkMasterMs?: number;
  /** Deadline of one __ping of the master (default: the ping interval, at least 250 ms). */
  pingTimeoutMs?: number;
  /**
   * Feeding sessions in session replication (docs/architecture/session-replication.md): every distributor runs an SSR
   * instance in ack mode and acknowledges a batch only once the session artifact holding it is on the buddy.
   * Undefined: off (a session lives and dies with its distributor; the client resends what has no final status).
   */
  sessionReplication?: SessionReplicationOptions;
}

export interface SessionReplicationOptions {
  /** SSR cluster name (default "feeding"): the distributors of one system. */
  cluster?: string;
  /** SSR heartbeat (default 200 ms); a silent distributor is failed after failAfterMs (default 1500 ms). */
  heartbeatMs?: number;
  failAfterMs?: number;
  /** Replica timer of a session with batches in flight (default 10 s): reactivation without a client call. */
  inFlightTimerMs?: number;
  /** How long batches of a reactivated session wait for a free item processor before they are reported lost (60 s). */
  redispatchDeadlineMs?: number;
}

interface FeedingSession {
  id: number;
  collection: string;
  callbacks: CallbackSender | undefined;
  coreSession: Aor;
  object: ServerObject<typeof processingSessionInterface>;
  lastAcceptedOpId: number;
  completedOpId: number;
  /** The client's operation_callback as given at creation (kept in the session artifact). */
  callback: Aor | undefined;
  /** With session replication: batches accepted and not yet reported processed, by first operation id. */
  inFlight: Map<number, InFlightBatch>;
  /** A save nobody waits for, deferred so that the next acknowledged save (the next batch) carries it. */
  lazySave?: ReturnType<typeof setTimeout> | undefined;
}

/** How long a save nobody waits for may wait for the next acknowledged one to carry it. */
const LAZY_SAVE_MS = 200;

/** get_load of a node without a live item processor: the highest long, so no session is placed there while another can feed. */
const NO_PROCESSORS_LOAD = 2 ** 31 - 1;

const INDEXING_ONLY = () => new SubsystemIdSet({ ids: ['indexing'] });

/** The batch of a processor declared dead, waiting for another processor. */
interface OrphanBatch {
  from: string;
  sessionId: number;
  batch: OperationSet | undefined;
  ops: InFlightOperation[];
}

/**
 * A content distributor (MS-FSDPD 3.3 and 3.5 server side, MS-FSCDFT 3): master_dispatcher, procserver_handler,
 * session_factory and dispatcher_node; feeding sessions; dispatch of batches to free item processors; Lease Timeout
 * with lost operations reported through the indexer. Several run; the election (./election) makes one master, the
 * others backups that __ping it and take over when it stops answering. session_factory and master_dispatcher are
 * activated on every node but answer only while the election admits this node as master.
 */
export class ContentDistributor {
  private readonly pool: ProcessorPool;
  private readonly leases = new Map<string, Lease>();
  private readonly sessions = new Map<number, FeedingSession>();
  /** master_dispatcher: item processing component identifier holder. */
  private readonly procserverNames = new Set<string>();
  /** master_dispatcher: dispatcher holder (node id → dispatcher_node proxy; the local node is served directly). */
  private readonly dispatcherNodes = new Map<number, ProxyOf<typeof dispatcherNodeInterface>>();
  private readonly sessionHomes = new Map<number, number>();
  private readonly objects: ServerObject<InterfaceDef>[] = [];
  private readonly bindings: { name: string; type: string; revision: number }[] = [];
  private readonly coreSessionProxies = new Map<string, ProxyOf<typeof coreSessionInterface>>();
  private callbackSink: Aor | undefined;
  private shuttingDown = false;
  private batchesSinceStart = 0;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly mw: Middleware;
  private readonly collections: CollectionHolder;
  private readonly liveness: ProcessorLiveness;
  /** Batches of processors declared dead, oldest first (at most one per processor). */
  private readonly orphans: OrphanBatch[] = [];
  private draining: Promise<void> | undefined;
  private drainAgain = false;
  /** name:pid of processors handed to the restart hook (once per process). */
  private readonly restartRequested = new Set<string>();
  private unsubscribeLiveness: (() => Promise<void>) | undefined;
  /** PPP messages on the liveness subject that were not READY / HEARTBEAT of a processor. */
  malformedLiveness = 0;
  private readonly election: Election;
  private sfObject: ServerObject<typeof sessionFactoryInterface> | undefined;
  private mdObject: ServerObject<typeof masterDispatcherInterface> | undefined;
  /** Our master bindings (session_factory, master_dispatcher) while master: what stop() removes. */
  private masterBindings: { type: string; revision: number }[] = [];
  /** AORs of the session_factory bindings the election saw, by revision (the machine only knows revisions). */
  private readonly seen = new Map<number, Aor>();
  private firstRole: ((role: ElectionRole) => void) | undefined;
  /** session_factory is bound to us by a claim that has not finished yet. */
  private claimBound = false;
  private claimActsAtOnce = false;
  /** Feeding sessions in SSR; undefined when session replication is off. */
  private store: SessionStore | undefined;
  /** Session opens (create / recreate / reactivation) under way, by id: one at a time per session. */
  private readonly opening = new Map<number, Promise<Aor>>();
  /** Sessions reactivated here from their SSR artifact, and the batches they sent to item processors again. */
  private readonly ssrCounters = { reactivated: 0, redispatchedBatches: 0, redispatchedOps: 0, redispatchLost: 0 };
  /** Batches of reactivated sessions waiting for a processor: they go before new batches, as orphans do. */
  private redispatchWaiting = 0;

  private constructor(private readonly opts: ContentDistributorOptions) {
    this.mw = opts.mw;
    this.log = opts.log;
    this.clock = opts.clock ?? systemClock;
    this.pool = new ProcessorPool(opts.leaseMs ?? 300_000);
    this.collections = opts.collectionHolder ?? fixedCollections(opts.collections);
    this.liveness = new ProcessorLiveness({
      intervalMs: opts.heartbeatMs ?? HEARTBEAT_INTERVAL_MS,
      liveness: opts.liveness ?? HEARTBEAT_LIVENESS,
      clock: this.clock,
      onDead: (name) => void this.onDeclaredDead(name),
    });
    this.election = new Election({
      clock: this.clock,
      pingIntervalMs: opts.pingIntervalMs ?? 5000,
      checkMasterMs: opts.checkMasterMs ?? 5000,
      perform: (a) => void this.perform(a).then((ev) => this.election.handle(ev)),
      onRole: (role, why) => this.onRole(role, why),
    });
  }

  get role(): ElectionRole {
    return this.election.role;
  }

  static async start(opts: ContentDistributorOptions): Promise<ContentDistributor> {
    const cd = new ContentDistributor(opts);
    await cd.activateAndBind();
    return cd;
  }

  get port(): number {
    return this.opts.basePort + INTERNAL_PORT_OFFSET;
  }

  // ---- startup: MS-FSCDFT 3.3.3 order (session_factory, then master_dispatcher), then the node objects ----

  private async activate<I extends InterfaceDef>(iface: I, impl: Implementation<I>, objectId: string, name: string, port = this.port): Promise<ServerObject<I>> {
    const obj = await this.mw.activate(iface, impl, { object_id: objectId, port, name });
    this.objects.push(obj as unknown as ServerObject<InterfaceDef>);
    return obj;
  }

  /** Binds; a stale binding of a dead object (a previous run killed with -9) is taken over, a live one is not. */
  private async bindOrTakeOver(name: string, iface: InterfaceDef, aor: Aor): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const { revision } = await this.mw.names.bind(name, aor);
        this.bindings.push({ name, type: aor.interface_type, revision });
        return;
      } catch (err) {
        if (!(err instanceof AlreadyBound)) throw err;
        const held = await this.mw.names.resolve(name, aor.interface_type, aor.interface_version).catch(() => undefined);
        if (!held) continue;
        const alive = await this.mw
          .proxy(iface, held.aor, { timeoutMs: 2000 })
          .__ping()
          .then(() => true)
          .catch((e: unknown) => !(e instanceof ObjectNotExist || e instanceof CallTimeout));
        if (alive) throw new AlreadyBound(`${name} (${aor.interface_type}) is held by a live object at ${held.aor.host}:${held.aor.port}; is another distributor running with the same role or node id?`);
        this.log.warn({ name, interface: aor.interface_type, stale: held.aor }, 'taking over a binding whose object is gone');
        await this.mw.names.unbind(name, aor.interface_type, held.revision);
      }
    }
    throw new AlreadyBound(`${name} (${aor.interface_type}): could not bind`);
  }

  private async activateAndBind(): Promise<void> {
    const nodeName = dispatcherNodeName(this.opts.nodeId);
    // An AOR is (host, port, object id). Over TCP two processes could not share a port; on NATS nothing stops them,
    // so refuse to start when our own address already answers (same host, base port and node id).
    const twin = this.mw.proxy(
      dispatcherNodeInterface,
      { name: nodeName, object_id: `dispatcher_node_${this.opts.nodeId}`, host: this.mw.host, port: this.port, interface_type: dispatcherNodeInterface.type, interface_version: dispatcherNodeInterface.version },
      { timeoutMs: 2000 },
    );
    if (await twin.__ping().then(() => true, () => false)) {
      throw new AlreadyBound(`another content distributor already serves node id ${this.opts.nodeId} on ${this.mw.host}, base port ${this.opts.basePort}; give this one another --node-id or --base-port`);
    }
    this.unsubscribeLiveness = await this.mw.bus.subscribe(livenessSubject(this.opts.nodeId), (m) => this.onLivenessMessage(m.data));
    if (this.opts.sessionReplication) await this.startSessionReplication(this.opts.sessionReplication);
    // answer only while the election admits us as master (a stale master answers object_not_exist at once)
    // (between our bind of session_factory and the end of the claim a backup that resolves us gets server_busy, not
    // object_not_exist, or it would unbind the binding we just made)
    const refuse = (): SystemException | undefined => {
      if (this.election.admits()) return undefined;
      // session_factory is ours and the master we replace was gone: serve at once, before master_dispatcher is
      // rebound and we have registered with ourselves (what a client needs first is a session)
      if (this.claimBound && this.claimActsAtOnce) return undefined;
      // alive and (about to be) master, not acting yet: backups must not take this for a dead master
      if (this.claimBound || this.election.role === 'master') return new ServerBusy('this content distributor is checking that it is still master; retry shortly');
      return new ObjectNotExist(`content distributor ${this.opts.nodeId} is not master`);
    };
    this.sfObject = await this.mw.activate(sessionFactoryInterface, this.sessionFactoryImpl(), { object_id: `session_factory_${this.opts.nodeId}`, port: this.port, name: DISPATCHER_NAME, refuse });
    this.mdObject = await this.mw.activate(masterDispatcherInterface, this.masterDispatcherImpl(), { object_id: `master_dispatcher_${this.opts.nodeId}`, port: this.port, name: DISPATCHER_NAME, refuse });
    this.objects.push(this.sfObject as unknown as ServerObject<InterfaceDef>, this.mdObject as unknown as ServerObject<InterfaceDef>);
    const dn = await this.activate(dispatcherNodeInterface, this.dispatcherNodeImpl(), `dispatcher_node_${this.opts.nodeId}`, nodeName);
    const ph = await this.activate(procserverHandlerInterface, this.procserverHandlerImpl(), `procserver_handler_${this.opts.nodeId}`, nodeName);
    this.callbackSink = (await this.activate(operationCallbackInterface, { callback: () => undefined, callbacks: () => undefined }, `callback_sink_${this.opts.nodeId}`, '')).aor;
    // the node's own objects first (3.5.3): whoever becomes master resolves them at register_dispatcher
    await this.bindOrTakeOver(nodeName, dispatcherNodeInterface, dn.aor);
    await this.bindOrTakeOver(nodeName, procserverHandlerInterface, ph.aor);
    const decided = new Promise<ElectionRole>((resolve) => (this.firstRole = resolve));
    this.election.start();
    const role = await decided;
    this.log.info({ node: this.opts.nodeId, port: this.port, role, collections: this.collections.names() }, `content distributor started as ${role}`);
  }

  // ---- the election's actions on the bus (MS-FSCDFT 3.3.5, 3.4.3-3.4.5) ----

  private onRole(role: ElectionRole, why: string): void {
    if (role === 'master') {
      this.log.info({ node: this.opts.nodeId, role, why, takeovers: this.election.takeovers }, 'content distributor is master');
    } else if (role === 'backup') {
      this.masterBindings = [];
      this.log.info({ node: this.opts.nodeId, role, why, master: this.seen.get(this.election.watched?.revision ?? -1) }, 'content distributor is backup');
    } else {
      this.log.info({ node: this.opts.nodeId, role, why }, `election: ${role}`);
    }
    if ((role === 'master' || role === 'backup') && this.firstRole) {
      this.firstRole(role);
      this.firstRole = undefined;
    }
  }

  private get electionDeadlineMs(): number {
    return Math.max(2000, 2 * (this.opts.pingIntervalMs ?? 5000));
  }

  private async perform(a: ElectionAction): Promise<ElectionEvent> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<ElectionEvent>((resolve) => {
      timer = setTimeout(() => resolve(failed(a, `no answer within ${this.electionDeadlineMs} ms`)), this.electionDeadlineMs);
      timer.unref?.();
    });
    try {
      return await Promise.race([this.performNow(a).catch((err: unknown) => failed(a, (err as Error).message)), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async performNow(a: ElectionAction): Promise<ElectionEvent> {
    const sfAor = this.sfObject?.aor;
    if (!sfAor) return failed(a, 'not started');
    switch (a.kind) {
      case 'resolve':
      case 'check-own': {
        try {
          const b = await this.mw.names.resolve(DISPATCHER_NAME, sessionFactoryInterface.type, sessionFactoryInterface.version);
          this.seen.set(b.revision, b.aor);
          if (this.seen.size > 64) this.seen.delete(this.seen.keys().next().value as number);
          return { kind: 'resolved', binding: { revision: b.revision, own: sameObject(b.aor, sfAor) } };
        } catch (err) {
          if (err instanceof ResolveException) return { kind: 'resolved', binding: null };
          throw err;
        }
      }
      case 'ping': {
        const aor = this.seen.get(a.binding.revision);
        if (!aor) return { kind: 'ping-failed', reason: 'binding not known' };
        // a watching backup gives the master one interval; an election ping (before unbinding someone) more: a gone
        // process fails at once with object_not_exist anyway, and a slow one must not be unbound while it answers
        const watchMs = this.opts.pingTimeoutMs ?? Math.max(250, this.opts.pingIntervalMs ?? 5000);
        const timeoutMs = this.election.role === 'backup' ? watchMs : Math.max(1000, 2 * watchMs);
        try {
          await this.mw.proxy(sessionFactoryInterface, aor, { timeoutMs }).__ping();
          if (this.election.role === 'backup') this.log.debug({ master: `${aor.host}:${aor.port}/${aor.object_id}` }, 'master answered __ping');
          return { kind: 'ping-ok' };
        } catch (err) {
          return { kind: 'ping-failed', reason: (err as Error).message, gone: err instanceof ObjectNotExist, busy: err instanceof ServerBusy };
        }
      }
      case 'unbind': {
        const r = await this.mw.names.unbind(DISPATCHER_NAME, sessionFactoryInterface.type, a.binding.revision);
        this.log.warn({ revision: a.binding.revision, removed: r.removed, stale: this.seen.get(a.binding.revision) }, 'unbound the session_factory of a master that did not answer');
        return { kind: 'unbound', removed: r.removed };
      }
      case 'claim':
        return this.claim(sfAor);
      case 'register': {
        const { proxy } = await this.mw.names.resolveProxy(masterDispatcherInterface, DISPATCHER_NAME, { timeoutMs: this.electionDeadlineMs });
        await proxy.register_dispatcher(this.opts.nodeId);
        return { kind: 'registered' };
      }
    }
  }

  /** 3.3.3 then 3.1.3: bind session_factory (the election: create-if-absent), then master_dispatcher, then register. */
  private async claim(sfAor: Aor): Promise<ElectionEvent> {
    this.claimActsAtOnce = this.election.claimActsAtOnce;
    // The dispatcher node state is kept from any earlier time as master: an entry of a node that is gone fails fast
    // (no responders) and is dropped when used, and one that registered while this claim finishes must not be lost.
    // The backups register again when they find the new master.
    try {
      return await this.claimSteps(sfAor);
    } finally {
      this.claimBound = false;
    }
  }

  private async claimSteps(sfAor: Aor): Promise<ElectionEvent> {
    let sfRevision: number;
    try {
      sfRevision = (await this.mw.names.bind(DISPATCHER_NAME, sfAor)).revision;
      this.claimBound = true;
    } catch (err) {
      if (err instanceof AlreadyBound) return { kind: 'claim-lost' };
      throw err;
    }
    const mdAor = this.mdObject?.aor;
    if (!mdAor) return failed({ kind: 'claim' }, 'not started');
    // the previous master's master_dispatcher binding stays behind it: replace exactly the one we see
    let mdRevision = -1;
    for (let attempt = 0; attempt < 5 && mdRevision < 0; attempt++) {
      const held = await this.mw.names.resolve(DISPATCHER_NAME, masterDispatcherInterface.type, masterDispatcherInterface.version).catch((err: unknown) => {
        if (err instanceof ResolveException) return undefined;
        throw err;
      });
      if (held && !sameObject(held.aor, mdAor)) await this.mw.names.unbind(DISPATCHER_NAME, masterDispatcherInterface.type, held.revision);
      try {
        mdRevision = (await this.mw.names.bind(DISPATCHER_NAME, mdAor)).revision;
      } catch (err) {
        if (!(err instanceof AlreadyBound)) throw err;
      }
    }
    if (mdRevision < 0) return failed({ kind: 'claim' }, 'could not bind master_dispatcher');
    this.masterBindings = [
      { type: sessionFactoryInterface.type, revision: sfRevision },
      { type: masterDispatcherInterface.type, revision: mdRevision },
    ];
    // register_dispatcher(node_id) on the master, which is us
    await this.registerDispatcher(this.opts.nodeId);
    return { kind: 'claimed', revision: sfRevision };
  }

  // ---- master_dispatcher (MS-FSDPD 3.3, MS-FSCDFT 3.1) ----

  private async registerDispatcher(nodeId: number): Promise<void> {
    if (nodeId === this.opts.nodeId) {
      this.dispatcherNodes.delete(nodeId);
      return;
    }
    const { proxy } = await this.mw.names.resolveProxy(dispatcherNodeInterface, dispatcherNodeName(nodeId), { timeoutMs: 5000 });
    this.dispatcherNodes.set(nodeId, proxy);
  }

  private masterDispatcherImpl(): Implementation<typeof masterDispatcherInterface> {
    return {
      register_dispatcher: async (nodeId) => {
        await this.registerDispatcher(nodeId);
        this.log.info({ node: nodeId }, 'dispatcher registered');
      },
      unregister_dispatcher: (nodeId) => {
        this.dispatcherNodes.delete(nodeId);
        this.log.info({ node: nodeId }, 'dispatcher unregistered');
      },
      register_procserver: (name) => {
        this.procserverNames.add(name);
        this.log.info({ procserver: name }, 'item processor registered with master');
      },
      assign_dispatcher: async (name) => {
        if (!this.procserverNames.has(name)) this.procserverNames.add(name);
        // every node runs a procserver_handler under its node id; this master's own is always there. A node without
        // any item processor (one that came back after a failover, say) gets the next one: sessions placed on it
        // could not be fed otherwise.
        const known = [this.opts.nodeId, ...this.dispatcherNodes.keys()];
        const loads = await Promise.all(known.map((id) => (id === this.opts.nodeId ? this.load : (this.dispatcherNodes.get(id)?.get_load().catch(() => -1) ?? -1))));
        // a node that does not answer is gone: drop it rather than send an item processor there
        for (const [i, id] of known.entries()) if (loads[i] === -1) this.dispatcherNodes.delete(id);
        const ids = known.filter((_, i) => loads[i] !== -1);
        const empty = ids.filter((id) => loads[known.indexOf(id)] === NO_PROCESSORS_LOAD);
        if (empty.length) return empty[this.procserverNames.size % empty.length] as number;
        return ids[this.procserverNames.size % ids.length] ?? ASSIGN_DISPATCHER_NONE_AVAILABLE;
      },
      unregister_procserver: (name) => {
        this.procserverNames.delete(name);
        this.log.info({ procserver: name }, 'item processor unregistered from master');
      },
    };
  }

  // ---- procserver_handler (MS-FSDPD 3.5) ----

  private leaseOf(name: string): Lease {
    let lease = this.leases.get(name);
    if (!lease) {
      lease = new Lease(this.pool.get(name)?.leaseMs ?? this.opts.leaseMs ?? 300_000, () => void this.onLeaseTimeout(name), this.clock);
      this.leases.set(name, lease);
    }
    return lease;
  }

  private procserverHandlerImpl(): Implementation<typeof procserverHandlerInterface> {
    return {
      register_procserver: (procserver, name, hostname, pid) => {
        const previous = this.pool.get(name);
        // a processor that comes back under the same name lost whatever it held: report it now, not at the lease
        if (previous && previous.inFlight.length) {
          this.leases.get(name)?.cancel();
          void this.reportLost(this.pool.expire(name), `item processor ${name} re-registered while holding a batch`);
        }
        this.pool.register(name, procserver, hostname, pid);
        // liveness tracking starts over at its READY
        this.liveness.forget(name);
        this.log.info({ procserver: name, host: hostname, pid }, 'item processor registered');
      },
      unregister_procserver: (name) => {
        this.leases.get(name)?.cancel();
        this.leases.delete(name);
        this.liveness.forget(name);
        const held = this.pool.unregister(name);
        if (held.length) void this.reportLost(held, `item processor ${name} unregistered while holding a batch`);
        this.log.info({ procserver: name }, 'item processor unregistered');
      },
      processed: (name, completed, status) => {
        const p = this.pool.get(name);
        if (!p) {
          this.log.warn({ procserver: name }, 'processed from an unknown item processor; ignored');
          return;
        }
        this.liveness.life(name);
        if (p.inFlight.length && !p.inFlight.some((o) => o.opId >= status.first_op_id && o.opId <= status.last_op_id)) {
          // a late report of a batch that went to another processor while this one was declared dead
          this.log.info({ procserver: name, first: status.first_op_id, last: status.last_op_id }, 'late processed of a batch no longer held; ignored');
          return;
        }
        this.leases.get(name)?.cancel();
        const sessionId = p.batchSessionId;
        const done = this.pool.processed(name, status.first_op_id, status.last_op_id);
        const session = sessionId === undefined ? undefined : this.sessions.get(sessionId);
        if (!completed && done.length) {
          // the processor could not hand the batch to indexing: those operations are lost (the indexer arbitrates)
          void this.reportLost(done, `item processor ${name} could not submit to indexing`);
        }
        if (session && done.length) this.forgetInFlight(session, status.first_op_id, status.last_op_id);
        session?.callbacks?.send(status);
        if (this.orphans.length) void this.drainOrphans();
      },
      flush_pipelines: async () => {
        await Promise.all(
          this.pool.all().map((p) =>
            this.mw
              .proxy(processorServerInterface, p.proxy, { timeoutMs: 30_000 })
              .flush()
              .catch((err: Error) => this.log.warn({ procserver: p.name, err: err.message }, 'flush failed')),
          ),
        );
      },
      renew: (name, period) => {
        const p = this.pool.get(name);
        if (!p) return;
        this.liveness.life(name);
        p.leaseMs = period * 1000;
        this.leaseOf(name).renew(p.leaseMs);
        this.log.debug({ procserver: name, period }, 'lease renewed');
      },
    };
  }

  /** MS-FSDPD 3.5.5. */
  private async onLeaseTimeout(name: string): Promise<void> {
    const p = this.pool.get(name);
    const lost = this.pool.expire(name);
    this.log.warn({ procserver: name, pid: p?.pid, lost: lost.length }, 'Lease Timeout: item processor did not report its batch; its operations are lost');
    await this.reportLost(lost, `Lease Timeout of ${name}`);
    if (p) await this.restart(p);
  }

  /** The node-controller restart hook, once per processor process (a Lease Timeout and a death may both ask). */
  private async restart(p: ProcessorEntry): Promise<void> {
    const key = `${p.name}:${p.pid}`;
    if (this.restartRequested.has(key)) return;
    this.restartRequested.add(key);
    try {
      await this.opts.onLeaseExpired?.({ name: p.name, pid: p.pid, host: p.host });
    } catch (err) {
      this.log.error({ procserver: p.name, err: (err as Error).message }, 'restart of the item processor failed');
    }
  }

  // ---- PPP liveness of item processors ----

  /** [processor name, READY | HEARTBEAT] from an item processor. */
  private onLivenessMessage(data: Uint8Array): void {
    let frames: Uint8Array[];
    try {
      frames = decodeFrames(data);
    } catch (err) {
      if (!(err instanceof PppFrameError)) throw err;
      this.malformedLiveness++;
      return;
    }
    const [identity, ...rest] = frames;
    const msg = parsePppMessage(rest);
    if (!identity || (msg.kind !== 'ready' && msg.kind !== 'heartbeat')) {
      this.malformedLiveness++;
      return;
    }
    const name = new TextDecoder().decode(identity);
    const p = this.pool.get(name);
    if (!p) return; // not registered here (yet): its registration comes first
    const was = this.liveness.ppp(name);
    if (was === 'revived' || p.dead) {
      p.dead = false;
      this.restartRequested.delete(`${p.name}:${p.pid}`);
      this.log.warn({ procserver: name, pid: p.pid, frame: msg.kind }, 'item processor declared dead is alive again; it gets batches again');
      if (this.orphans.length) void this.drainOrphans();
    } else if (msg.kind === 'ready') {
      this.log.info({ procserver: name, pid: p.pid }, 'item processor READY');
    }
  }

  /** Silent for liveness x interval: no more batches for it; its batch goes to another processor, or is lost. */
  private async onDeclaredDead(name: string): Promise<void> {
    const p = this.pool.get(name);
    if (!p) return;
    this.leases.get(name)?.cancel();
    const held = this.pool.declareDead(name);
    this.log.warn(
      { procserver: name, pid: p.pid, silent_ms: this.liveness.deadAfterMs, held: held?.ops.length ?? 0, session: held?.sessionId, first: held?.ops[0]?.opId, last: held?.ops[held.ops.length - 1]?.opId },
      'item processor declared dead (PPP liveness): no heartbeat for liveness x interval',
    );
    if (held) {
      this.orphans.push({ from: name, ...held });
      await this.drainOrphans();
    }
    await this.restart(p);
  }

  private drainOrphans(): Promise<void> {
    if (this.draining) {
      this.drainAgain = true;
      return this.draining;
    }
    this.draining = (async () => {
      try {
        do {
          this.drainAgain = false;
          await this.drainOnce();
        } while (this.drainAgain);
      } finally {
        this.draining = undefined;
      }
    })();
    return this.draining;
  }

  /** Hands orphan batches, oldest first, to free live processors; waits while live ones are busy; else lost. */
  private async drainOnce(): Promise<void> {
    for (;;) {
      const o = this.orphans[0];
      if (!o) return;
      const session = this.sessions.get(o.sessionId);
      if (!session || !o.batch) {
        this.orphans.shift();
        await this.reportLost(o.ops, `item processor ${o.from} declared dead`);
        continue;
      }
      const tried = new Set([o.from]);
      let taken: ProcessorEntry | undefined;
      for (;;) {
        const p = this.pool.pickFree(tried);
        if (!p) break;
        tried.add(p.name);
        this.pool.assign(p, o.sessionId, o.ops, o.batch);
        this.leaseOf(p.name).start(p.leaseMs);
        const outcome = await this.handOver(p, session, o.batch).catch((err: Error) => {
          this.log.warn({ procserver: p.name, err: err.message }, 'batch of a dead item processor not taken');
          return 'retry' as const;
        });
        if (outcome === 'taken') {
          taken = p;
          break;
        }
      }
      if (taken) {
        this.orphans.shift();
        this.log.warn({ from: o.from, to: taken.name, session: o.sessionId, first: o.ops[0]?.opId, ops: o.ops.length }, 'batch of a dead item processor dispatched to another item processor');
        continue;
      }
      // a live processor busy with its own batch takes it when done (its processed drains again)
      if (this.pool.liveOthers(o.from).some((e) => e.busy)) return;
      this.orphans.shift();
      await this.reportLost(o.ops, `item processor ${o.from} declared dead and no other item processor took its batch`);
    }
  }

  /** Sends failed_operation (lost) sets to the indexing sessions; retried until the indexer takes them. */
  private async reportLost(ops: InFlightOperation[], why: string): Promise<void> {
    if (!ops.length) return;
    for (const [sessionId, set] of lostOperationSets(ops)) {
      const session = this.sessions.get(sessionId);
      if (!session) {
        this.log.error({ session: sessionId, ops: set.operations.length }, 'lost operations of a session that no longer exists');
        continue;
      }
      this.log.warn({ session: sessionId, ops: set.operations.length, first: set.operations[0]?.id, why }, 'reporting operations lost');
      await this.sendToIndexer(session, set);
      const ids = set.operations.map((o) => o.id);
      if (ids.length) this.forgetInFlight(session, Math.min(...ids), Math.max(...ids));
    }
  }

  private coreSession(aor: Aor): ProxyOf<typeof coreSessionInterface> {
    const key = `${aor.host}:${aor.port}:${aor.object_id}`;
    let p = this.coreSessionProxies.get(key);
    if (!p) {
      p = this.mw.proxy(coreSessionInterface, aor, { timeoutMs: 10_000 });
      this.coreSessionProxies.set(key, p);
    }
    return p;
  }

  private async sendToIndexer(session: FeedingSession, set: OperationSet): Promise<void> {
    // until the indexer takes them or the session is gone (then nobody waits for them)
    await retry(() => this.coreSession(session.coreSession).process(set), {
      initialMs: 100,
      maxMs: 5000,
      retryable: () => this.sessions.has(session.id),
      onRetry: (err, attempt) => this.log.warn({ session: session.id, attempt, err: (err as Error).message }, 'indexer did not take lost operations; retrying'),
    }).catch(() => undefined);
  }

  // ---- dispatch (MS-FSDPD 3.5.6) ----

  private async dispatch(session: FeedingSession, batch: OperationSet): Promise<OperationStatusInfo[]> {
    if (this.shuttingDown) throw new ShuttingDown('content distributor is shutting down');
    const ops = batch.operations;
    if (ops.length === 0) return [];
    let prev = session.lastAcceptedOpId;
    for (const op of ops) {
      if (op.id <= prev) {
        throw new BadParameter(`operation ids must increase within the session: ${op.id} after ${prev}`, { argument: 'batch', operation_id: op.id, last_accepted: session.lastAcceptedOpId });
      }
      prev = op.id;
    }
    if (this.orphans.length) {
      // batches of dead processors go first
      await this.drainOrphans();
      if (this.orphans.length) throw new ProcessorsBusy(`item processors are taking over the batches of a dead one; retry shortly`, { registered: this.pool.size });
    }
    if (this.redispatchWaiting > 0) throw new ProcessorsBusy(`batches of a reactivated session are being dispatched again first; retry shortly`, { registered: this.pool.size });
    const inFlight: InFlightOperation[] = ops.map((op) => ({ opId: op.id, docId: docIdOf(op), sessionId: session.id }));
    const tried = new Set<string>();
    // with session replication the batch goes into the session artifact, on the buddy, before any processor has it
    // and before the client hears it was accepted: from then on no distributor death can lose it
    let stored: InFlightBatch | undefined;
    try {
      for (;;) {
        const p = this.pool.pickFree(tried);
        if (!p) throw new ProcessorsBusy(`no free item processor (${this.pool.size} registered, ${this.pool.inFlightBatches} busy); retry shortly`, { registered: this.pool.size });
        tried.add(p.name);
        this.pool.assign(p, session.id, inFlight, batch);
        if (this.store && !stored) {
          stored = encodeBatch(batch);
          session.inFlight.set(stored.first, stored);
          try {
            // the batch as a child of the session's artifact; the session's own artifact only when its timer is not
            // armed yet (the first batch in flight): it must be, should this distributor die with no client calling
            const writes = [this.store.putBatch(session.id, stored)];
            if (!this.store.armed(session.id)) writes.push(this.saveSession(session));
            await Promise.all(writes);
          } catch (err) {
            this.pool.release(p);
            throw err;
          }
        }
        this.leaseOf(p.name).start(p.leaseMs);
        const outcome = await this.handOver(p, session, batch);
        if (outcome === 'taken') break;
      }
    } catch (err) {
      if (stored && session.inFlight.get(stored.first) === stored) {
        // refused: nothing of it was accepted. Should this distributor die before its artifact is removed, the new home
        // sends the batch once more, which the indexer's arbitration makes harmless
        session.inFlight.delete(stored.first);
        this.store?.retire(session.id, [stored]);
        this.saveSessionLater(session);
      }
      throw err;
    }
    session.lastAcceptedOpId = prev;
    session.completedOpId = Math.max(session.completedOpId, batch.completed_op_id);
    this.batchesSinceStart++;
    // received goes back in the reply (processing session 5.2), not as a callback of its own: one round trip less
    return [new OperationStatusInfo({ first_op_id: ops[0]?.id ?? prev, last_op_id: prev, state: OperationState.received, subsystem: 'processing', errors: [], warnings: [] })];
  }

  /** Gives the batch to one processor; 'retry' when it refused before taking it (the caller tries the next one). */
  private async handOver(p: ProcessorEntry, session: FeedingSession, batch: OperationSet): Promise<'taken' | 'retry'> {
    try {
      await this.mw.proxy(processorServerInterface, p.proxy, { timeoutMs: 10_000 }).process(session.coreSession, session.id, session.collection, batch, INDEXING_ONLY());
      this.liveness.life(p.name);
      return 'taken';
    } catch (err) {
      if (err instanceof CallTimeout) {
        // it may hold the batch: the lease decides (lost at expiry unless processed arrives)
        this.log.warn({ procserver: p.name, session: session.id }, 'process call timed out; the lease will tell');
        return 'taken';
      }
      this.leases.get(p.name)?.cancel();
      this.pool.release(p);
      if (err instanceof ShuttingDown) {
        p.terminating = true;
        this.log.info({ procserver: p.name }, 'item processor is shutting down; no more batches for it');
        return 'retry';
      }
      if (err instanceof SystemResourceError) return 'retry';
      if (err instanceof ObjectNotExist) {
        this.log.warn({ procserver: p.name, pid: p.pid }, 'item processor is gone; unregistering it');
        this.leases.get(p.name)?.cancel();
        this.leases.delete(p.name);
        this.pool.unregister(p.name);
        return 'retry';
      }
      throw err;
    }
  }

  // ---- sessions: dispatcher_node (MS-FSCDFT 3.5.4) and session_factory (forwarding, ours) ----

  /** One open at a time per session id: a client's re-open and the session's replica timer may race for it. */
  private createSessionHere(id: number, collection: string, callback: Aor | undefined, external: boolean, recreate = false): Promise<Aor> {
    const prev = this.opening.get(id) ?? Promise.resolve(undefined as unknown as Aor);
    const next = prev.catch(() => undefined).then(() => this.openSessionHere(id, collection, callback, external, recreate));
    this.opening.set(id, next);
    void next.catch(() => undefined).finally(() => {
      if (this.opening.get(id) === next) this.opening.delete(id);
    });
    return next;
  }

  private async openSessionHere(id: number, collection: string, callback: Aor | undefined, external: boolean, recreate: boolean): Promise<Aor> {
    if (!(await this.collections.has(collection))) {
      throw new UnknownCollection(`collection "${collection}" is not configured (known: ${this.collections.names().join(', ') || 'none'})`, { collection });
    }
    if (this.shuttingDown) throw new ShuttingDown('content distributor is shutting down');
    const existing = this.sessions.get(id);
    if (existing) {
      if (existing.collection !== collection) throw new SystemResourceError(`session id ${id} is in use for collection "${existing.collection}"`, { session: id });
      if (callback && existing.callbacks?.callback.object_id !== callback.object_id) {
        existing.callbacks?.close();
        existing.callbacks = new CallbackSender(this.mw, callback, this.log.child({ session: id }));
        existing.callback = callback;
        if (this.store) await this.saveSession(existing);
      }
      return existing.object.aor;
    }
    // with session replication: the session may have lived on a distributor that died; its artifact (here, on a
    // replica, or on another instance) is reactivated here by a load request (SSR 2.13, lazy reactivation)
    const saved = this.store ? await this.store.load(id) : undefined;
    if (saved && saved.collection !== collection) throw new SystemResourceError(`session id ${id} is in use for collection "${saved.collection}"`, { session: id });
    const { proxy: factory } = await this.mw.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME, { timeoutMs: 10_000 });
    const clientCallback = callback ?? saved?.callback;
    const sink = clientCallback ?? this.callbackSink;
    if (!sink) throw new SystemResourceError('content distributor is not started');
    // 3.5.4.1-3.5.4.3: create_session and create call the indexer's create, recreate its recreate (which takes over
    // the session's callbacks: a recreate carries no callback of its own, so they come to this node). A reactivated
    // session is a recreate: the indexer's outbox then delivers the finals it still owes to the client's callback.
    const coreSession = recreate || saved ? await factory.recreate(id, collection, sink) : await factory.create(id, collection, sink);
    const port = this.opts.basePort + (external ? EXTERNAL_SESSION_PORT_OFFSET : INTERNAL_PORT_OFFSET);
    const session: FeedingSession = {
      id,
      collection,
      callbacks: clientCallback ? new CallbackSender(this.mw, clientCallback, this.log.child({ session: id })) : undefined,
      coreSession,
      object: undefined as unknown as ServerObject<typeof processingSessionInterface>,
      lastAcceptedOpId: saved?.lastAcceptedOpId ?? -1,
      completedOpId: saved?.completedOpId ?? 0,
      callback: clientCallback,
      inFlight: new Map(),
    };
    const again = saved ? batchesToRedispatch(saved) : [];
    for (const b of again) session.inFlight.set(b.first, b);
    session.object = await this.activate(
      processingSessionInterface,
      {
        process: (batch) => {
          const s = this.sessions.get(id);
          if (!s) throw new UnknownSession(`session ${id} is closed`);
          return this.dispatch(s, batch);
        },
        accepted_op_id: () => {
          const s = this.sessions.get(id);
          if (!s) throw new UnknownSession(`session ${id} is closed`);
          return s.lastAcceptedOpId;
        },
        // the close call is in flight on this very object, which deactivation drains: finish after replying
        close: () => {
          setImmediate(() => void this.destroySessionHere(id));
        },
      },
      `session_${this.opts.nodeId}_${id}`,
      '',
      port,
    );
    this.sessions.set(id, session);
    if (this.store) {
      try {
        // this distributor owns the session now (a reactivated one: its new callback and its batches in flight)
        await this.saveSession(session);
      } catch (err) {
        this.sessions.delete(id);
        await this.mw.deactivate(session.object).catch(() => undefined);
        session.callbacks?.close();
        throw err;
      }
    }
    if (saved) {
      this.ssrCounters.reactivated++;
      const ops = again.reduce((n, b) => n + (b.last - b.first + 1), 0);
      this.log.warn(
        { session: id, collection, accepted: saved.lastAcceptedOpId, completed: saved.completedOpId, batches: again.length, ops, first: again[0]?.first, last: again[again.length - 1]?.last },
        'session reactivated from its replica',
      );
      if (again.length) void this.redispatch(session, again);
    } else {
      this.log.info({ session: id, collection }, 'session created');
    }
    return session.object.aor;
  }

  // ---- feeding sessions in SSR ----

  private async startSessionReplication(o: SessionReplicationOptions): Promise<void> {
    const cluster = o.cluster ?? 'feeding';
    const log = this.log.child({ component: 'ssr' });
    const node = new SsrNode({
      name: ssrName(this.opts.nodeId),
      transport: new NatsSsrTransport(this.mw.bus, cluster, log),
      log,
      // ack mode: a batch is acknowledged to the client only once the session artifact holding it is on the buddy
      waitForAck: true,
      ...(o.heartbeatMs !== undefined ? { heartbeatMs: o.heartbeatMs } : {}),
      ...(o.failAfterMs !== undefined ? { failAfterMs: o.failAfterMs } : {}),
      onFire: (a) => this.onSessionTimer(a),
    });
    this.store = new SessionStore({ node, log, inFlightTimerMs: o.inFlightTimerMs ?? 10_000 });
    await node.start();
    this.log.info({ cluster, name: node.name, mode: 'ack' }, 'feeding sessions in session replication');
  }

  /** The artifact of the session as it is now. */
  private artifactOf(s: FeedingSession): SessionArtifact {
    let accepted = s.lastAcceptedOpId;
    // a batch being accepted counts as accepted in the artifact: it is in it, so a new home sends it on
    for (const b of s.inFlight.values()) if (b.last > accepted) accepted = b.last;
    return { id: s.id, collection: s.collection, callback: s.callback, guarantees: [], lastAcceptedOpId: accepted, completedOpId: s.completedOpId, inFlight: [...s.inFlight.values()] };
  }

  private saveSession(s: FeedingSession): Promise<void> {
    if (s.lazySave) {
      clearTimeout(s.lazySave);
      s.lazySave = undefined;
    }
    return this.store ? this.store.save(s.id, () => this.artifactOf(s)) : Promise.resolve();
  }

  /**
   * A save nobody waits for (a batch left the distributor's hands, or was refused): a stale artifact only means a
   * harmless copy after a death. Deferred by LAZY_SAVE_MS: under a steady feed the next batch's save carries it, which
   * halves the SSR writes (bench:ssr-feed).
   */
  private saveSessionLater(s: FeedingSession): void {
    if (!this.store || s.lazySave) return;
    s.lazySave = setTimeout(() => {
      s.lazySave = undefined;
      if (this.sessions.get(s.id) !== s) return;
      this.saveSession(s).catch((err: Error) => this.log.debug({ session: s.id, err: err.message }, 'session artifact not updated'));
    }, LAZY_SAVE_MS);
    s.lazySave.unref?.();
  }

  /** Batches within [first, last] are with the indexer now (processed) or reported lost: out of the artifact. */
  private forgetInFlight(s: FeedingSession, first: number, last: number): void {
    if (!this.store || !s.inFlight.size) return;
    const gone: InFlightBatch[] = [];
    for (const [k, b] of s.inFlight) {
      if (b.first >= first && b.last <= last) {
        s.inFlight.delete(k);
        gone.push(b);
      }
    }
    if (!gone.length) return;
    this.store.retire(s.id, gone);
    this.saveSessionLater(s);
  }

  /**
   * A session timer fired on this instance: either the session is held here (it still has batches in flight after
   * the in-flight timer: renew it, the leases deal with the processors) or the session's distributor died and the
   * replica's timer made this, its home, reactivate it (SSR 2.14): open it here, with no client call needed.
   */
  private async onSessionTimer(a: Artifact): Promise<void> {
    const m = /^feeding-session-(\d+)$/.exec(a.id);
    if (!m) return;
    const id = Number(m[1]);
    const held = this.sessions.get(id);
    if (held) {
      if (held.inFlight.size) this.saveSessionLater(held);
      return;
    }
    if (this.shuttingDown) return;
    try {
      const art = decodeSessionArtifact(a.body);
      await this.createSessionHere(id, art.collection, undefined, false, true);
    } catch (err) {
      this.log.warn({ session: id, err: (err as Error).message }, 'session timer: reactivation failed; the next call or timer tries again');
    }
  }

  /**
   * Sends the batches of a reactivated session to item processors again, oldest first (MS-FSDPD 3.5.6 as for any
   * batch). Right after a failover this node may have no free processor yet (those of the dead distributor register
   * again within a heartbeat or two): wait for one, up to the deadline, then report the batch lost (the client
   * resubmits lost operations as its suggested action says).
   */
  private async redispatch(session: FeedingSession, batches: InFlightBatch[]): Promise<void> {
    let left = batches.length;
    this.redispatchWaiting += left;
    try {
      for (const b of batches) {
        await this.redispatchOne(session, b);
        left--;
        this.redispatchWaiting--;
      }
    } finally {
      this.redispatchWaiting -= left;
    }
  }

  private async redispatchOne(session: FeedingSession, b: InFlightBatch): Promise<void> {
    const deadlineMs = this.opts.sessionReplication?.redispatchDeadlineMs ?? 60_000;
    let batch: OperationSet;
    try {
      batch = decodeBatch(b);
    } catch (err) {
      this.log.error({ session: session.id, first: b.first, last: b.last, err: (err as Error).message }, 'in-flight batch of a reactivated session undecodable');
      return;
    }
    const ops: InFlightOperation[] = batch.operations.map((op) => ({ opId: op.id, docId: docIdOf(op), sessionId: session.id }));
    const deadline = Date.now() + deadlineMs;
    for (let attempt = 0; ; attempt++) {
      if (this.shuttingDown || this.sessions.get(session.id) !== session) return;
      // reported processed or lost meanwhile (by a processor that had the original)
      if (!session.inFlight.has(b.first)) return;
      let taken: ProcessorEntry | undefined;
      const tried = new Set<string>();
      for (;;) {
        const p = this.pool.pickFree(tried);
        if (!p) break;
        tried.add(p.name);
        this.pool.assign(p, session.id, ops, batch);
        this.leaseOf(p.name).start(p.leaseMs);
        const outcome = await this.handOver(p, session, batch).catch((err: Error) => {
          this.log.warn({ procserver: p.name, err: err.message }, 'batch of a reactivated session not taken');
          return 'retry' as const;
        });
        if (outcome === 'taken') {
          taken = p;
          break;
        }
      }
      if (taken) {
        this.ssrCounters.redispatchedBatches++;
        this.ssrCounters.redispatchedOps += ops.length;
        this.log.warn({ session: session.id, procserver: taken.name, first: b.first, last: b.last, ops: ops.length }, 'in-flight batch of a reactivated session dispatched again');
        session.callbacks?.send(new OperationStatusInfo({ first_op_id: b.first, last_op_id: b.last, state: OperationState.received, subsystem: 'processing', errors: [], warnings: [] }));
        break;
      }
      if (Date.now() > deadline) {
        this.ssrCounters.redispatchLost++;
        await this.reportLost(ops, `no item processor took a batch of reactivated session ${session.id} within ${deadlineMs} ms`);
        break;
      }
      await sleep(backoffDelay(attempt, { initialMs: 20, maxMs: 200 }));
    }
  }

  private async destroySessionHere(id: number): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    s.callbacks?.close();
    if (s.lazySave) clearTimeout(s.lazySave);
    await this.store?.remove(id);
    await this.mw.deactivate(s.object);
    try {
      const { proxy: factory } = await this.mw.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME, { timeoutMs: 5000 });
      await factory.close(id);
    } catch (err) {
      this.log.warn({ session: id, err: (err as Error).message }, 'could not close the indexing session');
    }
    this.log.info({ session: id, collection: s.collection }, 'session destroyed');
  }

  /**
   * The load state (3.5.1): sessions plus batches in flight. A node with no live item processor can feed nothing, so
   * it reports the highest load and gets a session only when no node has processors (yet).
   */
  private get load(): number {
    if (this.pool.all().every((p) => p.dead || p.terminating)) return NO_PROCESSORS_LOAD;
    return this.sessions.size + this.pool.inFlightBatches;
  }

  private dispatcherNodeImpl(): Implementation<typeof dispatcherNodeInterface> {
    return {
      create_session: (id, collection, callback, _g: GuaranteeSet) => this.createSessionHere(id, collection, callback, false),
      create: (id, collection, _g, _p, external) => this.createSessionHere(id, collection, undefined, external),
      recreate: (id, collection, _g, _p, external) => this.createSessionHere(id, collection, undefined, external, true),
      destroy_session: (id) => this.destroySessionHere(id),
      remove_sessions: async (coll) => {
        const ids = [...this.sessions.values()].filter((s) => s.collection === coll).map((s) => s.id);
        for (const id of ids) await this.destroySessionHere(id);
        return ids;
      },
      get_sessions: () => [...this.sessions.keys()],
      get_load: () => this.load,
    };
  }

  /** The dispatcher_node with the lowest get_load (MS-FSCDFT 3.3.4); this node when it is the least loaded. */
  private async leastLoadedNode(): Promise<{ id: number; node: Implementation<typeof dispatcherNodeInterface> | ProxyOf<typeof dispatcherNodeInterface> }> {
    let best = { id: this.opts.nodeId, load: this.load, node: this.dispatcherNodeImpl() as Implementation<typeof dispatcherNodeInterface> | ProxyOf<typeof dispatcherNodeInterface> };
    for (const [id, proxy] of this.dispatcherNodes) {
      const load = await proxy.get_load().catch(() => Number.POSITIVE_INFINITY);
      if (load < best.load) best = { id, load, node: proxy };
    }
    if (best.load >= NO_PROCESSORS_LOAD && (await this.discoverNodes()) > 0) return this.leastLoadedNode();
    return best;
  }

  /**
   * Just after a takeover the backups have not registered yet (each registers when it notices the new master), and
   * the item processors are on their nodes. Rather than put a session on a node that has none, look up the
   * dispatcher_node bindings and take in the nodes that answer, as register_dispatcher would. Returns how many.
   */
  private async discoverNodes(): Promise<number> {
    const bindings = await this.mw.names.list(`${DISPATCHER_NAME}/`).catch(() => []);
    let added = 0;
    for (const b of bindings) {
      if (b.aor.interface_type !== dispatcherNodeInterface.type) continue;
      const id = Number(b.name.slice(DISPATCHER_NAME.length + 1));
      if (!Number.isInteger(id) || id === this.opts.nodeId || this.dispatcherNodes.has(id)) continue;
      const proxy = this.mw.proxy(dispatcherNodeInterface, b.aor, { timeoutMs: 5000 });
      const load = await proxy.get_load().catch(() => undefined);
      if (load === undefined) continue;
      this.dispatcherNodes.set(id, proxy);
      added++;
      this.log.info({ node: id, load }, 'dispatcher node found in the name server before it registered');
    }
    return added;
  }

  /**
   * Where session `id` lives: the node recorded for it, else the node whose get_sessions lists it (a session created
   * under a previous master), else none.
   */
  private async homeOf(id: number): Promise<{ id: number; node: Implementation<typeof dispatcherNodeInterface> | ProxyOf<typeof dispatcherNodeInterface> } | undefined> {
    const home = this.sessionHomes.get(id);
    if (home === this.opts.nodeId || this.sessions.has(id)) return { id: this.opts.nodeId, node: this.dispatcherNodeImpl() };
    const known = home === undefined ? undefined : this.dispatcherNodes.get(home);
    if (home !== undefined && known) return { id: home, node: known };
    for (const [nid, proxy] of this.dispatcherNodes) {
      const ids = await proxy.get_sessions().catch(() => [] as number[]);
      if (ids.includes(id)) return { id: nid, node: proxy };
    }
    return undefined;
  }

  /**
   * With session replication, a session that no live node holds goes to its SSR home (consistent hash over the live
   * distributors): where a new session's artifact will live, and where the replica timer of a dead distributor's
   * session reactivates it. Not to a home that has no item processor to feed it (processors stay with the node that
   * got them); then the least loaded node takes it (any SSR instance can load an artifact).
   */
  private async ssrHomeNode(id: number): Promise<{ id: number; node: Implementation<typeof dispatcherNodeInterface> | ProxyOf<typeof dispatcherNodeInterface> } | undefined> {
    if (!this.store) return undefined;
    const nid = nodeIdOfSsrName(this.store.homeOf(id));
    if (nid === undefined) return undefined;
    if (nid === this.opts.nodeId) return this.load < NO_PROCESSORS_LOAD ? { id: nid, node: this.dispatcherNodeImpl() } : undefined;
    if (!this.dispatcherNodes.has(nid)) await this.discoverNodes();
    const proxy = this.dispatcherNodes.get(nid);
    if (!proxy) return undefined;
    const load = await proxy.get_load().catch(() => NO_PROCESSORS_LOAD);
    return load < NO_PROCESSORS_LOAD ? { id: nid, node: proxy } : undefined;
  }

  private sessionFactoryImpl(): Implementation<typeof sessionFactoryInterface> {
    // MS-FSCDFT 3.3.4 / 3.6: the master forwards to the node that holds the session, else the least loaded one; a
    // node that is gone (object_not_exist) is dropped from the dispatcher node state and the call goes elsewhere
    const forward = async <T>(id: number, call: (n: Implementation<typeof dispatcherNodeInterface> | ProxyOf<typeof dispatcherNodeInterface>) => T | Promise<T>) => {
      for (let attempt = 0; ; attempt++) {
        const target = (await this.homeOf(id)) ?? (await this.ssrHomeNode(id)) ?? (await this.leastLoadedNode());
        try {
          const r = await call(target.node);
          this.sessionHomes.set(id, target.id);
          return r;
        } catch (err) {
          if (!(err instanceof ObjectNotExist) || target.id === this.opts.nodeId || attempt >= 3) throw err;
          this.log.warn({ node: target.id, session: id }, 'dispatcher node is gone; dropping it');
          this.dispatcherNodes.delete(target.id);
          this.sessionHomes.delete(id);
        }
      }
    };
    return {
      create_session: (id, collection, callback, g, priority) => forward(id, (n) => n.create_session(id, collection, callback, g, priority)),
      create: (id, collection, g, priority, external) => forward(id, (n) => n.create(id, collection, g, priority, external)),
      recreate: (id, collection, g, priority, external) => forward(id, (n) => n.recreate(id, collection, g, priority, external)),
      destroy_session: async (id) => {
        if (!(await this.homeOf(id))) return;
        await forward(id, (n) => n.destroy_session(id));
        this.sessionHomes.delete(id);
      },
    };
  }

  // ---- shutdown ----

  /** Stops taking sessions and batches, lets batches in flight finish (up to timeoutMs), unbinds, deactivates. */
  async stop(timeoutMs = 15_000): Promise<void> {
    this.shuttingDown = true;
    const deadline = Date.now() + timeoutMs;
    while (this.pool.inFlightBatches > 0 && Date.now() < deadline) await sleep(50);
    const wasMaster = this.election.role === 'master';
    this.election.stop();
    // a master that leaves removes its bindings (only if still its own), so a backup takes over at its next check
    if (wasMaster) {
      for (const b of this.masterBindings) {
        await this.mw.names.unbind(DISPATCHER_NAME, b.type, b.revision).catch((err: Error) => this.log.warn({ err: err.message }, 'unbind failed'));
      }
    }
    for (const b of this.bindings.reverse()) {
      await this.mw.names.unbind(b.name, b.type, b.revision).catch((err: Error) => this.log.warn({ name: b.name, err: err.message }, 'unbind failed'));
    }
    for (const l of this.leases.values()) l.cancel();
    this.liveness.stop();
    await this.unsubscribeLiveness?.().catch(() => undefined);
    for (const s of this.sessions.values()) s.callbacks?.close();
    // a planned departure: the others reshape at once; this node's sessions live on in their replicas
    await this.store?.node.leave().catch((err: Error) => this.log.warn({ err: err.message }, 'SSR leave failed'));
    this.log.info({ batches: this.batchesSinceStart }, 'content distributor stopped');
  }

  /** For tests and status. */
  get stats(): { processors: number; busy: number; dead: number; sessions: number; batches: number; ssr?: Record<string, number> } {
    const dead = this.pool.all().filter((p) => p.dead).length;
    const base = { processors: this.pool.size, busy: this.pool.inFlightBatches, dead, sessions: this.sessions.size, batches: this.batchesSinceStart };
    return this.store ? { ...base, ssr: { ...this.ssrCounters, ...this.store.counters } } : base;
  }
}

/** The SSR instance name of a distributor: its node id, so the master can map a session's SSR home to a node. */
export function ssrName(nodeId: number): string {
  return `cd-${nodeId}`;
}

/** The node id of an SSR instance name (ssrName), undefined for another name. */
export function nodeIdOfSsrName(name: string | undefined): number | undefined {
  const m = name === undefined ? null : /^cd-(\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The failure event answering an action (the name server, the master or the bus did not answer). */
function failed(a: ElectionAction, reason: string): ElectionEvent {
  switch (a.kind) {
    case 'resolve':
    case 'check-own':
      return { kind: 'resolve-failed', reason };
    case 'ping':
      return { kind: 'ping-failed', reason };
    case 'unbind':
      return { kind: 'unbind-failed', reason };
    case 'claim':
      return { kind: 'claim-failed', reason };
    case 'register':
      return { kind: 'register-failed', reason };
  }
}
