/**
 * The single writer of one collection: drains the queues of its sessions with group commit (several batches,
 * possibly of several sessions, in one SQLite transaction, one fsync), then hands each session the statuses the
 * transaction recorded in the outbox. Sessions are served round robin, one batch each per turn, so a busy session
 * does not starve the others.
 *
 *   const writer = new CollectionWriter('news', db, docs, journal, log);
 *   session.queue.push(batch); writer.kick(session);
 *   await writer.idle();              // every queued batch is committed, searchable and its statuses handed over
 *
 * In two phases (`twoPhase`, the indexer's default). Phase 1, the batch's transaction: documents, finals and floor,
 * and its statuses in the outbox, held; its commit makes the batch durable and decided, and the session may answer
 * the item processor (`written`). Phase 2, the next transaction, right after: the full-text entries of the documents
 * phase 1 wrote (several batches' at once when they queue up) and the release of their statuses, which then go to
 * the client (`committed`): "completed" still means searchable. The item processor's call waits for half the work
 * it did (FTS5 is about half of a batch's write), and so holds its processor that much shorter. A crash between the
 * phases leaves documents noted in fts_pending and statuses held: `recover` finishes both at start.
 *
 * If a transaction fails as a whole (disk full, I/O error), nothing of it happened: in phase 1 its batches go back to
 * the head of their queues, in phase 2 its entries stay owed, and it is retried with backoff; meanwhile queues fill
 * up and process() pushes back with system_resource_error. Nothing is reported that is not on disk.
 */
import type { OperationSet } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import { applyBatch, type BatchResult } from './apply-batch';
import type { Db, DocumentStore } from './collection-store';
import type { OutboxEntry, SessionJournal } from './session-journal';

/** What the writer needs of a session. */
export interface WriterSession {
  readonly id: number;
  readonly queue: OperationSet[];
  /** Called once a batch of this session is durable and decided (phase 1 committed); its statuses are not out yet. */
  written?(result: BatchResult): void;
  /** Called with the statuses a batch recorded, in order, once they may go to the client (its documents searchable). */
  committed(entries: OutboxEntry[], result: BatchResult): void;
}

export interface WriterOptions {
  /** Most batches in one transaction (default 32). */
  maxBatchesPerCommit?: number;
  /** Full-text entries in a second transaction, statuses held until then (default false; the indexer sets true). */
  twoPhase?: boolean;
  /** Backoff after a failed transaction (ms, default 200 doubling to 10 000). */
  retryMinMs?: number;
  retryMaxMs?: number;
}

/** Batches whose second phase may wait while others wait for their first. */
const MAX_OWED_BATCHES = 8;

/** How long delivered statuses may wait for a write to take their delete along (ms). */
const ACK_FLUSH_MS = 250;

