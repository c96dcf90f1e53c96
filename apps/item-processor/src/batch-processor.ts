import { getHeapStatistics } from 'node:v8';
import { checkIn, checkOut, ClaimCheckFailure, documentBytes, hasContentRefs } from '@esp/claim-check';
import {
  FailedOperation,
  OperationSet,
  OperationState,
  OperationStatusInfo,
  PartialUpdateOperation,
  RemoveOperation,
  UpdateOperation,
  UrlchangeOperation,
  type DocumentEntity,
  type DocumentError,
  type Operation,
  type Warning,
} from '@esp/codecs';
import {
  PROCESSING_SUBSYSTEM,
  processedContentName,
  ShuttingDown,
  SystemResourceError,
  UserException,
  coreSessionInterface,
  type Aor,
  type ContentRef,
} from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { ObjectNotExist, SystemException, type Middleware } from '@esp/middleware';
import { retry } from '@esp/timers';
import { processingError, type ItemLogMessage, type ItemOutcome, type OperationKind, type Pipeline, type PipelineSet } from '@esp/pipeline';
import { indexerAway } from './indexer-presence';
import type { ProcserverHandler } from './registration';
import { statusOf, type LogMessage, type StatusState } from './status/status-state';

export interface BatchProcessorOptions {
  name: string;
  mw: Middleware;
  status: StatusState;
  /** The pipelines as configured now (a reload swaps them between batches). */
  pipelines: () => PipelineSet;
  /** The dispatcher handle to report `processed` to. */
  handler: () => ProcserverHandler | undefined;
  /** A batch was processed (the Reregistration Lease sees activity). */
  onProcessed: () => void;
  /** Renews the distributor's Lease Timeout while a batch runs (./lease-renewal); none in some tests. */
  lease?: { begin(): void; end(): void };
  /** procserver_handler::processed failed for good with a system exception: registration should start over. */
  onHandlerLost: (reason: string) => void;
  /** How long to keep retrying the indexer session on retryable errors before reporting completed=false (ms). */
  forwardDeadlineMs: number;
  retry: { initialMs: number; maxMs: number };
  /** Refuse a batch (system_resource_error) while the JS heap in use is above this (default: 90 % of the heap limit). */
  maxHeapUsedBytes?: number;
  /** Deadline of the calls to the indexer and to procserver_handler (ms). */
  callTimeoutMs: number;
  /**
   * Large content out of band (claim check): content referenced over `maxDocumentBytes` fails its item with
   * document_too_large; a processed attribute over `inlineMaxBytes` goes to the object store for the indexer, and so
   * do the largest ones while the batch for the indexer is over `batchBytes`.
   */
  claimCheck: { maxDocumentBytes: number; inlineMaxBytes: number; batchBytes: number };
  log: Logger;
}

/** What a batch came with (the arguments of processor_server::process). */
export interface BatchInput {
  readonly next: Aor;
  readonly session_id: number;
  readonly collection: string;
  readonly batch: OperationSet;
}

/** A batch's out-of-band content: the client's object of each operation, and the objects made for the indexer. */
interface BatchClaims {
  readonly sourceOf: Map<number, string>;
  readonly created: ContentRef[];
}

interface DocOperation {
  readonly kind: OperationKind;
  readonly doc: DocumentEntity;
}

function docOperation(op: Operation): DocOperation | undefined {
  if (op instanceof UrlchangeOperation) return { kind: 'urlchange', doc: op.doc };
  if (op instanceof PartialUpdateOperation) return { kind: 'partial_update', doc: op.doc };
  if (op instanceof UpdateOperation) return { kind: 'update', doc: op.doc };
  return undefined;
}

/** The same operation with a processed document and its warnings. */
function withDocument(op: Operation, doc: DocumentEntity, warnings: readonly Warning[]): Operation {
  const fields = { id: op.id, warnings, doc };
  if (op instanceof UrlchangeOperation) return new UrlchangeOperation(fields);
  if (op instanceof PartialUpdateOperation) return new PartialUpdateOperation(fields);
  return new UpdateOperation(fields);
}

function itemIdOf(op: Operation): string {
  const d = docOperation(op);
  if (d) return d.doc.doc_id.id;
  if (op instanceof RemoveOperation || op instanceof FailedOperation) return op.doc_id.id;
  return `operation ${op.id}`;
}

function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function isRetryable(err: unknown): boolean {
  return (err instanceof SystemException || err instanceof UserException) && err.retryable;
}

const YIELD_EVERY = 64;

