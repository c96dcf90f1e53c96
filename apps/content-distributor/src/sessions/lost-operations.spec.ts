import { Action, DocumentId, FailedOperation, OperationLost, OperationState } from '@esp/codecs';
import { describe, expect, it } from 'vitest';
import { lostOperationSets } from './lost-operations';

describe('lost operations (MS-FSDPD 3.5.5)', () => {
  it('one operation_set per session, one failed_operation per operation, with the fields the spec requires', () => {
    const sets = lostOperationSets([
      { opId: 11, sessionId: 1, docId: new DocumentId({ id: 'a' }) },
      { opId: 10, sessionId: 1, docId: new DocumentId({ id: 'b' }) },
      { opId: 3, sessionId: 2, docId: new DocumentId({ id: 'c' }) },
    ]);
    expect([...sets.keys()]).toEqual([1, 2]);
    const s1 = sets.get(1)!;
    expect(s1.operations.map((o) => o.id)).toEqual([10, 11]);
    const f = s1.operations[0] as FailedOperation;
    expect(f).toBeInstanceOf(FailedOperation);
    expect(f.subsystem).toBe('processing');
    expect(f.state).toBe(OperationState.lost);
    expect(f.operation_type).toBe('failed_operation');
    expect(f.doc_id.id).toBe('b');
    expect(f.err).toBeInstanceOf(OperationLost);
    expect(f.err).toMatchObject({
      error_code: 4,
      suggested_action: Action.resubmit,
      subsystem: 'processing',
      description: 'failed to submit operation to next subsystem',
      session_id: 1,
      operation_id: 10,
      arguments: [],
    });
  });
});
