import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { Action, encodeCheetahAhead, GuaranteeSet, OperationSet, OperationState, OperationStatusInfo, type DocumentError } from '@esp/codecs';
import {
  DISPATCHER_NAME,
  PROCESSING_ERRORS,
  PROCESSING_SUBSYSTEM,
  processingErrorName,
  ResolveException,
  sameObject,
  operationCallbackInterface,
  processingSessionInterface,
  ProcessorsBusy,
  sessionFactoryInterface,
  ShuttingDown,
  SystemResourceError,
  UnknownSession,
  type Aor,
  type ProxyOf,
} from '@esp/interfaces';
import { releaseThroughStack } from '@esp/claim-check';
import type { Logger } from '@esp/logging';
import { BadParameter, CallTimeout, ObjectNotExist, TransportError, type Middleware, type ServerObject } from '@esp/middleware';
import { backoffDelay, retry, sleep } from '@esp/timers';
import { DocumentPreparer, operationOf, PreparationFailure, type PreparedDocument } from './document-preparer';
import type { FeedDocument } from './feed-document';
import { ProcessorCredits } from './processor-credits';

/** How one document ended. */
export type DocumentOutcome =
  | { kind: 'completed'; opId: number; attempts: number }
  | { kind: 'failed'; opId: number; attempts: number; error: ErrorSummary };

export interface ErrorSummary {
  /** The error's name: a processing error's (pdf_error, document_too_large...), else its entity type. */
  name: string;
  code: number;
  type: string;
  description: string;
  subsystem: string;
  suggestedAction: string;
  processor?: string;
}

export interface FeedingClientOptions {
  mw: Middleware;
  collection: string;
  log: Logger;
  /** Operations per batch (default 100). */
  batchSize?: number;
  /** Operations sent whose final status has not arrived yet, at most (default 20 batches' worth). Bounds memory. */
  maxInFlightOps?: number;
  /**
   * A batch is closed at `batchSize` operations or at this many encoded bytes, whichever comes first (default and
   * upper bound: the connection's max_payload less room for the call's envelope).
   */
  batchBytes?: number;
  /** A document's content over this many bytes goes to the object store, a reference in its place (default 256 KiB). */
  inlineMaxBytes?: number;
  /** A document whose content is larger fails alone with document_too_large (default 100 MiB). */
  maxDocumentBytes?: number;
  /**
   * Bytes of content (inline or in the object store) a batch holds at most, so that an item processor holds no more
   * at a time (default 64 MiB; a larger document goes alone).
   */
  batchContentBytes?: number;
  /** Encoded bytes of operations without a final status, at most (default 16 batches' byte budget). Bounds memory. */
  maxInFlightBytes?: number;
  /** How often a document is resubmitted when the suggested action is limited_resubmit (default 3). */
  limitedResubmits?: number;
  /** Resubmissions of lost operations (suggested action resubmit) before giving up (default 10). */
  maxResubmits?: number;
  /** Called once per document when it reaches its final outcome. */
  onOutcome?: (docId: string, outcome: DocumentOutcome) => void;
  /**
   * Called with every status as it arrives (received, from process's reply; secured, completed, lost, from
   * callbacks), before it is applied.
   */
  onStatus?: (status: OperationStatusInfo) => void;
  timeoutMs?: number;
  /**
   * While operations await their final status, the session object is pinged this often (default 1000 ms); when its
   * distributor is gone the client fails over at once instead of waiting for the next batch.
   */
  sessionCheckMs?: number;
  /** How long a failover may look for a new master before the batch fails (default 120 s). */
  failoverTimeoutMs?: number;
  /**
   * The session's owner token: the secret sent with every create_session of this session, without which no other
   * client can open it again and take its callbacks (docs/decisions/0013-session-ownership.md). Default: 32 random
   * bytes, base64url. Give one (at least 16 characters) only to open the same session from elsewhere, a test say.
   */
  ownerToken?: string;
}