/** The item log's message of an item processed with nothing to say, one frozen list per pipeline name. */
const processedMessages = new Map<string, readonly ItemLogMessage[]>();
function processedBy(pipeline: string): readonly ItemLogMessage[] {
  let m = processedMessages.get(pipeline);
  if (!m) processedMessages.set(pipeline, (m = Object.freeze([Object.freeze(['INFO', `processed by pipeline "${pipeline}"`] as const)])));
  return m;
}

/**
 * processor_server::process (MS-FSDPD 3.1.4.1): one batch at a time. `accept` refuses at once (shutting_down when
 * Terminating, system_resource_error when busy or short of memory) or takes the batch and returns; the batch then
 * runs through the collection's pipeline, failed operations are replaced by failed_operation entities, the result
 * goes to the indexing session, and procserver_handler::processed reports the outcome. The Status tables are
 * written along the way.
 */
export class BatchProcessor {
  private busyNow = false;
  /** The batch running (session, first and last operation id): the same batch sent again is not run twice. */
  private running = '';
  private readonly inFlight = new Set<Promise<void>>();
  private readonly maxHeapUsed: number;
  batchesProcessed = 0;

  constructor(private readonly o: BatchProcessorOptions) {
    this.maxHeapUsed = o.maxHeapUsedBytes ?? Math.floor(getHeapStatistics().heap_size_limit * 0.9);
  }

  get busy(): boolean {
    return this.busyNow;
  }

