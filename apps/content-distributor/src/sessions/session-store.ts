import { SystemResourceError } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { hashKey, SsrError, type Artifact, type SsrNode } from '@esp/ssr';
import { retry } from '@esp/timers';
import {
  batchArtifactId,
  batchOfArtifact,
  decodeSessionArtifact,
  encodeSessionArtifact,
  sessionArtifactId,
  withBatches,
  type InFlightBatch,
  type SessionArtifact,
} from './session-artifact';

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

/** A session's writes: its own artifact's, serialized and coalesced, and the batches to remove after the next one. */
interface SessionWrites {
  chain: Promise<void>;
  queued: Promise<void> | undefined;
  /** Children to remove once a save of the session's own artifact (which then covers them) is on the buddy. */
  retired: InFlightBatch[];
  /** Whether the last save of the session's own artifact armed its timer (it had batches in flight). */
  armed: boolean;
}

/**
 * Feeding sessions in SSR (`@esp/ssr`, ack mode), as a tree on the distributor that holds them (./session-artifact):
 * the session's own artifact, and one child artifact per batch in flight, each replicated to the buddy before the
 * call that wrote it resolves. Saves of a session's own artifact are serialized and coalesced: a save asked while
 * another is on the wire is folded into the next one, which encodes the session as it is then.
 */
export class SessionStore {
  private readonly writes = new Map<number, SessionWrites>();
  private readonly now: () => number;
  /** Saves of sessions' own artifacts that reached the SSR node (coalesced ones count once), batches written and removed, and the bytes written. */
  readonly counters = { saves: 0, batchPuts: 0, batchRemoves: 0, bytes: 0, loads: 0, notAcked: 0, ssrRetries: 0 };

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

  private writesOf(id: number): SessionWrites {
    let w = this.writes.get(id);
    if (!w) this.writes.set(id, (w = { chain: Promise.resolve(), queued: undefined, retired: [], armed: false }));
    return w;
  }

  /**
   * Writes the session's own artifact as it is now (`state()` is read when the write starts), resolves once the buddy
   * holds it, and then removes the children retired before it started. Throws SystemResourceError (retryable) when
   * SSR could not take it or the buddy did not acknowledge.
   */
  save(id: number, state: () => SessionArtifact): Promise<void> {
    const entry = this.writesOf(id);
    if (entry.queued) return entry.queued;
    const p = entry.chain.then(async () => {
      entry.queued = undefined;
      const retired = entry.retired.splice(0);
      try {
        await this.put(state(), entry);
      } catch (err) {
        entry.retired.unshift(...retired);
        throw err;
      }
      // the session's artifact now says what these batches' children said (accepted ids): they can go
      await this.removeChildren(id, retired);
    });
    entry.queued = p;
    entry.chain = p.catch(() => undefined);
    return p;
  }

  /** Whether the session's artifact as last saved has its timer armed (it had batches in flight then). */
  armed(id: number): boolean {
    return this.writes.get(id)?.armed ?? false;
  }

  /**
   * Writes a batch the distributor is accepting, as a child of the session's artifact, and resolves once the buddy
   * holds it: from then on no distributor death can lose it. Throws SystemResourceError (retryable) as save does.
   */
  async putBatch(id: number, b: InFlightBatch): Promise<void> {
    this.counters.batchPuts++;
    this.counters.bytes += b.bytes.length;
    await this.retrying(id, () => this.o.node.put(batchArtifactId(id, b), b.bytes, { parentId: sessionArtifactId(id) }));
    await this.acknowledged(id);
  }

  /**
   * Batches no longer in the distributor's hands (processed, reported lost, or refused): their children are removed
   * after the next save of the session's artifact, which the caller asks for (lazily: until then a death sends them
   * once more, which is harmless).
   */
  retire(id: number, batches: readonly InFlightBatch[]): void {
    if (batches.length) this.writesOf(id).retired.push(...batches);
  }

  private async put(s: SessionArtifact, entry: SessionWrites): Promise<void> {
    const body = encodeSessionArtifact(s);
    this.counters.saves++;
    this.counters.bytes += body.length;
    const armed = s.inFlight.length > 0;
    await this.retrying(s.id, () => this.o.node.put(sessionArtifactId(s.id), body, { nextFire: armed ? this.now() + this.o.inFlightTimerMs : null }));
    entry.armed = armed;
    await this.acknowledged(s.id);
  }

  /**
   * put waits for the buddy's acknowledgement, but resolves also when it timed out: ask again, so that no batch is
   * acknowledged to the client with one copy of it.
   */
  private async acknowledged(id: number): Promise<void> {
    if (!(await this.o.node.flushReplication())) {
      this.counters.notAcked++;
      throw new SystemResourceError(`session ${id}: the session replica was not acknowledged in time; retry`, { session: id });
    }
  }

  private async removeChildren(id: number, batches: readonly InFlightBatch[]): Promise<void> {
    for (const b of batches) {
      this.counters.batchRemoves++;
      await this.o.node.remove(batchArtifactId(id, b)).catch((err: Error) => {
        // its replica stays until the session goes (remove) or is reactivated (then it is sent once more: harmless)
        this.o.log.debug({ session: id, first: b.first, err: err.message }, 'batch artifact not removed');
      });
    }
  }

  /**
   * The session with its batches in flight: active here, or reactivated from a replica / migrated from another
   * instance (2.13), its children with it (tree activation).
   */
  async load(id: number): Promise<SessionArtifact | undefined> {
    this.counters.loads++;
    const a: Artifact | undefined = await this.retrying(id, () => this.o.node.get(sessionArtifactId(id)));
    if (!a) return undefined;
    const children = await this.o.node.children(sessionArtifactId(id));
    return withBatches(
      decodeSessionArtifact(a.body),
      children.flatMap((c) => batchOfArtifact(id, c.id, c.body) ?? []),
    );
  }

  private async retrying<T>(id: number, op: () => Promise<T>): Promise<T> {
    try {
      return await retry(op, {
        deadlineMs: this.o.retryMs ?? 3000,
        initialMs: 20,
        maxMs: 250,
        jitter: true,
        retryable: (err) => err instanceof SsrError && err.retryable,
        onRetry: () => this.counters.ssrRetries++,
      });
    } catch (err) {
      throw toRetryable(err, id);
    }
  }

  async remove(id: number): Promise<void> {
    const w = this.writes.get(id);
    this.writes.delete(id);
    await w?.chain;
    try {
      // children first: a child whose parent is gone would only wait for SSR's orphan check
      for (const c of await this.o.node.children(sessionArtifactId(id))) await this.o.node.remove(c.id);
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
