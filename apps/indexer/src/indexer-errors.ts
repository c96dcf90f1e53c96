/**
 * The errors and warnings the indexer itself reports about operations (subsystem "indexing", MS-FSDPD 2.2.2,
 * 2.2.3). Codes are ours: the specs fix only operation_lost (4). Each goes in the `errors` / `warnings` of the
 * operation's final status.
 */
import { Action, DocumentError, Warning } from '@esp/codecs';

export const INDEXING_SUBSYSTEM = 'indexing';

export const IndexerErrorCode = {
  /** partial_update / urlchange of a document the index does not hold. Resending will not help: drop. */
  no_such_document: 1001,
  /** An operation of a kind the indexer does not write (the bare `operation` entity). */
  unsupported_operation: 1002,
  /** The write of this operation failed inside the indexer; the others of its batch were written. */
  write_failed: 1003,
} as const;

export const IndexerWarningCode = {
  /** remove_operation of a document the index did not hold (the operation still completes). */
  remove_absent: 2001,
  /** A document named the same attribute more than once; the last value was kept. */
  repeated_attribute: 2002,
} as const;

export function indexerError(code: number, action: Action, description: string, session: number, opId: number): DocumentError {
  return new DocumentError({
    error_code: code,
    suggested_action: action,
    description,
    subsystem: INDEXING_SUBSYSTEM,
    session_id: session,
    operation_id: opId,
  });
}

export function indexerWarning(code: number, description: string, session: number, opId: number): Warning {
  return new Warning({ warning_code: code, description, subsystem: INDEXING_SUBSYSTEM, session_id: session, operation_id: opId });
}
