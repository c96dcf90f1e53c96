import type { OperationSet, OperationStatusInfo } from '@esp/codecs';
import { coreSessionInterface, type Aor, type ProxyOf } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { retry } from '@esp/timers';
import type { BatchOwners } from '../dispatch/dispatch-target';
import type { InFlightOperation } from '../dispatch/processor-pool';
import type { FeedingSession } from './feeding-session';
import { lostOperationSets } from './lost-operations';
import type { SessionQuota } from './session-quota';

/**
 * The feeding sessions open on this node, by id, and what becomes of their batches once dispatched: a processed
 * report goes to the session's client, lost operations go to its indexing session (MS-FSDPD 3.5.5).
 */
export class SessionDirectory implements BatchOwners {
  private readonly sessions = new Map<number, FeedingSession>();
  private readonly coreSessionProxies = new Map<string, ProxyOf<typeof coreSessionInterface>>();

  constructor(
    private readonly mw: Middleware,
    private readonly log: Logger,
    /** Bytes in flight per client: given back once a batch is processed or lost. */
    private readonly quota?: SessionQuota,
  ) {}

  get(id: number): FeedingSession | undefined {
    return this.sessions.get(id);
  }

  has(id: number): boolean {
    return this.sessions.has(id);
  }

  add(s: FeedingSession): void {
    this.sessions.set(s.id, s);
  }

  /** Removes the session if it is this one. */
  remove(s: FeedingSession): void {
    if (this.sessions.get(s.id) === s) this.sessions.delete(s.id);
  }

  get size(): number {
    return this.sessions.size;
  }

  ids(): number[] {
    return [...this.sessions.keys()];
  }

  all(): FeedingSession[] {
    return [...this.sessions.values()];
  }

  target(sessionId: number): FeedingSession | undefined {
    return this.sessions.get(sessionId);
  }

  processed(sessionId: number, status: OperationStatusInfo, done: readonly InFlightOperation[]): void {
    const session = this.sessions.get(sessionId);
    this.quota?.settled(sessionId, status.first_op_id, status.last_op_id);
    if (session && done.length) session.forgetInFlight(status.first_op_id, status.last_op_id);
    session?.callbacks?.enqueue([status]);
  }

  /** Sends failed_operation (lost) sets to the indexing sessions; retried until the indexer takes them. */
  async lost(ops: readonly InFlightOperation[], why: string): Promise<void> {
    if (!ops.length) return;
    for (const [sessionId, set] of lostOperationSets(ops)) {
      this.quota?.lost(sessionId, set.operations.map((o) => o.id));
      const session = this.sessions.get(sessionId);
      if (!session) {
        this.log.error({ session: sessionId, ops: set.operations.length }, 'lost operations of a session that no longer exists');
        continue;
      }
      this.log.warn({ session: sessionId, ops: set.operations.length, first: set.operations[0]?.id, why }, 'reporting operations lost');
      await this.sendToIndexer(session, set);
      const ids = set.operations.map((o) => o.id);
      if (ids.length) session.forgetInFlight(Math.min(...ids), Math.max(...ids));
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
}
