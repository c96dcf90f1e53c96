/**
 * Large processed content arrives by reference (claim check, @esp/claim-check): an item processor stores a processed
 * attribute over its threshold in the object store. Before a batch is queued for the writer, each referenced
 * attribute is fetched and checked; once the batch is durable (phase 1 committed) its objects are deleted. An
 * operation whose content cannot be had (deleted with a late copy's first delivery, expired, damaged) becomes a
 * failed operation with content_unavailable: its final status says so and nothing else in the batch is affected.
 */
import {
  FailedOperation,
  FormatError,
  OperationSet,
  OperationState,
  PartialUpdateOperation,
  ServerUnavailable,
  UpdateOperation,
  UrlchangeOperation,
  type Operation,
} from '@esp/codecs';
import { checkIn, ClaimCheckFailure, hasContentRefs } from '@esp/claim-check';
import { PROCESSING_ERRORS, PROCESSING_SUBSYSTEM, type ContentRef } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { BlobStore } from '@esp/middleware';

export interface ResolvedBatch {
  readonly batch: OperationSet;
  /** Deletes the objects the batch referenced (call once it is durable). */
  release(): void;
}

export interface ContentResolverOptions {
  store: (bucket: string) => Promise<BlobStore>;
  /** A referenced object over this size fails its operation (document_too_large). */
  maxBytes: number;
  log: Logger;
}

function withDoc(op: Operation, doc: UpdateOperation['doc']): Operation {
  const fields = { id: op.id, warnings: op.warnings, doc };
  if (op instanceof UrlchangeOperation) return new UrlchangeOperation(fields);
  if (op instanceof PartialUpdateOperation) return new PartialUpdateOperation(fields);
  return new UpdateOperation(fields);
}

export class ContentResolver {
  constructor(private readonly opts: ContentResolverOptions) {}

  /** Whether any operation of the batch carries a reference (most batches: none, and no work). */
  static needed(batch: OperationSet): boolean {
    return batch.operations.some((op) => op instanceof UpdateOperation && hasContentRefs(op.doc));
  }

  async resolve(batch: OperationSet, sessionId: number): Promise<ResolvedBatch> {
    const refs: ContentRef[] = [];
    const ops: Operation[] = [];
    for (const op of batch.operations) {
      if (!(op instanceof UpdateOperation) || !hasContentRefs(op.doc)) {
        ops.push(op);
        continue;
      }
      try {
        const r = await checkIn(op.doc, { store: this.opts.store, maxBytes: this.opts.maxBytes });
        refs.push(...r.refs);
        ops.push(withDoc(op, r.doc));
      } catch (err) {
        if (!(err instanceof ClaimCheckFailure)) throw err;
        this.opts.log.warn({ session: sessionId, op: op.id, doc: op.doc.doc_id.id, err: err.message }, 'processed content not available');
        const known = PROCESSING_ERRORS[err.error];
        const Entity = known.entity === 'server_unavailable' ? ServerUnavailable : FormatError;
        const error = new Entity({
          error_code: known.code,
          suggested_action: known.action,
          description: `${err.error}: ${err.message}`,
          subsystem: PROCESSING_SUBSYSTEM,
          session_id: sessionId,
          operation_id: op.id,
          processor: 'indexer-claim-check',
        });
        ops.push(new FailedOperation({ id: op.id, warnings: op.warnings, state: OperationState.completed, doc_id: op.doc.doc_id, err: error }));
      }
    }
    return {
      batch: new OperationSet({ completed_op_id: batch.completed_op_id, operations: ops }),
      release: () => void this.release(refs, sessionId),
    };
  }

  private async release(refs: ContentRef[], sessionId: number): Promise<void> {
    for (const ref of refs) {
      try {
        await (await this.opts.store(ref.bucket)).delete(ref.name);
      } catch (err) {
        this.opts.log.warn({ session: sessionId, object: ref.name, err: (err as Error).message }, 'deleting processed content failed; the bucket TTL removes it');
      }
    }
  }
}