export interface FeedingStats {
  submitted: number;
  batches: number;
  received: number;
  secured: number;
  completed: number;
  failed: number;
  lost: number;
  resubmitted: number;
  inFlight: number;
  /**
   * Final statuses that arrived for an operation that already had one: counted, never applied. Callbacks are at least
   * once across a crash of the indexer (a final it had not seen acknowledged comes again), so a few follow a crash;
   * otherwise 0.
   */
  duplicateFinals: number;
  busyRetries: number;
  /** Batches sent again because the bus dropped while their call waited for its answer. */
  outageResends: number;
  /** Times the session was opened again after its distributor stopped answering (a master change). */
  failovers: number;
  /**
   * Operations sent again, same ids, after a failover: those the new session does not hold (above its
   * accepted_op_id). With session replication these are only operations whose batch was never acknowledged.
   */
  resentAfterFailover: number;
  /**
   * Of resentAfterFailover, operations whose batch the dead distributor had acknowledged. 0 with session
   * replication (the acknowledged ones went on with the session); without it, every unfinished one is sent again.
   */
  acknowledgedResent: number;
  /** Objects stored in the object store for large content, and those deleted again after their final status. */
  objectsStored: number;
  objectsDeleted: number;
}

interface PendingOp {
  doc: PreparedDocument;
  attempts: number;
  received: boolean;
  secured: boolean;
  /** The distributor answered the process call of its batch (acknowledged it). */
  acked: boolean;
}

function summarize(e: DocumentError): ErrorSummary {
  const named = e as DocumentError & { processor?: string };
  const type = (e.constructor as { cheetah?: { name?: string } }).cheetah?.name?.replace(/^cht::documentmessages::/, '') ?? 'error';
  return {
    name: (e.subsystem === PROCESSING_SUBSYSTEM ? processingErrorName(e.error_code) : undefined) ?? type,
    code: e.error_code,
    type,
    description: e.description,
    subsystem: e.subsystem,
    suggestedAction: (['resubmit', 'limited_resubmit', 'drop', 'terminate'] as const)[e.suggested_action] ?? String(e.suggested_action),
    ...(typeof named.processor === 'string' ? { processor: named.processor } : {}),
  };
}

/**
 * A content client (MS-FSCF, designed on MS-FSCDFT 3.5.4 and MS-FSDPD 2.2.11 / 2.2.35): one feeding session on the
 * master content distributor, batches with increasing operation ids, callbacks on an operation_callback object, and
 * exactly one final outcome per document. Lost operations are resubmitted as their suggested action says.
 *
 *   const client = await FeedingClient.open({ mw, collection: 'news', log });
 *   for (const doc of docs) await client.feed(doc);     // waits when too much is in flight
 *   const report = await client.drain();                 // every document has its final outcome
 */
export class FeedingClient {
  readonly sessionId: number;
  /** Proves to the distributors that this client opened session sessionId; never logged. */
  private readonly ownerToken: string;
  private session!: ProxyOf<typeof processingSessionInterface>;
  private callbackObject!: ServerObject<typeof operationCallbackInterface>;
  private nextOpId = 1;
  private readonly pending = new Map<number, PendingOp>();
  private readonly finalIds = new Set<number>();
  /**
   * Final before their `received` arrived: `received` comes in the distributor's reply to process and the finals
   * from the indexer, so a batch indexed quickly can overtake its `received`. It is counted when it comes.
   */
  private readonly receivedLate = new Set<number>();
  private buffer: PreparedDocument[] = [];
  private bufferBytes = 0;
  private bufferContentBytes = 0;
  /** Encoded bytes of the pending operations (about). */
  private pendingBytes = 0;
  private readonly preparer: DocumentPreparer;
  /** Deletions of objects whose operation has its final status, awaited by drain. */
  private readonly releases = new Set<Promise<void>>();
  /** Documents queued for resubmission but not sent yet: neither pending nor final, so drain must wait for them. */
  private requeued = 0;
  private readonly stats: FeedingStats = {
    submitted: 0,
    batches: 0,
    received: 0,
    secured: 0,
    completed: 0,
    failed: 0,
    lost: 0,
    resubmitted: 0,
    inFlight: 0,
    duplicateFinals: 0,
    busyRetries: 0,
    outageResends: 0,
    failovers: 0,
    resentAfterFailover: 0,
    acknowledgedResent: 0,
    objectsStored: 0,
    objectsDeleted: 0,
  };
  private sessionAor!: Aor;
  private watchTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private failoverQueued = false;
  /** Calls to process in flight, woken when the watch finds the session gone (a request to a killed process gets no reply). */
  private goneWaiters = new Set<(err: Error) => void>();
  private readonly outcomes = new Map<string, DocumentOutcome>();
  private waiters: (() => void)[] = [];
  private readonly credits = new ProcessorCredits();
  private sending: Promise<void> = Promise.resolve();
  private readonly batchSize: number;
  private readonly maxInFlightOps: number;
  /** Encoded bytes a batch may have: the bus's and the distributor's limit less room for the call's envelope. */
  readonly batchBytes: number;
  private readonly batchContentBytes: number;
  private readonly maxInFlightBytes: number;

