import {
  AlreadyBound,
  DISPATCHER_NAME,
  dispatcherNodeInterface,
  dispatcherNodeName,
  INTERNAL_PORT_OFFSET,
  masterDispatcherInterface,
  operationCallbackInterface,
  procserverHandlerInterface,
  sessionFactoryInterface,
  type Aor,
  type InterfaceDef,
} from '@esp/interfaces';
import { CallTimeout } from '@esp/middleware';
import { livenessSubject } from '@esp/ppp';
import { sleep, systemClock } from '@esp/timers';
import { fixedCollections } from './collection-holder';
import { Processors } from './dispatch/processors';
import { ElectionDriver } from './election-driver';
import type { ElectionRole } from './election';
import { DispatcherHolder } from './master/dispatcher-holder';
import { SessionPlacement } from './master/session-placement';
import { nodeLoad } from './node-load';
import type { ContentDistributorOptions } from './options';
import { bindNodeObject, type NodeBinding } from './roles/node-binding';
import { dispatcherNode } from './roles/dispatcher-node';
import { masterDispatcher } from './roles/master-dispatcher';
import { procserverHandler } from './roles/procserver-handler';
import { sessionFactory } from './roles/session-factory';
import { SessionDirectory } from './sessions/session-directory';
import { SessionHost } from './sessions/session-host';
import { DEFAULT_QUOTA_LIMITS, DEFAULT_SESSION_IDLE_MS, SessionQuota } from './sessions/session-quota';
import { nodeIdOfSsrName } from './sessions/session-replication';

export type { ContentDistributorOptions, SessionReplicationOptions } from './options';
export { nodeIdOfSsrName, ssrName } from './sessions/session-replication';

interface Parts {
  o: ContentDistributorOptions;
  port: number;
  sessions: SessionDirectory;
  quota: SessionQuota;
  processors: Processors;
  host: SessionHost;
  election: ElectionDriver;
  bindings: NodeBinding[];
  unsubscribeLiveness: () => Promise<void>;
}

/**
 * A content distributor (MS-FSDPD 3.3 and 3.5 server side, MS-FSCDFT 3), built from its parts in dependency order:
 * the feeding sessions (./sessions), the item processors and dispatch (./dispatch), the master's state (./master),
 * the election (./election-driver), and the middleware objects that serve them (./roles). Several run; the election
 * makes one master, the others backups that __ping it and take over when it stops answering.
 *
 *   const cd = await ContentDistributor.start({ mw, log, nodeId: 0, basePort: 13000, collections: ['news'] });
 *   await cd.stop();
 */
export class ContentDistributor {
  private constructor(private readonly p: Parts) {}

  get role(): ElectionRole {
    return this.p.election.role;
  }

  get port(): number {
    return this.p.port;
  }

