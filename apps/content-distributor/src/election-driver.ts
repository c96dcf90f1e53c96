import { AlreadyBound, DISPATCHER_NAME, masterDispatcherInterface, ResolveException, sameObject, sessionFactoryInterface, type Aor } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { ObjectNotExist, ServerBusy, TransportError, type Middleware, type SystemException } from '@esp/middleware';
import type { Clock } from '@esp/timers';
import { Election, type ElectionAction, type ElectionEvent, type ElectionRole } from './election';

export interface ElectionDriverOptions {
  mw: Middleware;
  log: Logger;
  clock: Clock;
  nodeId: number;
  /** The AORs of this node's session_factory and master_dispatcher objects (bound while master). */
  sessionFactory: Aor;
  masterDispatcher: Aor;
  /** register_dispatcher(this node) on the master that this node just became. */
  registerSelf: () => Promise<void>;
  /** Check-for-master timer of a backup (MS-FSCDFT 3.4.2, default 5000 ms). */
  pingIntervalMs?: number;
  /** Check-master-status timer of the master (MS-FSCDFT 3.3.2, default 5000 ms). */
  checkMasterMs?: number;
  /** Deadline of one __ping of the master (default: the ping interval, at least 250 ms). */
  pingTimeoutMs?: number;
}

/**
 * Drives the election (./election, a pure state machine) on the bus (MS-FSCDFT 3.3.5, 3.4.3-3.4.5): resolves,
 * pings, unbinds and binds session_factory and master_dispatcher, registers with the master. session_factory and
 * master_dispatcher are activated on every node; `refuse` makes them answer only while the election admits this node.
 */
export class ElectionDriver {
  private readonly election: Election;
  /** Our master bindings (session_factory, master_dispatcher) while master: what stop() removes. */
  private masterBindings: { type: string; revision: number }[] = [];
  /** AORs of the session_factory bindings the election saw, by revision (the machine only knows revisions). */
  private readonly seen = new Map<number, Aor>();
  private readonly decided: Promise<ElectionRole>;
  private firstRole: ((role: ElectionRole) => void) | undefined;
  /** session_factory is bound to us by a claim that has not finished yet. */
  private claimBound = false;
  private claimActsAtOnce = false;

  constructor(private readonly o: ElectionDriverOptions) {
    this.election = new Election({
      clock: o.clock,
      pingIntervalMs: o.pingIntervalMs ?? 5000,
      checkMasterMs: o.checkMasterMs ?? 5000,
      perform: (a) => void this.perform(a).then((ev) => this.election.handle(ev)),
      onRole: (role, why) => this.onRole(role, why),
    });
    this.decided = new Promise<ElectionRole>((resolve) => (this.firstRole = resolve));
  }

  get role(): ElectionRole {
    return this.election.role;
  }

  /** Starts the election; resolves with the first role it settles on (master or backup). */
  start(): Promise<ElectionRole> {
    this.election.start();
    return this.decided;
  }

  /**
   * Why session_factory and master_dispatcher refuse a call now: they answer only while the election admits us as
   * master (a stale master answers object_not_exist at once). Between our bind of session_factory and the end of the
   * claim a backup that resolves us gets server_busy, not object_not_exist, or it would unbind the binding we just made.
   */
  refuse(): SystemException | undefined {
    if (this.election.admits()) return undefined;
    // session_factory is ours and the master we replace was gone: serve at once, before master_dispatcher is
    // rebound and we have registered with ourselves (what a client needs first is a session)
    if (this.claimBound && this.claimActsAtOnce) return undefined;
    // alive and (about to be) master, not acting yet: backups must not take this for a dead master
    if (this.claimBound || this.election.role === 'master') return new ServerBusy('this content distributor is checking that it is still master; retry shortly');
    return new ObjectNotExist(`content distributor ${this.o.nodeId} is not master`);
  }

  /** Stops electing; a master that leaves removes its bindings (only if still its own), so a backup takes over at its next check. */
  async stop(): Promise<void> {
    const wasMaster = this.election.role === 'master';
    this.election.stop();
    if (!wasMaster) return;
    for (const b of this.masterBindings) {
      await this.o.mw.names.unbind(DISPATCHER_NAME, b.type, b.revision).catch((err: Error) => this.o.log.warn({ err: err.message }, 'unbind failed'));
    }
  }

  private onRole(role: ElectionRole, why: string): void {
    const { log, nodeId } = this.o;
    if (role === 'master') {
      log.info({ node: nodeId, role, why, takeovers: this.election.takeovers }, 'content distributor is master');
    } else if (role === 'backup') {
      this.masterBindings = [];
      log.info({ node: nodeId, role, why, master: this.seen.get(this.election.watched?.revision ?? -1) }, 'content distributor is backup');
    } else {
      log.info({ node: nodeId, role, why }, `election: ${role}`);
    }
    if ((role === 'master' || role === 'backup') && this.firstRole) {
      this.firstRole(role);
      this.firstRole = undefined;
    }
  }