export class CollectionWriter {
  private readonly waiting = new Set<WriterSession>();
  private scheduled = false;
  private holds = 0;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];
  private readonly acks: number[] = [];
  private ackTimer: NodeJS.Timeout | undefined;
  private readonly maxBatches: number;
  private readonly twoPhase: boolean;
  /** Batches written in phase 1 whose full-text entries and statuses phase 2 owes, in order. */
  private owed: { session: WriterSession; entries: OutboxEntry[]; result: BatchResult }[] = [];
  private indexScheduled = false;
  private indexTimer: NodeJS.Timeout | undefined;
  private indexFailures = 0;
  /** Transactions committed (both phases) and batches written since start. */
  readonly stats = { commits: 0, batches: 0, indexed: 0 };

  constructor(
    readonly collection: string,
    readonly db: Db,
    readonly docs: DocumentStore,
    readonly journal: SessionJournal,
    private readonly log: Logger,
    private readonly opts: WriterOptions = {},
  ) {
    this.maxBatches = opts.maxBatchesPerCommit ?? 32;
    this.twoPhase = opts.twoPhase ?? false;
    docs.deferIndex = this.twoPhase;
  }

  /**
   * At start, before any session is served: the full-text entries a crash left owed (fts_pending) and the release of
   * the statuses held for them. Returns what it finished.
   */
  recover(): { documents: number; statuses: number } {
    return this.db.transaction(() => ({ documents: this.docs.indexPending(), statuses: this.journal.releaseAll() }))();
  }

  /** `session` has queued batches. */
  kick(session: WriterSession): void {
    if (session.queue.length === 0) return;
    this.waiting.add(session);
    this.schedule();
  }

  /** Holds writes (queues keep filling) until the returned function is called. For maintenance and tests. */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.schedule();
    };
  }

  /** Resolves once nothing is queued or owed (held writes count as queued). */
  idle(): Promise<void> {
    if (this.waiting.size === 0 && this.owed.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * A status was delivered: delete it from the outbox, with the next write's transaction, or in one of its own once
   * no write has come for ACK_FLUSH_MS. Not sooner: a transaction of its own is a second commit and fsync, which at
   * 10 ms cost the indexer as much time as its writes did. A crash before the delete means the status is delivered
   * again after the restart, which the callback contract allows.
   */
  ack(seq: number): void {
    this.acks.push(seq);
    this.ackTimer ??= setTimeout(() => this.flushAcks(), ACK_FLUSH_MS);
  }

  flushAcks(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    const seqs = this.acks.splice(0);
    try {
      this.journal.ack(seqs);
    } catch (err) {
      // harmless: the statuses stay in the outbox and would be delivered again after a restart
      this.log.warn({ err: (err as Error).message, count: seqs.length }, 'could not delete delivered statuses from the outbox');
    }
  }

  /** Stops timers (after idle()); the database is closed by the owner. */
  stop(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.indexTimer) clearTimeout(this.indexTimer);
    this.indexTimer = undefined;
    this.flushAcks();
  }

  private schedule(): void {
    if (this.scheduled || this.holds > 0 || this.retryTimer || this.waiting.size === 0) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private takeGroup(): { session: WriterSession; batch: OperationSet }[] {
    const group: { session: WriterSession; batch: OperationSet }[] = [];
    while (group.length < this.maxBatches && this.waiting.size > 0) {
      for (const session of [...this.waiting]) {
        const batch = session.queue.shift();
        if (batch) group.push({ session, batch });
        if (session.queue.length === 0) this.waiting.delete(session);
        if (group.length >= this.maxBatches) break;
      }
    }
    return group;
  }

  private drain(): void {
    this.scheduled = false;
    if (this.holds > 0) return;
    const group = this.takeGroup();
    if (group.length > 0) this.write(group);
    // the next batch's first phase before this one's second: an item processor waits for the first only
    if (this.waiting.size > 0) this.schedule();
    this.scheduleIndex();
    this.wakeIdle();
  }

  private wakeIdle(): void {
    if (this.waiting.size > 0 || this.owed.length > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private scheduleIndex(): void {
    if (this.indexScheduled || this.indexTimer || this.owed.length === 0) return;
    this.indexScheduled = true;
    setImmediate(() => this.index());
  }

  /**
   * Phase 2: the full-text entries owed and the release of their batches' statuses, in one transaction. While
   * batches wait for their first phase it gives way (their item processors wait), up to MAX_OWED_BATCHES owed.
   */
  private index(): void {
    this.indexScheduled = false;
    const owed = this.owed;
    if (owed.length === 0) return;
    if (this.waiting.size > 0 && this.holds === 0 && !this.retryTimer && owed.length < MAX_OWED_BATCHES) return; // drain schedules it again
    const t0 = performance.now();
    let documents: number;
    try {
      documents = this.db.transaction(() => {
        const n = this.docs.indexPending();
        for (const o of owed) this.journal.release(o.entries);
        return n;
      })();
    } catch (err) {
      // nothing of it happened: the entries stay owed, their statuses held
      for (const o of owed) for (const e of o.entries) e.held = true;
      this.indexTimer = this.retryLater(err, owed.length, ++this.indexFailures, 'full-text transaction failed; retrying', () => {
        this.indexTimer = undefined;
        this.scheduleIndex();
      });
      return;
    }
    this.owed = [];
    this.indexFailures = 0;
    this.stats.commits++;
    this.stats.indexed += documents;
    this.log.debug({ batches: owed.length, documents, index_ms: Math.round((performance.now() - t0) * 10) / 10 }, 'indexed');
    for (const { session, entries, result } of owed) session.committed(entries, result);
    this.wakeIdle();
  }

  /** Logs a failed transaction (either phase) and runs `again` after the backoff of its n-th failure in a row. */
  private retryLater(err: unknown, batches: number, attempt: number, what: string, again: () => void): NodeJS.Timeout {
    const wait = Math.min(this.opts.retryMaxMs ?? 10_000, (this.opts.retryMinMs ?? 200) * 2 ** Math.min(attempt - 1, 16));
    this.log.error({ err: (err as Error).message, batches, attempt, retry_in_ms: wait }, what);
    return setTimeout(again, wait);
  }

  private write(group: { session: WriterSession; batch: OperationSet }[]): void {
    const t0 = performance.now();
    const now = new Date().toISOString();
    // delivered statuses leave the outbox in this transaction: no commit (and fsync) of their own while batches flow
    const acks = this.acks.splice(0);
    let results: { session: WriterSession; entries: OutboxEntry[]; result: BatchResult }[];
    try {
      results = this.db.transaction(() => {
        this.journal.ack(acks);
        return group.map(({ session, batch }) => {
          const result = applyBatch(this.docs, this.journal, session.id, batch, now);
          const entries = result.statuses.map((s) => this.journal.append(session.id, s, this.twoPhase));
          return { session, entries, result };
        });
      })();
    } catch (err) {
      this.acks.unshift(...acks);
      // nothing of the transaction happened: put the batches back, in order, and try again later
      for (const { session, batch } of [...group].reverse()) {
        session.queue.unshift(batch);
        this.waiting.add(session);
      }
      this.retryTimer = this.retryLater(err, group.length, ++this.failures, 'index transaction failed; retrying', () => {
        this.retryTimer = undefined;
        this.schedule();
      });
      return;
    }
    this.failures = 0;
    this.stats.commits++;
    this.stats.batches += group.length;
    this.log.debug({ batches: group.length, write_ms: Math.round((performance.now() - t0) * 10) / 10 }, 'committed');
    if (!this.twoPhase) {
      for (const { session, entries, result } of results) {
        session.written?.(result);
        session.committed(entries, result);
      }
      return;
    }
    for (const r of results) {
      r.session.written?.(r.result);
      this.owed.push(r);
    }
  }
}