  /** Checks and takes a batch; throws ShuttingDown or SystemResourceError (their messages say why). */
  accept(input: BatchInput): void {
    const { status, name } = this.o;
    if (status.terminating) throw new ShuttingDown(`item processor ${name} is shutting down`);
    const ops = input.batch.operations;
    const key = `${input.session_id}:${ops[0]?.id}:${ops[ops.length - 1]?.id}:${ops.length}`;
    if (this.busyNow && key === this.running) {
      // the distributor sends a batch again when the bus dropped before our answer reached it: it runs already and
      // its processed report will come, so it is taken, once (one that has run is run again: its report may be
      // what was lost, and the indexer applies each operation once)
      this.o.log.info({ session_id: input.session_id, first: ops[0]?.id, last: ops[ops.length - 1]?.id }, 'the batch taken last came again (its answer was lost); taken already');
      return;
    }
    if (this.busyNow) {
      throw new SystemResourceError(`item processor ${name} is busy with another batch`, { what: 'busy: one batch at a time' });
    }
    // the heap only (process.memoryUsage() would also read the RSS from the OS, for every batch)
    const heapUsed = getHeapStatistics().used_heap_size;
    if (heapUsed > this.maxHeapUsed) {
      const what = `out of memory: ${heapUsed} bytes of JS heap in use, limit ${this.maxHeapUsed}`;
      throw new SystemResourceError(`item processor ${name}: ${what}`, { what });
    }
    this.busyNow = true;
    this.running = key;
    this.o.lease?.begin();
    status.setProcessing(true);
    this.o.log.debug({ session_id: input.session_id, collection: input.collection, first: ops[0]?.id, last: ops[ops.length - 1]?.id, ops: ops.length }, 'batch accepted');
    const run = this.run(input).catch((err: unknown) => this.o.log.error({ err }, 'batch failed unexpectedly'));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /** Resolves when no batch is in flight (processed reported), or after timeoutMs. */
  async whenIdle(timeoutMs = 30_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    return true;
  }

  private finishWork(): void {
    this.busyNow = false;
    this.o.lease?.end();
    this.o.status.setProcessing(false);
    this.batchesProcessed++;
    this.o.onProcessed();
  }

  private async run(input: BatchInput): Promise<void> {
    const { status, log } = this.o;
    const { batch, collection, session_id } = input;
    const t0 = performance.now();
    const heap0 = status.memoryProfile ? process.memoryUsage().heapUsed : 0;
    // an empty batch reports completed_op_id (ids at or below it are final already)
    let first = batch.operations.length > 0 ? Number.MAX_SAFE_INTEGER : Math.max(0, batch.completed_op_id);
    let last = batch.operations.length > 0 ? 0 : first;
    for (const op of batch.operations) {
      if (op.id < first) first = op.id;
      if (op.id > last) last = op.id;
    }
    const batchId = String(first);
    const errors: DocumentError[] = [];
    const warnings: Warning[] = [];
    const batchMsgs: LogMessage[] = [];
    let out: Operation[] = [];
    let pipelineName = '';
    let completed = false;
    let tPipeline = t0;
    const claims: BatchClaims = { sourceOf: new Map(), created: [] };
    try {
      const pipeline = this.o.pipelines().forCollection(collection);
      pipelineName = pipeline.name;
      batchMsgs.push(['INFO', `${batch.operations.length} operations (${first}..${last}) of session ${session_id}, collection "${collection}", pipeline "${pipeline.name}"`]);
      out = await this.processOperations(pipeline, input, errors, warnings, claims);
      tPipeline = performance.now();
      if (errors.length > 0) batchMsgs.push(['ERROR', `${errors.length} operations failed: ${errors.map((e) => `${e.operation_id} (${e.description})`).join('; ')}`.slice(0, 2000)]);
      if (warnings.length > 0) batchMsgs.push(['WARNING', `${warnings.length} warnings`]);
      completed = await this.forward(input, new OperationSet({ completed_op_id: batch.completed_op_id, operations: out }), batchMsgs);
      // not handed to indexing: its operations will be lost and resubmitted, so what was stored for it goes now
      if (!completed) await this.deleteCreated(claims.created);
    } catch (err) {
      // a bug of ours, not of the content: the batch is not forwarded, the distributor learns completed=false
      log.error({ err, collection, session_id }, 'batch could not be processed');
      batchMsgs.push(['ERROR', `batch could not be processed: ${describeError(err)}`]);
    }
    if (status.memoryProfile) {
      const heap = process.memoryUsage().heapUsed;
      batchMsgs.push(['INFO', `memory: JS heap ${heap} bytes in use (${heap - heap0 >= 0 ? '+' : ''}${heap - heap0} during the batch)`]);
    }
    status.logBatch(batchId, { status: statusOf(batchMsgs), modified: Date.now(), msgs: batchMsgs, elapsed: (performance.now() - t0) / 1000 });
    const tEnd = performance.now();
    log.debug(
      { collection, session_id, first, last, pipeline: pipelineName, errors: errors.length, completed, pipeline_ms: Math.round(tPipeline - t0), forward_ms: Math.round(tEnd - tPipeline) },
      'batch processed',
    );

    // not busy before `processed`: the distributor may send the next batch as soon as it has it
    this.finishWork();
    const report = new OperationStatusInfo({
      first_op_id: first,
      last_op_id: last,
      state: OperationState.completed,
      subsystem: PROCESSING_SUBSYSTEM,
      errors,
      warnings,
    });
    await this.reportProcessed(completed, report);
  }

  private async processOperations(pipeline: Pipeline, input: BatchInput, errors: DocumentError[], warnings: Warning[], claims: BatchClaims): Promise<Operation[]> {
    const { status } = this.o;
    const out: Operation[] = [];
    // CPU time is measured once for the batch (one getrusage pair per item was a tenth of the processor's time) and
    // shared out to the items' stages in proportion to their wall time when the batch is done
    const outcomes: ItemOutcome[] = [];
    const cpu0 = process.cpuUsage();
    let n = 0;
    for (const op of input.batch.operations) {
      if (++n % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r)); // keep the Status server answering
      const d = docOperation(op);
      if (!d) {
        // remove and failed_operation entries go on unchanged
        out.push(op);
        status.logItem(itemIdOf(op), { status: 'OK', modified: Date.now(), msgs: [['INFO', `${op instanceof RemoveOperation ? 'remove' : 'failed_operation'} passed on`]], elapsed: 0 });
        continue;
      }
      let doc = d.doc;
      if (hasContentRefs(doc)) {
        try {
          const fetched = await checkIn(doc, { store: (bucket) => this.o.mw.blobs({ bucket }), maxBytes: this.o.claimCheck.maxDocumentBytes });
          doc = fetched.doc;
          if (fetched.refs[0]) claims.sourceOf.set(op.id, fetched.refs[0].name);
        } catch (err) {
          if (!(err instanceof ClaimCheckFailure)) throw err;
          const error = processingError(err.error, { stage: 'claim-check', description: `${err.error}: ${err.message}`, session_id: input.session_id, operation_id: op.id });
          errors.push(error);
          out.push(new FailedOperation({ id: op.id, warnings: op.warnings, state: OperationState.completed, doc_id: d.doc.doc_id, err: error }));
          status.logItem(d.doc.doc_id.id, { status: 'ERROR', modified: Date.now(), msgs: [['ERROR', `claim-check: ${err.message}`]], elapsed: 0 });
          continue;
        }
      }
      const outcome = await pipeline.run(
        { id: op.id, kind: d.kind, doc, collection: input.collection, session_id: input.session_id },
        { cpu: false, debug: status.loggingVerbosity === 'debug' },
      );
      outcomes.push(outcome);
      warnings.push(...outcome.warnings);
      const opWarnings = [...op.warnings, ...outcome.warnings];
      if (outcome.doc) {
        // large processed content goes to the indexer out of band, and at once: a batch of large documents is then
        // held one document at a time
        const processed = documentBytes(outcome.doc) > this.o.claimCheck.inlineMaxBytes ? ((await this.checkOut([outcome.doc], [op.id], input, claims, Number.POSITIVE_INFINITY))[0] ?? outcome.doc) : outcome.doc;
        out.push(withDocument(op, processed, opWarnings));
      } else if (outcome.error) {
        errors.push(outcome.error);
        // the indexer learns of the failure and reports it as final (completed, with this error)
        out.push(new FailedOperation({ id: op.id, warnings: opWarnings, state: OperationState.completed, doc_id: d.doc.doc_id, err: outcome.error }));
      }
      status.logItem(d.doc.doc_id.id, {
        status: outcome.error ? 'ERROR' : outcome.warnings.length > 0 ? 'WARNING' : 'OK',
        modified: Date.now(),
        msgs: this.itemMessages(pipeline, outcome),
        elapsed: outcome.total.work,
      });
    }
    this.addStatistics(pipeline, outcomes, process.cpuUsage(cpu0));
    return this.fitForIndexer(out, input, claims);
  }

