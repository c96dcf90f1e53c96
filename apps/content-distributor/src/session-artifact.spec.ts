import { DocumentEntity, DocumentId, OperationSet, StringAttribute, UpdateOperation } from '@esp/codecs';
import { encodeCheetah } from '@esp/codecs';
import { describe, expect, it } from 'vitest';
import {
  batchesToRedispatch,
  decodeBatch,
  decodeSessionArtifact,
  encodeBatch,
  encodeSessionArtifact,
  SessionArtifactError,
  type SessionArtifact,
} from './session-artifact';

const batch = (first: number, n: number): OperationSet =>
  new OperationSet({
    completed_op_id: first - 1,
    operations: Array.from({ length: n }, (_, i) => new UpdateOperation({ id: first + i, doc: new DocumentEntity({ doc_id: new DocumentId({ id: `d-${first + i}` }), document_attributes: [new StringAttribute({ key: 'body', value: 'x'.repeat(100) })] }) })),
  });

const callback = { name: '', object_id: 'feed-callback-1', host: 'h', port: 0, interface_type: 'processing::operation_callback', interface_version: '5.1' };

describe('session artifact codec', () => {
  it('round trip - id, collection, callback, op ids and the in-flight batches come back as they were', () => {
    const s: SessionArtifact = { id: 42, collection: 'news', callback, guarantees: [], lastAcceptedOpId: 300, completedOpId: 100, inFlight: [encodeBatch(batch(101, 100)), encodeBatch(batch(201, 100))] };
    const back = decodeSessionArtifact(encodeSessionArtifact(s));
    expect(back).toMatchObject({ id: 42, collection: 'news', callback, guarantees: [], lastAcceptedOpId: 300, completedOpId: 100 });
    expect(back.inFlight.map((b) => [b.first, b.last])).toEqual([
      [101, 200],
      [201, 300],
    ]);
    const ops = decodeBatch(back.inFlight[1]!).operations;
    expect(ops.map((o) => o.id)).toEqual(Array.from({ length: 100 }, (_, i) => 201 + i));
    expect(ops[0]).toBeInstanceOf(UpdateOperation);
  });

  it('round trip - a session without callback and without batches in flight', () => {
    const s: SessionArtifact = { id: 7, collection: 'web', callback: undefined, guarantees: ['x'], lastAcceptedOpId: -1, completedOpId: 0, inFlight: [] };
    expect(decodeSessionArtifact(encodeSessionArtifact(s))).toEqual(s);
  });

  it('a batch is encoded once: its bytes are carried as they are into every version of the artifact', () => {
    const b = encodeBatch(batch(1, 10));
    const small = encodeSessionArtifact({ id: 1, collection: 'c', callback, guarantees: [], lastAcceptedOpId: 10, completedOpId: 0, inFlight: [] });
    const withBatch = encodeSessionArtifact({ id: 1, collection: 'c', callback, guarantees: [], lastAcceptedOpId: 10, completedOpId: 0, inFlight: [b] });
    expect(withBatch.length - small.length).toBeLessThan(b.bytes.length + 16);
    expect(decodeSessionArtifact(withBatch).inFlight[0]?.bytes).toEqual(b.bytes);
  });

  it('decode - garbage, another format version and malformed fields raise SessionArtifactError', () => {
    expect(() => decodeSessionArtifact(new Uint8Array([0xc1]))).toThrow(SessionArtifactError);
    expect(() => decodeSessionArtifact(encodeCheetah([2, 1, 'c', null, [], 0, 0, []]))).toThrow(/unknown format/);
    expect(() => decodeSessionArtifact(encodeCheetah([1, 'one', 'c', null, [], 0, 0, []]))).toThrow(/malformed header/);
    expect(() => decodeSessionArtifact(encodeCheetah([1, 1, 'c', null, [], 0, 0, [[1, 2, 'not bytes']]]))).toThrow(/malformed in-flight batch/);
    expect(() => decodeSessionArtifact(encodeCheetah([1, 1, 'c', { object_id: 3 }, [], 0, 0, []]))).toThrow(/callback/);
    expect(() => decodeBatch({ first: 1, last: 1, bytes: encodeCheetah({ not: 'a batch' }) })).toThrow(/not an operation_set/);
  });
});

describe('re-dispatch decision of a reactivated session', () => {
  const b = (first: number, last: number) => ({ first, last, bytes: new Uint8Array() });

  it('batches with an operation above the client completed_op_id go again, oldest first', () => {
    const plan = batchesToRedispatch({ completedOpId: 150, inFlight: [b(301, 400), b(101, 200), b(201, 300)] });
    expect(plan.map((x) => x.first)).toEqual([101, 201, 301]);
  });

  it('a batch whose every operation has its final status (at or below completed_op_id) is not sent again', () => {
    expect(batchesToRedispatch({ completedOpId: 200, inFlight: [b(101, 200), b(201, 300)] }).map((x) => x.first)).toEqual([201]);
    expect(batchesToRedispatch({ completedOpId: 300, inFlight: [b(101, 200), b(201, 300)] })).toEqual([]);
  });

  it('no batches in flight - nothing to send', () => {
    expect(batchesToRedispatch({ completedOpId: 0, inFlight: [] })).toEqual([]);
  });
});
