/**
 * One batch of an indexing session, applied inside the writer's transaction: documents written, final statuses
 * decided and recorded, and the callbacks the client is owed, in order.
 *
 *   const r = db.transaction(() => applyBatch(docs, journal, 7, batch, new Date().toISOString()))();
 *   r.statuses   // [secured 1..10, completed 1..10 (errors: the failed ones), lost 4..4]
 *
 * The session is the arbiter of final statuses (coreSessionInterface): each operation id is decided once. An id
 * below the floor (the highest completed_op_id seen) or already in the session's finals is a late copy: ignored,
 * neither written nor reported. The ranges of the statuses never cover an ignored or lost id, since "completed" is
 * final for every operation of its range; lost operations get their own status that names exactly them.
 */
import {
  Action,
  type DocumentError,
  FailedOperation,
  type Operation,
  type OperationSet,
  OperationState,
  OperationStatusInfo,
  PartialUpdateOperation,
  RemoveOperation,
  UpdateOperation,
  UrlchangeOperation,
  type Warning,
} from '@esp/codecs';
import { attributesOf } from './attributes';
import type { DocumentStore } from './collection-store';
import { INDEXING_SUBSYSTEM, IndexerErrorCode, IndexerWarningCode, indexerError, indexerWarning } from './indexer-errors';
import type { SessionJournal } from './session-journal';

type Decision =
  | { kind: 'done'; id: number; error?: DocumentError; warnings: Warning[] }
  | { kind: 'lost'; id: number; error: DocumentError; warnings: Warning[] }
  | { kind: 'ignored'; id: number };

export interface BatchResult {
  /** The callbacks owed, in delivery order: every secured, then every completed, then lost. */
  statuses: OperationStatusInfo[];
  /** Operation ids by outcome (ignored = late copies of already final operations). */
  completed: number[];
  failed: number[];
  lost: number[];
  ignored: number[];
}

function kindName(op: Operation): string {
  return (op.constructor as { cheetah?: { name?: string } }).cheetah?.name ?? op.constructor.name;
}

/** Writes one operation (update / partial update / urlchange / remove). May throw (SQLite): the caller's savepoint undoes what it wrote (decideAll). */
function write(docs: DocumentStore, session: number, op: Operation, now: string): Decision {
  const warnings: Warning[] = [...op.warnings];
  const fail = (code: number, action: Action, description: string): Decision => ({
    kind: 'done',
    id: op.id,
    error: indexerError(code, action, description, session, op.id),
    warnings,
  });
  if (op instanceof UpdateOperation || op instanceof PartialUpdateOperation) {
    const docId = op.doc.doc_id.id;
    if (docId.length === 0) return fail(IndexerErrorCode.unsupported_operation, Action.drop, `${kindName(op)} ${op.id}: the document id is empty`);
    const { attributes, repeated } = attributesOf(op.doc.document_attributes);
    for (const key of repeated) {
      warnings.push(indexerWarning(IndexerWarningCode.repeated_attribute, `document ${docId}: attribute "${key}" given more than once; the last value was kept`, session, op.id));
    }
    if (op instanceof UpdateOperation) {
      docs.upsert(docId, attributes, op.id, session, now);
    } else if (!docs.merge(docId, attributes, op.id, session, now)) {
      const what = op instanceof UrlchangeOperation ? 'urlchange_operation' : 'partial_update_operation';
      return fail(IndexerErrorCode.no_such_document, Action.drop, `${what} ${op.id}: the index holds no document "${docId}" to update`);
    }
    return { kind: 'done', id: op.id, warnings };
  }
  if (op instanceof RemoveOperation) {
    const docId = op.doc_id.id;
    if (!docs.remove(docId)) {
      warnings.push(indexerWarning(IndexerWarningCode.remove_absent, `remove_operation ${op.id}: the index held no document "${docId}"`, session, op.id));
    }
    return { kind: 'done', id: op.id, warnings };
  }
  return fail(IndexerErrorCode.unsupported_operation, Action.drop, `${kindName(op)} ${op.id}: the indexer writes update, partial_update, urlchange and remove operations only`);
}

/**
 * The decision for one operation. `isolate`: the write runs in a savepoint of its own, and an exception there fails
 * only this operation (write_failed, resubmit). Without it an exception propagates (see decideAll).
 */
function decide(docs: DocumentStore, session: number, op: Operation, now: string, isolate: boolean): Decision {
  if (op instanceof FailedOperation) {
    // failed upstream: nothing is written; its error is carried to the client as it was made
    const warnings = [...op.warnings];
    return op.state === OperationState.lost ? { kind: 'lost', id: op.id, error: op.err, warnings } : { kind: 'done', id: op.id, error: op.err, warnings };
  }
  if (!isolate) return write(docs, session, op, now);
  try {
    return docs.db.transaction(() => write(docs, session, op, now))();
  } catch (err) {
    const description = `${kindName(op)} ${op.id}: the index write failed: ${(err as Error).message}`;
    return { kind: 'done', id: op.id, error: indexerError(IndexerErrorCode.write_failed, Action.resubmit, description, session, op.id), warnings: [...op.warnings] };
  }
}