  private get deadlineMs(): number {
    return Math.max(2000, 2 * (this.o.pingIntervalMs ?? 5000));
  }

  private async perform(a: ElectionAction): Promise<ElectionEvent> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<ElectionEvent>((resolve) => {
      timer = setTimeout(() => resolve(failed(a, `no answer within ${this.deadlineMs} ms`)), this.deadlineMs);
      timer.unref?.();
    });
    try {
      const ev = await Promise.race([this.performNow(a).catch((err: unknown) => failed(a, (err as Error).message)), deadline]);
      // a ping that failed while our own connection was down, or had just come back, says nothing of the master
      const conn = this.o.mw.connection;
      if (ev.kind === 'ping-failed' && (conn.current === 'down' || conn.settling())) return { ...ev, outage: true };
      return ev;
    } finally {
      clearTimeout(timer);
    }
  }

  private async performNow(a: ElectionAction): Promise<ElectionEvent> {
    const { mw, log } = this.o;
    switch (a.kind) {
      case 'resolve':
      case 'check-own': {
        try {
          const b = await mw.names.resolve(DISPATCHER_NAME, sessionFactoryInterface.type, sessionFactoryInterface.version);
          this.seen.set(b.revision, b.aor);
          if (this.seen.size > 64) this.seen.delete(this.seen.keys().next().value as number);
          return { kind: 'resolved', binding: { revision: b.revision, own: sameObject(b.aor, this.o.sessionFactory) } };
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
        const watchMs = this.o.pingTimeoutMs ?? Math.max(250, this.o.pingIntervalMs ?? 5000);
        const timeoutMs = this.election.role === 'backup' ? watchMs : Math.max(1000, 2 * watchMs);
        try {
          await mw.proxy(sessionFactoryInterface, aor, { timeoutMs }).__ping();
          if (this.election.role === 'backup') log.debug({ master: `${aor.host}:${aor.port}/${aor.object_id}` }, 'master answered __ping');
          return { kind: 'ping-ok' };
        } catch (err) {
          return { kind: 'ping-failed', reason: (err as Error).message, gone: err instanceof ObjectNotExist, busy: err instanceof ServerBusy, outage: err instanceof TransportError };
        }
      }
      case 'unbind': {
        const r = await mw.names.unbind(DISPATCHER_NAME, sessionFactoryInterface.type, a.binding.revision);
        log.warn({ revision: a.binding.revision, removed: r.removed, stale: this.seen.get(a.binding.revision) }, 'unbound the session_factory of a master that did not answer');
        return { kind: 'unbound', removed: r.removed };
      }
      case 'claim':
        return this.claim();
      case 'register': {
        const { proxy } = await mw.names.resolveProxy(masterDispatcherInterface, DISPATCHER_NAME, { timeoutMs: this.deadlineMs });
        await proxy.register_dispatcher(this.o.nodeId);
        return { kind: 'registered' };
      }
    }
  }

  /** 3.3.3 then 3.1.3: bind session_factory (the election: create-if-absent), then master_dispatcher, then register. */
  private async claim(): Promise<ElectionEvent> {
    this.claimActsAtOnce = this.election.claimActsAtOnce;
    // The dispatcher node state is kept from any earlier time as master: an entry of a node that is gone fails fast
    // (no responders) and is dropped when used, and one that registered while this claim finishes must not be lost.
    // The backups register again when they find the new master.
    try {
      return await this.claimSteps();
    } finally {
      this.claimBound = false;
    }
  }

  private async claimSteps(): Promise<ElectionEvent> {
    const { mw } = this.o;
    let sfRevision: number;
    try {
      sfRevision = (await mw.names.bind(DISPATCHER_NAME, this.o.sessionFactory)).revision;
      this.claimBound = true;
    } catch (err) {
      if (err instanceof AlreadyBound) return { kind: 'claim-lost' };
      throw err;
    }
    const mdAor = this.o.masterDispatcher;
    // the previous master's master_dispatcher binding stays behind it: replace exactly the one we see
    let mdRevision = -1;
    for (let attempt = 0; attempt < 5 && mdRevision < 0; attempt++) {
      const held = await mw.names.resolve(DISPATCHER_NAME, masterDispatcherInterface.type, masterDispatcherInterface.version).catch((err: unknown) => {
        if (err instanceof ResolveException) return undefined;
        throw err;
      });
      if (held && !sameObject(held.aor, mdAor)) await mw.names.unbind(DISPATCHER_NAME, masterDispatcherInterface.type, held.revision);
      try {
        mdRevision = (await mw.names.bind(DISPATCHER_NAME, mdAor)).revision;
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
    await this.o.registerSelf();
    return { kind: 'claimed', revision: sfRevision };
  }
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