  private constructor(private readonly opts: FeedingClientOptions) {
    this.sessionId = randomInt(1, 2 ** 31 - 1);
    this.ownerToken = opts.ownerToken ?? randomBytes(32).toString('base64url');
    this.batchSize = opts.batchSize ?? 100;
    this.maxInFlightOps = opts.maxInFlightOps ?? this.batchSize * 20;
    const limit = Math.min(opts.mw.maxPayload, SERVER_REQUEST_LIMIT) - ENVELOPE_ROOM;
    this.batchBytes = Math.max(MIN_BATCH_BYTES, Math.min(opts.batchBytes ?? limit, limit));
    this.batchContentBytes = opts.batchContentBytes ?? 64 * 1024 * 1024;
    this.maxInFlightBytes = opts.maxInFlightBytes ?? this.batchBytes * 16;
    this.preparer = new DocumentPreparer({
      store: () => opts.mw.blobs(),
      releaseObjects: releaseThroughStack(opts.mw),
      inlineMaxBytes: Math.min(opts.inlineMaxBytes ?? 256 * 1024, this.batchBytes - 4096),
      maxDocumentBytes: opts.maxDocumentBytes ?? 100 * 1024 * 1024,
      budgetBytes: this.batchBytes,
      objectPrefix: `feed/${this.sessionId}/${randomUUID()}`,
    });
  }

  static async open(opts: FeedingClientOptions): Promise<FeedingClient> {
    const c = new FeedingClient(opts);
    await c.connect();
    return c;
  }

  private async connect(): Promise<void> {
    const { mw } = this.opts;
    this.callbackObject = await mw.activate(
      operationCallbackInterface,
      {
        callback: (status) => this.onCallback(status),
        // several statuses in one call (the indexer's secured + completed of a batch, say): the same, in order
        callbacks: (statuses) => {
          for (const status of statuses) this.onCallback(status);
        },
      },
      { object_id: `feed-callback-${randomUUID()}`, port: 0 },
    );
    // a master in the middle of its claim answers server_busy, a distributor whose session replication is reshaping
    // system_resource_error: both say "retry shortly", and a client started with the chain should not fail for it.
    // A master that dies during the call is no reason to give up either: create_session with our id is idempotent,
    // so each attempt has a short deadline of its own (one call must not use up the whole open), an object that
    // nobody serves any more or a name bound to nobody for a moment is tried again, and each attempt resolves the
    // binding afresh, which the backup's takeover moves.
    const deadlineMs = this.opts.timeoutMs ?? 30_000;
    const aor = await retry(() => this.openSession(Math.min(deadlineMs, OPEN_ATTEMPT_MS)), {
      deadlineMs,
      initialMs: 20,
      maxMs: 500,
      jitter: true,
      retryable: (err) => (err as { retryable?: boolean }).retryable === true || err instanceof ObjectNotExist || err instanceof ResolveException,
    });
    this.useSession(aor);
    this.opts.log.info({ session: this.sessionId, collection: this.opts.collection }, 'feeding session open');
    this.watch();
  }