function decideOps(docs: DocumentStore, journal: SessionJournal, session: number, batch: OperationSet, floor: number, now: string, isolate: boolean): Map<number, Decision> {
  const decisions = new Map<number, Decision>();
  const decided: number[] = [];
  for (const op of batch.operations) {
    if (decisions.has(op.id)) continue; // the same id twice in one batch: the first copy is the one
    if (op.id < floor || journal.isFinal(session, op.id)) {
      decisions.set(op.id, { kind: 'ignored', id: op.id });
      continue;
    }
    decisions.set(op.id, decide(docs, session, op, now, isolate));
    decided.push(op.id);
  }
  markFinals(journal, session, decided);
  return decisions;
}

/** Records `ids` as final, as ranges of consecutive ids (a batch's ids usually make one). */
function markFinals(journal: SessionJournal, session: number, ids: number[]): void {
  ids.sort((a, b) => a - b);
  let first: number | undefined;
  let last = 0;
  for (const id of ids) {
    if (first !== undefined && id === last + 1) {
      last = id;
      continue;
    }
    if (first !== undefined) journal.markFinalRange(session, first, last);
    first = last = id;
  }
  if (first !== undefined) journal.markFinalRange(session, first, last);
}

/**
 * Every operation of the batch decided and written. Fast path: the whole batch in ONE savepoint. A savepoint per
 * operation (so that one failing write fails only its operation) made every operation flush FTS5's pending terms
 * into a segment of its own, which doubled the cost of a batch. Only when a write throws (rare: I/O, a corrupt
 * row) is the batch's savepoint rolled back, leaving nothing of it, and the batch done again operation by
 * operation, each in its own savepoint, with the same outcome as before.
 */
function decideAll(docs: DocumentStore, journal: SessionJournal, session: number, batch: OperationSet, floor: number, now: string): Map<number, Decision> {
  try {
    return docs.db.transaction(() => decideOps(docs, journal, session, batch, floor, now, false))();
  } catch {
    return decideOps(docs, journal, session, batch, floor, now, true);
  }
}

function status(first: number, last: number, state: OperationState, errors: DocumentError[] = [], warnings: Warning[] = []): OperationStatusInfo {
  return new OperationStatusInfo({ first_op_id: first, last_op_id: last, state, subsystem: INDEXING_SUBSYSTEM, errors, warnings });
}

/** Applies `batch` for `session`. Call inside a transaction: the writes, finals and floor commit together. */
export function applyBatch(docs: DocumentStore, journal: SessionJournal, session: number, batch: OperationSet, now: string): BatchResult {
  const floor = journal.raiseFloor(session, batch.completed_op_id);
  const decisions = decideAll(docs, journal, session, batch, floor, now);

  const result: BatchResult = { statuses: [], completed: [], failed: [], lost: [], ignored: [] };
  const ordered = [...decisions.values()].sort((a, b) => a.id - b.id);
  // runs of consecutive (by id, within this batch) decided operations, split at ignored and lost ones
  const runs: Extract<Decision, { kind: 'done' }>[][] = [];
  let run: Extract<Decision, { kind: 'done' }>[] = [];
  const lost: Extract<Decision, { kind: 'lost' }>[] = [];
  for (const d of ordered) {
    if (d.kind === 'done') {
      run.push(d);
      (d.error ? result.failed : result.completed).push(d.id);
      continue;
    }
    if (run.length > 0) runs.push(run);
    run = [];
    if (d.kind === 'lost') {
      lost.push(d);
      result.lost.push(d.id);
    } else {
      result.ignored.push(d.id);
    }
  }
  if (run.length > 0) runs.push(run);

  // ids ascend within a run and within `lost`, so the range of a list is its first and last id
  const range = (ds: readonly { id: number }[]): [number, number] => [ds[0]?.id ?? 0, ds[ds.length - 1]?.id ?? 0];
  for (const r of runs) result.statuses.push(status(...range(r), OperationState.secured));
  for (const r of runs) {
    const errors = r.flatMap((d) => (d.error ? [d.error] : []));
    result.statuses.push(status(...range(r), OperationState.completed, errors, r.flatMap((d) => d.warnings)));
  }
  if (lost.length > 0) {
    result.statuses.push(status(...range(lost), OperationState.lost, lost.map((d) => d.error), lost.flatMap((d) => d.warnings)));
  }
  return result;
}
