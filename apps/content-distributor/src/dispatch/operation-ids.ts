import { DocumentId, FailedOperation, PartialUpdateOperation, RemoveOperation, UpdateOperation, type Operation } from '@esp/codecs';

/** The item identifier of an operation (the item identifier holder's value, MS-FSDPD 3.5.1). */
export function docIdOf(op: Operation): DocumentId | undefined {
  if (op instanceof UpdateOperation || op instanceof PartialUpdateOperation) return op.doc.doc_id;
  if (op instanceof RemoveOperation || op instanceof FailedOperation) return op.doc_id;
  return undefined;
}
