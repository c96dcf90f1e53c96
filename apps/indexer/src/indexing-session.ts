/**
 * One indexing session (`coreprocessing::session`): a bounded queue of batches for its collection's writer, and a
 * callback sender to the content client. process() resolves once its batch is committed (fsynced: the writer's first
 * phase, documents and decisions), so the item processor's `processed` means the batch is durable here: a crash of the
 * indexer before the commit fails the call, and the batch is not lost silently. The client hears "secured", then the
 * final status, once the documents are searchable too (the writer's second phase).
 *
 *   const s = new IndexingSession(7, writer, sender, { maxQueuedBatches: 64, maxPendingCallbacks: 1024 }, log);
 *   await s.process(batch);       // queued, or system_resource_error when full (retry later)
 */
import type { OperationSet } from '@esp/codecs';
import { BatchNotAuthorized, SystemResourceError, UnknownSession, type BatchSigner, type Implementation, type coreSessionInterface } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { BatchResult } from './apply-batch';
import type { CallbackSender } from '@esp/content-client';
import type { CollectionWriter, WriterSession } from './collection-writer';
import { ContentResolver } from './content-resolver';
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
  private enqueued = 0;
  private writtenCount = 0;
  private reported = 0;
  private commitWaiters: { seq: number; resolve: () => void }[] = [];

  constructor(
    readonly id: number,
    readonly writer: CollectionWriter,
    readonly sender: CallbackSender<OutboxEntry>,
    private readonly limits: SessionLimits,
    private readonly log: Logger,
    /** Fetches content that came by reference (claim check); without it, references are stored as they are. */
    private readonly content?: ContentResolver,
    /** With the batch key: a batch is taken only with the distributor's token for it (batch-token.ts). */
    private readonly signer?: BatchSigner,
  ) {}

  get collection(): string {
    return this.writer.collection;
  }

  process(batch: OperationSet, batchToken?: string): Promise<void> {
    this.authorize(batch, batchToken);
    this.admit();
    if (this.content && ContentResolver.needed(batch)) return this.processReferenced(batch, this.content);
    return this.enqueue(batch);
  }

  /** A batch with content by reference: fetched first, queued then, its objects deleted once it is durable. */
  private async processReferenced(batch: OperationSet, content: ContentResolver): Promise<void> {
    const resolved = await content.resolve(batch, this.id);
    this.admit();
    await this.enqueue(resolved.batch);
    resolved.release();
  }

  /** Refuses a batch that the distributor did not dispatch, as it is, to the caller (nothing of it is written). */
  private authorize(batch: OperationSet, batchToken: string | undefined): void {
    if (!this.signer || this.signer.verify(this.id, this.collection, batch, batchToken)) return;
    const ops = batch.operations;
    const data = { session: this.id, ops: ops.length, first: ops[0]?.id, token: batchToken === undefined ? 'none' : 'wrong' };
    this.log.warn(data, 'batch refused: no valid batch token (not dispatched to its caller, or the distributors and the indexer hold different batch keys)');
    throw new BatchNotAuthorized(`indexing session ${this.id}: the batch has ${batchToken === undefined ? 'no' : 'a wrong'} batch token; only the item processor it was dispatched to may write it`, data);
  }

  /** Refuses a batch when the session is closed or full (the caller retries later). */
  private admit(): void {
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
  }

  private enqueue(batch: OperationSet): Promise<void> {
    this.queue.push(batch);
    const seq = ++this.enqueued;
    const written = new Promise<void>((resolve) => this.commitWaiters.push({ seq, resolve }));
    this.writer.kick(this);
    return written;
  }

  /** Batches taken by process() whose statuses are not handed to the sender yet (queued, or owed a second phase). */
  get unreported(): number {
    return this.enqueued - this.reported;
  }

  /** Resolves once every batch queued so far is committed and its statuses handed to the sender. */
  drained(): Promise<void> {
    if (this.reported === this.enqueued) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** A batch is durable and decided (the writer's first phase): its process() call may answer. */
  written(_result: BatchResult): void {
    this.writtenCount++;
    // batches are written in the order they were queued
    const done = this.commitWaiters.filter((w) => w.seq <= this.writtenCount);
    this.commitWaiters = this.commitWaiters.filter((w) => w.seq > this.writtenCount);
    for (const w of done) w.resolve();
  }

  /** A batch's statuses may go to the client (its documents are searchable). */
  committed(entries: OutboxEntry[], result: BatchResult): void {
    this.counts.batches++;
    this.counts.completed += result.completed.length;
    this.counts.failed += result.failed.length;
    this.counts.lost += result.lost.length;
    this.counts.ignored += result.ignored.length;
    if (result.ignored.length > 0) this.log.info({ ops: result.ignored.length, first: result.ignored[0] }, 'late copies of operations already final: ignored');
    this.sender.enqueue(entries);
    this.reported++;
    if (this.reported === this.enqueued) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }
}
