import { SystemResourceError } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { hashKey, SsrError, type Artifact, type SsrNode } from '@esp/ssr';
import { backoffDelay, sleep } from '@esp/timers';
import { decodeSessionArtifact, encodeSessionArtifact, sessionArtifactId, type SessionArtifact } from './session-artifact';

export interface SessionStoreOptions {
  node: SsrNode;
  log: Logger;
  /**
   * While a session has batches in flight its artifact carries a timer this far ahead (renewed by every save): if
   * the distributor dies and no client call comes, the buddy's replica timer fires, the home reactivates the session
   * and sends the batches again (SSR 2.14).
   */
  inFlightTimerMs: number;
  /**
   * SSR answers busy / unavailable for a moment around a reshape (a distributor joining or failing): retried here
   * for this long (default 3000 ms) before the caller gets a retryable system_resource_error.
   */
  retryMs?: number;
  clock?: () => number;
}

/**
 * Feeding sessions in SSR (`@esp/ssr`, ack mode): one artifact per session on the distributor that holds it,
 * replicated to its buddy before `save` resolves. Saves of one session are serialized and coalesced: a save asked
 * while another is on the wire is folded into the next one, which encodes the session as it is then.
 */
export class SessionStore {
  private readonly writes = new Map<number, { chain: Promise<void>; queued: Promise<void> | undefined }>();
  private readonly now: () => number;
  /** Saves that reached the SSR node (coalesced ones count once) and the bytes they carried. */
  readonly counters = { saves: 0, bytes: 0, loads: 0, notAcked: 0, ssrRetries: 0 };

  constructor(private readonly o: SessionStoreOptions) {
    this.now = o.clock ?? Date.now;
  }

  get node(): SsrNode {
    return this.o.node;
  }

  /** The SSR home of a session in this instance's view (consistent hash over the live distributors), by SSR name. */
  homeOf(sessionId: number): string | undefined {
    return this.o.node.homeOf(hashKey(sessionArtifactId(sessionId)));
  }

  /**
   * Writes the session's current state (`state()` is read when the write starts) and resolves once the buddy holds
   * it. Throws SystemResourceError (retryable) when SSR could not take it or the buddy did not acknowledge.
   */
  save(id: number, state: () => SessionArtifact): Promise<void> {
    let w = this.writes.get(id);
    if (!w) this.writes.set(id, (w = { chain: Promise.resolve(), queued: undefined }));
    if (w.queued) return w.queued;
    const entry = w;
    const p = entry.chain.then(async () => {
      entry.queued = undefined;
      await this.put(state());
    });
    entry.queued = p;
    entry.chain = p.catch(() => undefined);
    return p;
  }

  private async put(s: SessionArtifact): Promise<void> {
    const body = encodeSessionArtifact(s);
    this.counters.saves++;
    this.counters.bytes += body.length;
    await this.retrying(s.id, () => this.o.node.put(sessionArtifactId(s.id), body, { nextFire: s.inFlight.length ? this.now() + this.o.inFlightTimerMs : null }));
    // put waits for the buddy's acknowledgement, but resolves also when it timed out: ask again, so that no batch is
    // acknowledged to the client with one copy of it
    if (!(await this.o.node.flushReplication())) {
      this.counters.notAcked++;
      throw new SystemResourceError(`session ${s.id}: the session replica was not acknowledged in time; retry`, { session: s.id });
    }
  }

  /** The session's artifact: active here, or reactivated from a replica / migrated from another instance (2.13). */
  async load(id: number): Promise<SessionArtifact | undefined> {
    this.counters.loads++;
    const a: Artifact | undefined = await this.retrying(id, () => this.o.node.get(sessionArtifactId(id)));
    return a ? decodeSessionArtifact(a.body) : undefined;
  }

  private async retrying<T>(id: number, op: () => Promise<T>): Promise<T> {
    const deadline = this.now() + (this.o.retryMs ?? 3000);
    for (let attempt = 0; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        if (!(err instanceof SsrError) || !err.retryable || this.now() > deadline) throw toRetryable(err, id);
        this.counters.ssrRetries++;
        await sleep(backoffDelay(attempt, { initialMs: 20, maxMs: 250, jitter: true }));
      }
    }
  }

  async remove(id: number): Promise<void> {
    const w = this.writes.get(id);
    this.writes.delete(id);
    await w?.chain;
    try {
      await this.o.node.remove(sessionArtifactId(id));
    } catch (err) {
      this.o.log.warn({ session: id, err: (err as Error).message }, 'session artifact not removed; its replica timer will find no session');
    }
  }

  /** Forgets the write chain of a session no longer held here (its artifact stays in SSR). */
  forget(id: number): void {
    this.writes.delete(id);
  }
}

/** SSR's busy / unavailable / quiescing are "retry shortly" for the client: the distributor's retryable error. */
function toRetryable(err: unknown, id: number): Error {
  if (err instanceof SsrError) return new SystemResourceError(`session ${id}: session replication ${err.code} (${err.message}); retry`, { session: id, ssr: err.code });
  return err as Error;
}