  /**
   * Processed attributes over the threshold go to the object store, for the indexer, which deletes them once it has
   * them. Named after the client's object when the content came by reference (the client deletes that name too, at
   * the final status), else by collection, session, operation and attribute: whoever processes the document again
   * replaces these objects instead of leaving them behind.
   */
  private async checkOut(docs: DocumentEntity[], opIds: number[], input: BatchInput, claims: BatchClaims, budgetBytes: number): Promise<DocumentEntity[]> {
    const { inlineMaxBytes } = this.o.claimCheck;
    const out = await checkOut(docs, {
      store: () => this.o.mw.blobs(),
      thresholdBytes: inlineMaxBytes,
      ...(Number.isFinite(budgetBytes) ? { budgetBytes } : {}),
      objectName: (i, key) => {
        const source = claims.sourceOf.get(opIds[i] ?? -1);
        return source ? processedContentName(source, key) : `processed/${encodeURIComponent(input.collection)}/${input.session_id}/${opIds[i]}/${encodeURIComponent(key)}`;
      },
    });
    claims.created.push(...out.refs);
    return out.docs;
  }

  /** Deletes what this batch stored for the indexer (best effort: the bucket's TTL is the backstop). */
  private async deleteCreated(refs: readonly ContentRef[]): Promise<void> {
    for (const ref of refs) {
      try {
        await (await this.o.mw.blobs({ bucket: ref.bucket })).delete(ref.name);
      } catch (err) {
        this.o.log.warn({ object: ref.name, err: describeError(err) }, 'could not delete processed content of a batch not forwarded');
      }
    }
  }

  /** While the batch for the indexer is over its byte budget, its largest processed attributes go out of band. */
  private async fitForIndexer(ops: Operation[], input: BatchInput, claims: BatchClaims): Promise<Operation[]> {
    const { batchBytes } = this.o.claimCheck;
    let total = 0;
    const withDocs: { at: number; op: Operation; doc: DocumentEntity }[] = [];
    ops.forEach((op, at) => {
      const d = docOperation(op);
      if (d) {
        total += documentBytes(d.doc);
        withDocs.push({ at, op, doc: d.doc });
      } else total += 256;
    });
    if (total <= batchBytes) return ops;
    const docs = withDocs.map((w) => w.doc);
    const fitted = await this.checkOut(docs, withDocs.map((w) => w.op.id), input, claims, batchBytes - (total - docs.reduce((n, d) => n + documentBytes(d), 0)));
    const out = [...ops];
    withDocs.forEach((w, k) => {
      const doc = fitted[k];
      if (doc && doc !== w.doc) out[w.at] = withDocument(w.op, doc, w.op.warnings);
    });
    return out;
  }

  /** The Status statistics of a batch's items: wall time as measured, CPU time shared out by wall time. */
  private addStatistics(pipeline: Pipeline, items: readonly ItemOutcome[], cpu: NodeJS.CpuUsage): void {
    const { status } = this.o;
    const wall = items.reduce((a, i) => a + i.total.work, 0);
    const user = cpu.user / 1e6;
    const system = cpu.system / 1e6;
    // one row object reused for every add (the rows are summed into the tables, not kept)
    const row = { work: 0, user: 0, system: 0 };
    const add = (to: 'stage' | 'pipeline', name: string, ok: boolean, work: number, share: number): void => {
      row.work = work;
      row.user = user * share;
      row.system = system * share;
      if (to === 'stage') status.addStage(name, ok, row);
      else status.addPipeline(name, ok, row);
    };
    for (const outcome of items) {
      const itemShare = wall > 0 ? outcome.total.work / wall : 1 / items.length;
      let stageWall = 0;
      for (const t of outcome.stages) stageWall += t.work;
      for (const t of outcome.stages) add('stage', t.stage, t.ok, t.work, itemShare * (stageWall > 0 ? t.work / stageWall : 1 / outcome.stages.length));
      add('pipeline', pipeline.name, outcome.total.ok, outcome.total.work, itemShare);
    }
  }

