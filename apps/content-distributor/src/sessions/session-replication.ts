import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { NatsSsrTransport, SsrNode, type Artifact } from '@esp/ssr';
import { SessionStore } from './session-store';

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

/** The SSR instance name of a distributor: its node id, so the master can map a session's SSR home to a node. */
export function ssrName(nodeId: number): string {
  return `cd-${nodeId}`;
}

/** The node id of an SSR instance name (ssrName), undefined for another name. */
export function nodeIdOfSsrName(name: string | undefined): number | undefined {
  const m = name === undefined ? null : /^cd-(\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/**
 * The session store of a distributor on its own SSR instance, in ack mode: a batch is acknowledged to the client only
 * once the session artifact holding it is on the buddy (docs/architecture/session-replication.md). Not started:
 * `store.node.start()` joins the cluster.
 */
export function createSessionStore(mw: Middleware, log: Logger, nodeId: number, o: SessionReplicationOptions, onFire: (a: Artifact) => Promise<void>): SessionStore {
  const ssrLog = log.child({ component: 'ssr' });
  const node = new SsrNode({
    name: ssrName(nodeId),
    transport: new NatsSsrTransport(mw.bus, o.cluster ?? 'feeding', ssrLog),
    log: ssrLog,
    waitForAck: true,
    ...(o.heartbeatMs !== undefined ? { heartbeatMs: o.heartbeatMs } : {}),
    ...(o.failAfterMs !== undefined ? { failAfterMs: o.failAfterMs } : {}),
    onFire,
  });
  // an outage of our own bus silences everyone: nobody leaves the view for it (sessions stay where they are)
  mw.connection.on({ down: () => node.holdMembership(), up: () => node.releaseMembership() });
  return new SessionStore({ node, log: ssrLog, inFlightTimerMs: o.inFlightTimerMs ?? 10_000 });
}
