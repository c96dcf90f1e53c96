import type { Logger } from '@esp/logging';
import { IdleReaper, type Clock } from '@esp/timers';
import type { SessionDirectory } from './session-directory';
import type { SessionQuota } from './session-quota';

export interface SessionReaperOptions {
  /** No call and no callback taken by the client for this long: the session is destroyed (ms). */
  idleMs: number;
  clock?: Clock;
  sessions: SessionDirectory;
  quota?: SessionQuota;
  log: Logger;
  /** Destroys the session as the distributor itself (its indexing session closed, its replica removed). */
  destroy: (id: number) => Promise<void>;
  stopping: () => boolean;
}

/**
 * The reaper of this node's feeding sessions whose client is gone (docs/security.md, "Quotas, reaping and gone
 * callbacks"): activity is a call on the session (the host touches it on create_session of it, process,
 * accepted_op_id) or a callback its client took (the sender's delivered count moved). A session idle for idleMs is
 * destroyed, logged with its id; its place in its client's quota is free again.
 */
export function sessionReaper(o: SessionReaperOptions): IdleReaper<number> {
  return new IdleReaper<number>({
    idleMs: o.idleMs,
    clock: o.clock,
    progress: (id) => o.sessions.get(id)?.callbacks?.delivered,
    reap: async (id, idleFor) => {
      const s = o.sessions.get(id);
      if (!s || o.stopping()) return;
      o.log.warn({ session: id, collection: s.collection, client: o.quota?.clientOf(id), idle_ms: idleFor }, 'session reaped: no call and no callback taken for the idle time');
      await o.destroy(id);
    },
    onError: (id, err) => o.log.warn({ session: id, err: (err as Error).message }, 'idle session not reaped; trying again later'),
  });
}