  /**
   * The item log's messages of one item. An item that went through with nothing to say (the usual case) gets one
   * message per pipeline, shared by every such item: the log keeps 10,000 items, and a string and two arrays made per
   * item outlived the young generation (its time is the entry's `elapsed`).
   */
  private itemMessages(pipeline: Pipeline, outcome: ItemOutcome): readonly ItemLogMessage[] {
    const { status } = this.o;
    const quiet = outcome.warnings.length === 0 && !outcome.error && !status.tracing && status.loggingVerbosity !== 'debug';
    if (quiet) return processedBy(pipeline.name);
    const msgs: ItemLogMessage[] = [];
    if (status.loggingVerbosity === 'debug') for (const m of outcome.debug) msgs.push(['INFO', m]);
    if (status.tracing) for (const c of outcome.changes) msgs.push(['INFO', `${c.stage}: ${c.key} ${c.change}${c.value ? ` = ${c.value}` : ''}`]);
    for (const w of outcome.warnings) msgs.push(['WARNING', w.description]);
    if (outcome.error) msgs.push(['ERROR', `${outcome.error.processor}: ${outcome.error.description}`]);
    else msgs.push(['INFO', `processed by pipeline "${pipeline.name}" in ${(outcome.total.work * 1000).toFixed(2)} ms`]);
    return msgs;
  }

  /** coreprocessing::session::process with retries on retryable errors until the deadline. True when delivered. */
  private async forward(input: BatchInput, batch: OperationSet, msgs: LogMessage[]): Promise<boolean> {
    const { mw, log, retry: backoff, forwardDeadlineMs, callTimeoutMs } = this.o;
    let session;
    try {
      session = mw.proxy(coreSessionInterface, input.next, { timeoutMs: callTimeoutMs });
    } catch (err) {
      msgs.push(['ERROR', `indexing session cannot be called: ${describeError(err)}`]);
      return false;
    }
    let attempts = 0;
    let away = false;
    try {
      await retry(
        async (attempt) => {
          attempts = attempt + 1;
          try {
            return await session.process(batch);
          } catch (err) {
            away = err instanceof ObjectNotExist && (await indexerAway(mw, input.next));
            throw err;
          }
        },
        {
          ...backoff,
          jitter: true,
          deadlineMs: forwardDeadlineMs,
          // a call must not start after the deadline: the batch is reported then
          shortenLastWait: false,
          // no responders too while the whole indexer is away (restarting): its session comes back at the same address
          retryable: (err) => isRetryable(err) || (err instanceof ObjectNotExist && away),
          onRetry: (err, attempt, delay) => log.warn({ err: describeError(err), attempt: attempt + 1, retry_in_ms: delay }, 'indexing session refused the batch; retrying'),
        },
      );
    } catch (err) {
      log.error({ err: describeError(err), attempts, session: input.session_id }, 'could not forward the batch to the indexing session');
      msgs.push(['ERROR', `not forwarded to the indexing session: ${describeError(err)} (${attempts} attempts)`]);
      return false;
    }
    if (attempts > 1) msgs.push(['INFO', `forwarded to the indexing session after ${attempts} attempts`]);
    return true;
  }

  /** procserver_handler::processed, retried a few times on retryable errors; a handler gone restarts registration. */
  private async reportProcessed(completed: boolean, report: OperationStatusInfo): Promise<void> {
    const { log, name, retry: backoff } = this.o;
    try {
      const reported = await retry(
        async () => {
          const handler = this.o.handler();
          if (!handler) return false;
          await handler.processed(name, completed, report);
          return true;
        },
        { ...backoff, jitter: true, attempts: 5, retryable: isRetryable },
      );
      if (!reported) log.error({ first: report.first_op_id, last: report.last_op_id }, 'no procserver_handler to report processed to');
    } catch (err) {
      log.error({ err: describeError(err), first: report.first_op_id, last: report.last_op_id }, 'procserver_handler::processed failed');
      if (err instanceof SystemException) this.o.onHandlerLost(`processed failed: ${describeError(err)}`);
    }
  }
}
