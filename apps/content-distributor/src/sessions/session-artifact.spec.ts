import { DocumentEntity, DocumentId, OperationSet, StringAttribute, UpdateOperation } from '@esp/codecs';
import { decodeCheetah, encodeCheetah, encodedEntityOf, keepEncodedForms } from '@esp/codecs';
import { describe, expect, it } from 'vitest';
import {
  batchArtifactId,
  batchesToRedispatch,
  batchOfArtifact,
  decodeBatch,
  decodeSessionArtifact,
  encodeBatch,
  encodeSessionArtifact,
  encodeSessionArtifactV1,
  encodeSessionArtifactV2,
  guaranteesOf,
  guaranteeStrings,
  SessionArtifactError,
  withBatches,
  type SessionArtifact,
} from './session-artifact';

const batch = (first: number, n: number): OperationSet =>
  new OperationSet({
    completed_op_id: first - 1,
    operations: Array.from({ length: n }, (_, i) => new UpdateOperation({ id: first + i, doc: new DocumentEntity({ doc_id: new DocumentId({ id: `d-${first + i}` }), document_attributes: [new StringAttribute({ key: 'body', value: 'x'.repeat(100) })] }) })),
  });

const callback = { name: '', object_id: 'feed-callback-1', host: 'h', port: 0, interface_type: 'processing::operation_callback', interface_version: '5.1' };

