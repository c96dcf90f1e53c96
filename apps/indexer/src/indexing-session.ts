/**
 * One indexing session (`coreprocessing::session`): a bounded queue of batches for its collection's writer, and a
 * callback sender to the content client. process() only queues: it returns at once, and the client hears
 * "secured" once the batch is on disk, then the final status.
 *
 *   const s = new IndexingSession(7, writer, sender, { maxQueuedBatches: 64, maxPendingCallbacks: 1024 }, log);
 *   await s.process(batch);       // queued, or system_resource_error when full (retry later)
 */
import type { OperationSet } from '@esp/codecs';
import { SystemResourceError, UnknownSession, type Implementation, type coreSessionInterface } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { BatchResult } from './apply-batch';
import type { CallbackSender } from './callback-sender';
import type { CollectionWriter, WriterSession } from './collection-writer';
import type { OutboxEntry } from './session-journal';

export interface SessionLimits {
  /** Batches queued and not yet written; one more raises system_resource_error. */
  maxQueuedBatches: number;
  /** Statuses written but not yet delivered to the client; at this many, process raises system_resource_error. */
  maxPendingCallbacks: number;
}

export class IndexingSession implements Implementation<typeof coreSessionInterface>, WriterSession {
  readonly queue: OperationSet[] = [];
  /** Closed: process refuses; the session is forgotten once its callbacks are delivered. */
  closed = false;
  readonly counts = { batches: 0, completed: 0, failed: 0, lost: 0, ignored: 0 };
  private drainWaiters: (() => void)[] = [];

  constructor(
    readonly id: number,
    readonly writer: CollectionWriter,
    readonly sender: CallbackSender,
    private readonly limits: SessionLimits,
    private readonly log: Logger,
  ) {}

  get collection(): string {
    return this.writer.collection;
  }

  process(batch: OperationSet): void {
    if (this.closed) throw new UnknownSession(`indexing session ${this.id} is closed`, { session: this.id });
    if (this.queue.length >= this.limits.maxQueuedBatches) {
      throw new SystemResourceError(`indexing session ${this.id}: ${this.queue.length} batches are waiting to be written (the most it queues); retry shortly`, {
        session: this.id,
        queued: this.queue.length,
      });
    }
    if (this.sender.backlog >= this.limits.maxPendingCallbacks) {
      throw new SystemResourceError(`indexing session ${this.id}: ${this.sender.backlog} callbacks to the client are not delivered yet; retry shortly`, {
        session: this.id,
        pending_callbacks: this.sender.backlog,
      });
    }
    this.queue.push(batch);
    this.writer.kick(this);
  }

  /** Resolves once every batch queued so far is committed. */
  drained(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  committed(entries: OutboxEntry[], result: BatchResult): void {
    this.counts.batches++;
    this.counts.completed += result.completed.length;
    this.counts.failed += result.failed.length;
    this.counts.lost += result.lost.length;
    this.counts.ignored += result.ignored.length;
    if (result.ignored.length > 0) this.log.info({ ops: result.ignored.length, first: result.ignored[0] }, 'late copies of operations already final: ignored');
    this.sender.enqueue(entries);
    if (this.queue.length === 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }
}
