import { Action, DocumentId, FailedOperation, OperationLost, OperationSet, OperationState } from '@esp/codecs';
import { LEASE_LOST_DESCRIPTION, LEASE_LOST_ERROR_CODE } from '@esp/interfaces';
import type { InFlightOperation } from '../dispatch/processor-pool';

/**
 * MS-FSDPD 3.5.5: for every operation held by an item processor whose lease ran out, a failed_operation with
 * state lost and an operation_lost error (error_code 4, suggested action resubmit, subsystem "processing",
 * description "failed to submit operation to next subsystem", session id from the session mapper), in one
 * operation_set per session, for the indexing dispatcher.
 */
export function lostOperationSets(ops: readonly InFlightOperation[], completedOpId = 0): Map<number, OperationSet> {
  const bySession = new Map<number, FailedOperation[]>();
  for (const o of ops) {
    const failed = new FailedOperation({
      id: o.opId,
      subsystem: 'processing',
      state: OperationState.lost,
      operation_type: 'failed_operation',
      doc_id: o.docId ?? new DocumentId({ id: `op-${o.opId}` }),
      err: new OperationLost({
        error_code: LEASE_LOST_ERROR_CODE,
        suggested_action: Action.resubmit,
        description: LEASE_LOST_DESCRIPTION,
        subsystem: 'processing',
        session_id: o.sessionId,
        operation_id: o.opId,
        arguments: [],
      }),
    });
    const list = bySession.get(o.sessionId) ?? [];
    list.push(failed);
    bySession.set(o.sessionId, list);
  }
  const out = new Map<number, OperationSet>();
  for (const [sessionId, list] of bySession) {
    list.sort((a, b) => a.id - b.id);
    out.set(sessionId, new OperationSet({ completed_op_id: completedOpId, operations: list }));
  }
  return out;
}