  static async start(o: ContentDistributorOptions): Promise<ContentDistributor> {
    const { mw, log, nodeId } = o;
    const clock = o.clock ?? systemClock;
    const port = o.basePort + INTERNAL_PORT_OFFSET;
    const nodeName = dispatcherNodeName(nodeId);
    const aor = (iface: InterfaceDef, objectId: string, name: string): Aor => ({ name, object_id: objectId, host: mw.host, port, interface_type: iface.type, interface_version: iface.version });
    // An AOR is (host, port, object id). Over TCP two processes could not share a port; on NATS nothing stops them,
    // so refuse to start when our own address already answers (same host, base port and node id). Nobody there fails
    // at once (no responders); a call that times out reached a process that holds the address but is slow to answer.
    const twin = mw.proxy(dispatcherNodeInterface, aor(dispatcherNodeInterface, `dispatcher_node_${nodeId}`, nodeName), { timeoutMs: 2000 });
    if (await twin.__ping().then(() => true, (err: unknown) => err instanceof CallTimeout)) {
      throw new AlreadyBound(`another content distributor already serves node id ${nodeId} on ${mw.host}, base port ${o.basePort}; give this one another --node-id or --base-port`);
    }

    const collections = o.collectionHolder ?? fixedCollections(o.collections);
    const quota = new SessionQuota(o.quota ?? DEFAULT_QUOTA_LIMITS);
    const sessions = new SessionDirectory(mw, log, quota);
    const processors = new Processors({ mw, log, clock, owners: sessions, leaseMs: o.leaseMs, heartbeatMs: o.heartbeatMs, liveness: o.liveness, goneProbe: o.goneProbe, restart: o.onLeaseExpired });
    const unsubscribeLiveness = await mw.bus.subscribe(livenessSubject(nodeId), (m) => processors.onLivenessMessage(m.data));
    const sink = await mw.activate(operationCallbackInterface, { callback: () => undefined, callbacks: () => undefined }, { object_id: `callback_sink_${nodeId}`, port, name: '' });
    const host = new SessionHost({
      mw,
      log,
      nodeId,
      basePort: o.basePort,
      collections,
      sessions,
      dispatcher: processors.dispatcher,
      callbackSink: sink.aor,
      replication: o.sessionReplication,
      quota,
      idleMs: o.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
      clock,
    });
    await host.start();

    const load = (): number => nodeLoad(sessions.size, processors.pool);
    const local = dispatcherNode(host, sessions, load);
    const holder = new DispatcherHolder({ mw, log, nodeId, local, localLoad: load });
    const store = host.store;
    const placement = new SessionPlacement({ log, holder, holdsHere: (id) => sessions.has(id), localLoad: load, ssrHome: store ? (id) => nodeIdOfSsrName(store.homeOf(id)) : undefined });
    const election = new ElectionDriver({
      mw,
      log,
      clock,
      nodeId,
      sessionFactory: aor(sessionFactoryInterface, `session_factory_${nodeId}`, DISPATCHER_NAME),
      masterDispatcher: aor(masterDispatcherInterface, `master_dispatcher_${nodeId}`, DISPATCHER_NAME),
      registerSelf: () => holder.register(nodeId),
      ...(o.pingIntervalMs !== undefined ? { pingIntervalMs: o.pingIntervalMs } : {}),
      ...(o.checkMasterMs !== undefined ? { checkMasterMs: o.checkMasterMs } : {}),
      ...(o.pingTimeoutMs !== undefined ? { pingTimeoutMs: o.pingTimeoutMs } : {}),
    });

    // MS-FSCDFT 3.3.3 order (session_factory, then master_dispatcher), then the node objects
    const refuse = () => election.refuse();
    await mw.activate(sessionFactoryInterface, sessionFactory(placement), { object_id: `session_factory_${nodeId}`, port, name: DISPATCHER_NAME, refuse });
    await mw.activate(masterDispatcherInterface, masterDispatcher(holder, log), { object_id: `master_dispatcher_${nodeId}`, port, name: DISPATCHER_NAME, refuse });
    const dn = await mw.activate(dispatcherNodeInterface, local, { object_id: `dispatcher_node_${nodeId}`, port, name: nodeName });
    const ph = await mw.activate(procserverHandlerInterface, procserverHandler(processors), { object_id: `procserver_handler_${nodeId}`, port, name: nodeName });
    // the node's own objects first (3.5.3): whoever becomes master resolves them at register_dispatcher
    const bindings = [await bindNodeObject(mw, log, nodeName, dispatcherNodeInterface, dn.aor), await bindNodeObject(mw, log, nodeName, procserverHandlerInterface, ph.aor)];
    const role = await election.start();
    log.info({ node: nodeId, port, role, collections: collections.names() }, `content distributor started as ${role}`);
    return new ContentDistributor({ o, port, sessions, quota, processors, host, election, bindings, unsubscribeLiveness });
  }

  /** Stops taking sessions and batches, lets batches in flight finish (up to timeoutMs), unbinds, deactivates. */
  async stop(timeoutMs = 15_000): Promise<void> {
    const { o, processors, host, election, bindings } = this.p;
    host.beginStop();
    const deadline = Date.now() + timeoutMs;
    while (processors.pool.inFlightBatches > 0 && Date.now() < deadline) await sleep(50);
    await election.stop();
    for (const b of [...bindings].reverse()) {
      await o.mw.names.unbind(b.name, b.type, b.revision).catch((err: Error) => o.log.warn({ name: b.name, err: err.message }, 'unbind failed'));
    }
    processors.stop();
    await this.p.unsubscribeLiveness().catch(() => undefined);
    await host.stop();
    o.log.info({ batches: host.intake.accepted }, 'content distributor stopped');
  }

  /** For tests and status. */
  get stats(): { processors: number; busy: number; dead: number; sessions: number; batches: number; reaped: number; refused: Record<string, number>; ssr?: Record<string, number> } {
    const { processors, sessions, host, quota } = this.p;
    const pool = processors.pool;
    const dead = pool.all().filter((e) => e.dead).length;
    const refused = Object.fromEntries(quota.quota.refusals);
    const base = { processors: pool.size, busy: pool.inFlightBatches, dead, sessions: sessions.size, batches: host.intake.accepted, reaped: host.reaper?.reaped ?? 0, refused };
    return host.store ? { ...base, ssr: { reactivated: host.reactivated, ...host.redispatchCounters, ...host.store.counters } } : base;
  }
}