describe('session artifact codec', () => {
  it('round trip - the session\'s own artifact: id, collection, callback and op ids, without the batches in flight', () => {
    const s: SessionArtifact = { id: 42, collection: 'news', callback, guarantees: [], lastAcceptedOpId: 300, completedOpId: 100, inFlight: [encodeBatch(batch(101, 100))] };
    const body = encodeSessionArtifact(s);
    expect(decodeSessionArtifact(body)).toEqual({ ...s, inFlight: [] });
    // a few hundred bytes whatever is in flight: the batches are its children, written once each
    expect(body.length).toBeLessThan(300);
  });

  it('guarantees - a feeding priority is kept in the artifact and read back; no guarantee is an empty list; an unknown one is refused', () => {
    expect(guaranteeStrings({ priority: 0 })).toEqual(['feeding_priority=0']);
    expect(guaranteeStrings({ priority: undefined })).toEqual([]);
    const s: SessionArtifact = { id: 5, collection: 'news', callback, guarantees: guaranteeStrings({ priority: 0 }), lastAcceptedOpId: 1, completedOpId: 0, inFlight: [] };
    expect(guaranteesOf(decodeSessionArtifact(encodeSessionArtifact(s)).guarantees)).toEqual({ priority: 0 });
    expect(guaranteesOf([])).toEqual({ priority: undefined });
    expect(() => guaranteesOf(['x'])).toThrow(SessionArtifactError);
    expect(() => guaranteesOf(['feeding_priority=0', 'feeding_priority=0'])).toThrow(SessionArtifactError);
  });

  it('round trip - a session without callback and without batches in flight', () => {
    const s: SessionArtifact = { id: 7, collection: 'web', callback: undefined, guarantees: ['x'], lastAcceptedOpId: -1, completedOpId: 0, inFlight: [] };
    expect(decodeSessionArtifact(encodeSessionArtifact(s))).toEqual(s);
  });

  it('round trip - the owner (the SHA-256 of the client\'s owner token) goes with the session to its replicas', () => {
    const s: SessionArtifact = { id: 8, collection: 'web', callback, owner: 'ab'.repeat(32), guarantees: [], lastAcceptedOpId: 10, completedOpId: 5, inFlight: [] };
    expect(decodeSessionArtifact(encodeSessionArtifact(s))).toEqual(s);
  });

  it('format 2 (no owner) is still read: a session without an owner', () => {
    const s: SessionArtifact = { id: 9, collection: 'web', callback, owner: 'ab'.repeat(32), guarantees: [], lastAcceptedOpId: 10, completedOpId: 5, inFlight: [] };
    const back = decodeSessionArtifact(encodeSessionArtifactV2(s));
    expect(back).toMatchObject({ id: 9, collection: 'web', lastAcceptedOpId: 10, completedOpId: 5 });
    expect(back.owner).toBeUndefined();
  });

  it('a batch in flight is a child artifact: its id names the session and the ids, its body is the batch', () => {
    const b = encodeBatch(batch(101, 100));
    const id = batchArtifactId(42, b);
    expect(id).toBe('feeding-session-42/batch-101-200');
    expect(batchOfArtifact(42, id, b.bytes)).toEqual(b);
    expect(batchOfArtifact(43, id, b.bytes)).toBeUndefined();
    expect(batchOfArtifact(42, 'feeding-session-42', b.bytes)).toBeUndefined();
    const ops = decodeBatch(b).operations;
    expect(ops.map((o) => o.id)).toEqual(Array.from({ length: 100 }, (_, i) => 101 + i));
    expect(ops[0]).toBeInstanceOf(UpdateOperation);
  });

  it('withBatches - the session with its children; accepted covers every batch in flight (the session is saved lazily)', () => {
    const own: SessionArtifact = { id: 1, collection: 'c', callback, guarantees: [], lastAcceptedOpId: 100, completedOpId: 50, inFlight: [] };
    const kids = [encodeBatch(batch(201, 100)), encodeBatch(batch(101, 100))];
    const s = withBatches(own, kids);
    expect(s.inFlight.map((b) => b.first)).toEqual([101, 201]);
    expect(s.lastAcceptedOpId).toBe(300);
    expect(withBatches(own, []).lastAcceptedOpId).toBe(100);
  });

  it('format 1 (batches inside the session\'s body) is still read, merged with any children', () => {
    const b1 = encodeBatch(batch(101, 100));
    const v1: SessionArtifact = { id: 9, collection: 'c', callback, guarantees: [], lastAcceptedOpId: 200, completedOpId: 0, inFlight: [b1] };
    const back = decodeSessionArtifact(encodeSessionArtifactV1(v1));
    expect(back).toMatchObject({ id: 9, collection: 'c', lastAcceptedOpId: 200 });
    expect(back.inFlight.map((b) => [b.first, b.last])).toEqual([[101, 200]]);
    expect(decodeBatch(back.inFlight[0]!).operations).toHaveLength(100);
    expect(withBatches(back, [b1, encodeBatch(batch(201, 10))]).inFlight.map((b) => b.first)).toEqual([101, 201]);
  });

  it('encodeBatch keeps the bytes a batch was decoded from where the process keeps encoded forms (no encoding, no copy)', () => {
    keepEncodedForms(OperationSet);
    const sent = encodeCheetah(batch(1, 10));
    const received = decodeCheetah(encodeCheetah(['process', batch(1, 10)])) as [string, OperationSet];
    const b = encodeBatch(received[1]);
    expect(b.bytes).toBe(encodedEntityOf(received[1]));
    expect(Buffer.from(b.bytes).equals(Buffer.from(sent))).toBe(true);
    expect([b.first, b.last]).toEqual([1, 10]);
  });

  it('decode - garbage, another format version and malformed fields raise SessionArtifactError', () => {
    expect(() => decodeSessionArtifact(new Uint8Array([0xc1]))).toThrow(SessionArtifactError);
    expect(() => decodeSessionArtifact(encodeCheetah([3, 1, 'c', null, [], 0, 0]))).toThrow(/unknown format/);
    expect(() => decodeSessionArtifact(encodeCheetah([4, 1, 'c', null, [], 0, 0, null]))).toThrow(/unknown format/);
    expect(() => decodeSessionArtifact(encodeCheetah([3, 1, 'c', null, [], 0, 0, 'not-a-hash']))).toThrow(/owner/);
    expect(() => decodeSessionArtifact(encodeCheetah([3, 1, 'c', null, [], 0, 0, 7]))).toThrow(/owner/);
    expect(() => decodeSessionArtifact(encodeCheetah([2, 1, 'c', null, [], 0, 0, []]))).toThrow(/unknown format/);
    expect(() => decodeSessionArtifact(encodeCheetah([2, 'one', 'c', null, [], 0, 0]))).toThrow(/malformed header/);
    expect(() => decodeSessionArtifact(encodeCheetah([1, 'one', 'c', null, [], 0, 0, []]))).toThrow(/malformed header/);
    expect(() => decodeSessionArtifact(encodeCheetah([1, 1, 'c', null, [], 0, 0, [[1, 2, 'not bytes']]]))).toThrow(/malformed in-flight batch/);
    expect(() => decodeSessionArtifact(encodeCheetah([2, 1, 'c', { object_id: 3 }, [], 0, 0]))).toThrow(/callback/);
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