  /**
   * Opens (or, after a master change, opens again) session `sessionId` through whichever distributor is master now.
   * create_session with the same id is a recreate on the distributor (it returns the session where one exists,
   * MS-FSCDFT 3.5.4.3) and, unlike recreate, carries our callback, so the finals keep coming to this client. Our
   * owner token goes with it: the distributor opens an existing session again only for the client that created it.
   */
  private async openSession(timeoutMs = this.opts.timeoutMs ?? 30_000): Promise<Aor> {
    const { proxy: factory } = await this.opts.mw.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME, { timeoutMs });
    return factory.create_session(this.sessionId, this.opts.collection, this.callbackObject.aor, new GuaranteeSet({ guarantees: [] }), 0, this.ownerToken);
  }

  private useSession(aor: Aor): void {
    this.sessionAor = aor;
    this.session = this.opts.mw.proxy(processingSessionInterface, aor, { timeoutMs: this.opts.timeoutMs ?? 30_000 });
  }

  /** Pings the session while operations are pending; a session whose distributor is gone triggers a failover. */
  private watch(): void {
    const every = this.opts.sessionCheckMs ?? 1000;
    const tick = async (): Promise<void> => {
      if (this.closed) return;
      // also while a call is in flight with nothing pending: the finals of a batch can arrive before the distributor
      // has answered its process call, and a distributor killed then would leave the call waiting for its deadline
      if (this.pending.size > 0 || this.goneWaiters.size > 0) {
        const gone = await this.sessionGone();
        if (gone) {
          if (this.goneWaiters.size) {
            // a batch is being sent to the dead distributor: its call would wait for its deadline; it fails over now
            for (const w of this.goneWaiters) w(new ObjectNotExist('the session object does not answer __ping'));
          } else if (!this.failoverQueued) {
            // between batches: fail over in turn with the sends (the watch itself goes on, so a call in flight to a
            // distributor that dies meanwhile is woken too)
            this.failoverQueued = true;
            this.sending = this.sending
              .then(() => this.failoverIfGone())
              // the next batch fails over again if need be; the chain of sends must not stay rejected
              .catch((err: Error) => this.opts.log.error({ err: err.message }, 'failover failed'))
              .finally(() => (this.failoverQueued = false));
          }
        }
      }
      if (!this.closed) {
        this.watchTimer = setTimeout(() => void tick(), every);
        this.watchTimer.unref?.();
      }
    };
    this.watchTimer = setTimeout(() => void tick(), every);
    this.watchTimer.unref?.();
  }

  /**
   * Whether nobody serves our session object. A short deadline, and only no-responders counts: a ping in flight when
   * the distributor is killed must not hold the watch for long, and a slow answer is no proof of death.
   */
  private sessionGone(): Promise<boolean> {
    return this.opts.mw
      .proxy(processingSessionInterface, this.sessionAor, { timeoutMs: Math.max(250, 4 * (this.opts.sessionCheckMs ?? 1000)) })
      .__ping()
      .then(
        () => false,
        (err: unknown) => err instanceof ObjectNotExist,
      );
  }

  private async failoverIfGone(): Promise<void> {
    if (await this.sessionGone()) await this.failover('the session object does not answer', this.nextOpId);
  }

  /**
   * The highest operation id the (re-opened) session holds: a session kept in session replication went on with
   * everything its distributor accepted; a new one (no replication, or a distributor that does not know the method)
   * holds nothing, -1.
   */
  private async acceptedOpId(): Promise<number> {
    try {
      return await this.session.accepted_op_id();
    } catch (err) {
      if (isSessionGone(err)) throw err;
      this.opts.log.debug({ err: (err as Error).message }, 'accepted_op_id not answered; sending every unfinished operation again');
      return -1;
    }
  }

  /**
   * The distributor of our session is gone: open the session again through the (new) master and send again, with
   * the same operation ids and in order, every operation below `before` that has no final status. The indexer is the
   * arbiter of operation ids, so an operation that reached it before the master died is not applied twice, and each
   * ends in exactly one final status.
   */
  private async failover(reason: string, before: number): Promise<number> {
    const started = Date.now();
    // a short deadline per call: a master that dies while it handles our call must not hold the feed for the full timeout
    const aor = await retry(() => this.openSession(Math.min(this.opts.timeoutMs ?? 30_000, 3000)), {
      deadlineMs: this.opts.failoverTimeoutMs ?? 120_000,
      initialMs: 20,
      maxMs: 500,
      jitter: true,
      retryable: (err) => err instanceof ResolveException || isSessionGone(err) || (err as { retryable?: boolean }).retryable === true,
      onRetry: (err, attempt) => this.opts.log.debug({ attempt, err: (err as Error).message }, 'no master to open the session again yet'),
    });
    const same = sameObject(aor, this.sessionAor);
    this.useSession(aor);
    this.stats.failovers++;
    // what the session holds needs no copy: with session replication that is every acknowledged operation
    // (the same session object answering again: nothing was lost and nothing is sent again; the batch being sent is
    // sent again by the caller, as before)
    const accepted = same ? -1 : await this.acceptedOpId();
    const ids = same ? [] : [...this.pending.keys()].filter((id) => id < before && id > accepted).sort((a, b) => a - b);
    const acknowledged = ids.filter((id) => this.pending.get(id)?.acked).length;
    this.opts.log.warn({ session: this.sessionId, reason, same_session: same, accepted, resend: ids.length, acknowledged_resent: acknowledged, ms: Date.now() - started }, 'session opened again through the master');
    this.stats.resentAfterFailover += ids.length;
    this.stats.acknowledgedResent += acknowledged;
    const resend = ids.flatMap((id) => {
      const p = this.pending.get(id);
      return p ? [{ id, doc: p.doc }] : [];
    });
    for (const chunk of this.chunks(resend, (x) => x.doc)) {
      // an operation whose final status came while the previous chunk was being sent needs no copy
      const ops = chunk.flatMap(({ id }) => {
        const p = this.pending.get(id);
        return p ? [operationOf(id, p.doc)] : [];
      });
      if (ops.length) await this.deliver(new OperationSet({ completed_op_id: this.completedOpId, operations: ops }));
    }
    return accepted;
  }

  get snapshot(): FeedingStats {
    return { ...this.stats, inFlight: this.pending.size + this.requeued };
  }

  get results(): ReadonlyMap<string, DocumentOutcome> {
    return this.outcomes;
  }

  /**
   * Queues a document; sends a batch when one is full (batchSize operations, or its byte budget); waits while too
   * much is in flight. Large content goes to the object store first; a document over the size limit, or whose
   * content cannot be read or stored, ends at once as failed (its outcome says why) and nothing else is affected.
   */
  async feed(doc: FeedDocument): Promise<void> {
    this.stats.submitted++;
    let prepared: PreparedDocument;
    try {
      prepared = await this.preparer.prepare(doc);
    } catch (err) {
      if (!(err instanceof PreparationFailure)) throw err;
      this.failUnsent(doc.id, err);
      return;
    }
    this.stats.objectsStored += prepared.refs.length;
    if (this.buffer.length && (this.bufferBytes + prepared.bytes > this.batchBytes || this.bufferContentBytes + prepared.contentBytes > this.batchContentBytes)) await this.flush();
    this.buffer.push(prepared);
    this.bufferBytes += prepared.bytes;
    this.bufferContentBytes += prepared.contentBytes;
    if (this.buffer.length >= this.batchSize) await this.flush();
  }

  /** A document that failed before it got an operation id: its final outcome now. */
  private failUnsent(id: string, err: PreparationFailure): void {
    const known = PROCESSING_ERRORS[err.error];
    const outcome: DocumentOutcome = {
      kind: 'failed',
      opId: 0,
      attempts: 0,
      error: { name: err.error, code: known.code, type: known.entity, description: `${err.error}: ${err.message}`, subsystem: 'client', suggestedAction: 'drop' },
    };
    this.stats.failed++;
    this.outcomes.set(id, outcome);
    this.opts.onOutcome?.(id, outcome);
    this.notify();
  }

  /** Sends what is buffered. */
  async flush(): Promise<void> {
    if (!this.buffer.length) return;
    const docs = this.buffer;
    this.buffer = [];
    this.bufferBytes = 0;
    this.bufferContentBytes = 0;
    for (const chunk of this.chunks(docs, (d) => d)) {
      const bytes = chunk.reduce((n, d) => n + d.bytes, 0);
      while (this.pending.size > 0 && (this.pending.size + chunk.length > this.maxInFlightOps || this.pendingBytes + bytes > this.maxInFlightBytes)) await this.waitForProgress();
      this.sending = this.sending.then(() => this.sendBatch(chunk.map((doc) => ({ doc, attempts: 0 }))));
      await this.sending;
    }
  }

  /** Splits items into batches of at most batchSize operations, batchBytes encoded bytes and batchContentBytes. */
  private chunks<T>(items: readonly T[], docOf: (item: T) => PreparedDocument): T[][] {
    const out: T[][] = [];
    let cur: T[] = [];
    let bytes = 0;
    let content = 0;
    for (const item of items) {
      const d = docOf(item);
      if (cur.length && (cur.length >= this.batchSize || bytes + d.bytes > this.batchBytes || content + d.contentBytes > this.batchContentBytes)) {
        out.push(cur);
        cur = [];
        bytes = 0;
        content = 0;
      }
      cur.push(item);
      bytes += d.bytes;
      content += d.contentBytes;
    }
    if (cur.length) out.push(cur);
    return out;
  }

  private waitForProgress(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The highest operation id below which every operation has its final status. */
  private get completedOpId(): number {
    let min = this.nextOpId;
    for (const id of this.pending.keys()) if (id < min) min = id;
    return Math.max(0, min - 1);
  }

  private async sendBatch(items: { doc: PreparedDocument; attempts: number }[]): Promise<void> {
    const ops = items.map((item) => {
      const opId = this.nextOpId++;
      this.pending.set(opId, { doc: item.doc, attempts: item.attempts + 1, received: false, secured: false, acked: false });
      this.pendingBytes += item.doc.bytes;
      return operationOf(opId, item.doc);
    });
    const batch = new OperationSet({ completed_op_id: this.completedOpId, operations: ops });
    try {
      await this.deliver(batch);
    } catch (err) {
      // not accepted and not retryable: each operation ends here, failed with the reason
      this.opts.log.error({ err: (err as Error).message, ops: ops.length }, 'batch refused');
      for (const op of ops) {
        const p = this.pending.get(op.id);
        if (!p) continue;
        this.pending.delete(op.id);
        this.pendingBytes -= p.doc.bytes;
        this.finish(op.id, p, {
          kind: 'failed',
          opId: op.id,
          attempts: p.attempts,
          error: { name: (err as Error).name, code: -1, type: (err as Error).name, description: (err as Error).message, subsystem: 'client', suggestedAction: 'drop' },
        });
      }
    }
  }

  /** Sends one batch until the session takes it: retries while busy, fails over when its distributor is gone. */
  private async deliver(batch: OperationSet): Promise<void> {
    // encoded now, while it may still wait for a free processor below, not once one is free: the processor waits then
    encodeCheetahAhead(batch);
    const first = batch.operations[0]?.id ?? this.nextOpId;
    const last = batch.operations[batch.operations.length - 1]?.id ?? first;
    // a call that ended without an answer (timed out, or cut by a bus outage) may have been taken: a copy sent again is
    // then refused as already accepted, which acknowledges it
    let mayBeTaken = false;
    for (let attempt = 0; ; attempt++) {
      let wake: ((err: Error) => void) | undefined;
      let mark = 0;
      try {
        await this.credits.ready();
        mark = this.credits.mark();
        const gone = new Promise<never>((_, reject) => {
          wake = reject;
          this.goneWaiters.add(reject);
        });
        const statuses = await Promise.race([this.session.process(batch), gone]);
        this.credits.taken();
        this.acknowledge(batch);
        // the batch's received (processing session 5.2) comes in the reply, applied as a callback would be
        for (const status of statuses) this.onCallback(status);
        return;
      } catch (err) {
        if (wake) this.goneWaiters.delete(wake);
        if (mayBeTaken && err instanceof BadParameter && typeof err.data['last_accepted'] === 'number' && err.data['last_accepted'] >= last) {
          // the call that timed out was taken after all; its reply, which carried the received status, is lost
          this.acknowledge(batch);
          this.onCallback(new OperationStatusInfo({ first_op_id: first, last_op_id: last, state: OperationState.received, subsystem: 'processing', errors: [], warnings: [] }));
          return;
        }
        if (err instanceof TransportError && err.data['in_flight'] === true) {
          // the bus dropped under the call: the same batch goes again once it is back
          mayBeTaken = true;
          this.stats.outageResends++;
          this.opts.log.info({ session: this.sessionId, first, last }, 'batch call cut by a bus outage; sending it again after the reconnect');
          await this.opts.mw.connection.whenUp();
          continue;
        }
        if (isSessionGone(err)) {
          // a distributor gone while it had the call may have taken the batch first
          mayBeTaken = err instanceof CallTimeout || (err as ObjectNotExist).data?.['in_flight'] === true;
          const accepted = await this.failover((err as Error).message, first);
          if (accepted >= last) {
            // the dead distributor had accepted this batch into the replicated session before its answer was lost
            this.acknowledge(batch);
            return;
          }
          continue;
        }
        const retryable = err instanceof ProcessorsBusy || err instanceof SystemResourceError || err instanceof ShuttingDown || (err as { retryable?: boolean }).retryable === true;
        if (retryable && attempt < 10_000) {
          this.stats.busyRetries++;
          // processors_busy lasts until a processor reports its batch: the next attempt waits for that (credits.ready,
          // at most 50 ms); anything else (a distributor shutting down, a resource error) backs off further
          if (err instanceof ProcessorsBusy) this.credits.busy(mark);
          else await sleep(backoffDelay(attempt, { initialMs: 10, maxMs: 1000, jitter: true }));
          continue;
        }
        throw err;
      } finally {
        if (wake) this.goneWaiters.delete(wake);
      }
    }
  }

  private acknowledge(batch: OperationSet): void {
    this.stats.batches++;
    for (const op of batch.operations) {
      const p = this.pending.get(op.id);
      if (p) p.acked = true;
    }
  }

  private finish(opId: number, p: PendingOp, outcome: DocumentOutcome): void {
    this.finalIds.add(opId);
    this.release(p.doc);
    if (outcome.kind === 'completed') this.stats.completed++;
    else this.stats.failed++;
    this.outcomes.set(p.doc.id, outcome);
    this.opts.onOutcome?.(p.doc.id, outcome);
    this.notify();
  }

  /** A final status for an operation id: exactly once; a repeat (a retried callback) is counted, not applied. */
  private takeFinal(opId: number): PendingOp | undefined {
    const p = this.pending.get(opId);
    if (!p) {
      if (this.finalIds.has(opId)) this.stats.duplicateFinals++;
      return undefined;
    }
    this.pending.delete(opId);
    this.pendingBytes -= p.doc.bytes;
    if (!p.received) this.receivedLate.add(opId);
    return p;
  }

  /** The document has its final status: its objects in the object store go (a failure is logged; the TTL is the backstop). */
  private release(doc: PreparedDocument): void {
    if (!doc.refs.length) return;
    const p = this.preparer.release(doc.refs).then(
      () => {
        this.stats.objectsDeleted += doc.refs.length;
      },
      (err: Error) => this.opts.log.warn({ doc: doc.id, objects: doc.refs.map((r) => r.name), err: err.message }, 'deleting the stored content failed; the bucket TTL removes it'),
    );
    this.releases.add(p);
    void p.finally(() => this.releases.delete(p));
  }

  private resubmit(items: { doc: PreparedDocument; attempts: number }[]): void {
    if (!items.length) return;
    this.stats.resubmitted += items.length;
    this.requeued += items.length;
    this.sending = this.sending.then(async () => {
      for (const chunk of this.chunks(items, (i) => i.doc)) {
        this.requeued -= chunk.length;
        await this.sendBatch(chunk);
      }
    });
  }

  private onCallback(status: OperationStatusInfo): void {
    this.opts.onStatus?.(status);
    const { first_op_id: first, last_op_id: last, state, subsystem } = status;
    const errorsByOp = new Map<number, DocumentError>();
    for (const e of status.errors) errorsByOp.set(e.operation_id, e);
    if (state === OperationState.received) {
      for (let id = first; id <= last; id++) {
        const p = this.pending.get(id);
        if (p && !p.received) {
          p.received = true;
          this.stats.received++;
        } else if (!p && this.receivedLate.delete(id)) {
          this.stats.received++;
        }
      }
      return;
    }
    if (state === OperationState.secured) {
      for (let id = first; id <= last; id++) {
        const p = this.pending.get(id);
        if (p && !p.secured) {
          p.secured = true;
          this.stats.secured++;
        }
      }
      return;
    }
    if (state === OperationState.completed && subsystem !== 'indexing') this.credits.freed();
    const again: { doc: PreparedDocument; attempts: number }[] = [];
    if (state === OperationState.lost) {
      for (const [opId, e] of errorsByOp) {
        const p = this.takeFinal(opId);
        if (!p) continue;
        this.stats.lost++;
        this.applyAction(opId, p, e, again);
      }
    } else if (state === OperationState.completed && subsystem === 'indexing') {
      for (let id = first; id <= last; id++) {
        const e = errorsByOp.get(id);
        const p = this.takeFinal(id);
        if (!p) continue;
        if (e) this.applyAction(id, p, e, again);
        else this.finish(id, p, { kind: 'completed', opId: id, attempts: p.attempts });
      }
    }
    // processing / completed is informational: the indexer reports the finals of that batch
    this.resubmit(again);
    this.notify();
  }

  private applyAction(opId: number, p: PendingOp, e: DocumentError, again: { doc: PreparedDocument; attempts: number }[]): void {
    this.finalIds.add(opId);
    const limit = e.suggested_action === Action.resubmit ? (this.opts.maxResubmits ?? 10) : e.suggested_action === Action.limited_resubmit ? (this.opts.limitedResubmits ?? 3) : 0;
    if (p.attempts <= limit) {
      again.push({ doc: p.doc, attempts: p.attempts });
      this.opts.log.debug({ op: opId, doc: p.doc.id, action: e.suggested_action, attempts: p.attempts }, 'resubmitting');
      return;
    }
    this.finish(opId, p, { kind: 'failed', opId, attempts: p.attempts, error: summarize(e) });
  }

  /** Sends what is buffered and waits until every document has its final outcome (or the timeout passes). */
  async drain(timeoutMs = 600_000): Promise<{ stats: FeedingStats; outcomes: ReadonlyMap<string, DocumentOutcome>; unfinished: string[] }> {
    await this.flush();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.sending;
      if (this.pending.size === 0 && this.requeued === 0) break;
      const left = deadline - Date.now();
      if (left <= 0) break;
      await Promise.race([this.waitForProgress(), sleep(Math.min(left, 1000))]);
    }
    while (this.releases.size) await Promise.all([...this.releases]);
    const unfinished = [...this.pending.values()].map((p) => p.doc.id);
    if (this.requeued > 0) this.opts.log.warn({ requeued: this.requeued }, 'drain timed out with resubmissions not sent yet');
    return { stats: this.snapshot, outcomes: this.outcomes, unfinished };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.watchTimer) clearTimeout(this.watchTimer);
    try {
      await this.session.close();
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'session close failed');
    }
    await this.opts.mw.deactivate(this.callbackObject);
  }
}

/** The middleware server objects' default request limit (the distributor's too). */
/** one create_session attempt while opening: long enough for a loaded master, short next to a takeover */
const OPEN_ATTEMPT_MS = 5_000;
const SERVER_REQUEST_LIMIT = 1024 * 1024;
/** Room for the call's envelope and the estimate's slack: a batch is encoded a little larger than its attributes. */
const ENVELOPE_ROOM = 64 * 1024;
const MIN_BATCH_BYTES = 16 * 1024;

/** The session's distributor does not answer: gone (no responders) or not answering in time (stopped, partitioned). */
function isSessionGone(err: unknown): boolean {
  // unknown_session: the distributor closed the session under us (reaped while we were idle, in the moment before its
  // object goes): opened again like a session whose distributor died
  return err instanceof ObjectNotExist || err instanceof CallTimeout || err instanceof UnknownSession;
}
