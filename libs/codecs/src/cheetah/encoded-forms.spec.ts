import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DocumentEntity, DocumentId, OperationSet, StringAttribute, UpdateOperation, decodeCheetah, encodeCheetah, encodeCheetahAhead, encodedEntityOf, keepEncodedForms } from '../index';
import { operationSet } from './cheetah-arbitraries';

function batch(id: number, title: string): OperationSet {
  return new OperationSet({
    completed_op_id: id - 1,
    operations: [
      new UpdateOperation({
        id,
        doc: new DocumentEntity({ doc_id: new DocumentId({ id: `doc-${id}` }), document_attributes: [new StringAttribute({ key: 'title', value: title })] }),
      }),
    ],
  });
}

/** Changes a decoded operation in place (the codec's entities are plain objects; readonly is only a type). */
function retitle(op: UpdateOperation, title: string): void {
  (op.doc.document_attributes as unknown as StringAttribute[])[0] = new StringAttribute({ key: 'title', value: title });
}

/** The same bytes (msgpackr's buffers carry extra properties that toStrictEqual would compare). */
const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

// keepEncodedForms is process-wide; vitest runs this file in a worker of its own
describe('encoded forms kept with decoded entities (keepEncodedForms)', () => {
  it('off by default - a decoded entity changed afterwards is encoded as it is now', () => {
    const decoded = decodeCheetah(encodeCheetah([batch(1, 'before')])) as [OperationSet];
    retitle(decoded[0].operations[0] as UpdateOperation, 'after');
    expect(decodeCheetah(encodeCheetah(decoded))).toStrictEqual([batch(1, 'after')]);
  });

  it('on for a class - a decoded instance is encoded again from the bytes it came from, copied out of the input', () => {
    keepEncodedForms(OperationSet);
    const bytes = encodeCheetah([batch(2, 'as sent')]);
    const input = new Uint8Array(bytes); // the receive buffer, reused (overwritten) after the decode
    const decoded = decodeCheetah(input) as [OperationSet];
    input.fill(0);
    expect(hex(encodeCheetah(decoded))).toBe(hex(bytes));
    // the encoder did not walk the fields: a change made after the decode is not sent (why it is opt-in)
    retitle(decoded[0].operations[0] as UpdateOperation, 'changed');
    expect(hex(encodeCheetah(decoded))).toBe(hex(bytes));
    // instances built here, and other classes, are encoded from their fields as before
    expect(decodeCheetah(encodeCheetah([batch(3, 'fresh')]))).toStrictEqual([batch(3, 'fresh')]);
    const doc = decodeCheetah(encodeCheetah(batch(4, 'x').operations[0])) as UpdateOperation;
    retitle(doc, 'y');
    expect(decodeCheetah(encodeCheetah(doc))).toStrictEqual(batch(4, 'y').operations[0]);
  });

  it('on - arbitrary operation sets pass through decode and encode byte for byte, inside any message', () => {
    keepEncodedForms(OperationSet);
    fc.assert(
      fc.property(operationSet, fc.string(), (set, tag) => {
        const bytes = encodeCheetah([tag, set, { again: 1 }]);
        const back = decodeCheetah(bytes) as [string, OperationSet, unknown];
        expect(back[1]).toStrictEqual(set);
        expect(hex(encodeCheetah(back))).toBe(hex(bytes));
      }),
      { numRuns: 100 },
    );
  });

  it('on - encodedEntityOf gives the entity alone as encodeCheetah would, for payloads of every header size', () => {
    keepEncodedForms(OperationSet);
    // ext 8, ext 16 and ext 32 headers: payloads under 256 bytes, under 64 KiB, and larger
    for (const title of ['t', 'x'.repeat(1000), 'y'.repeat(70_000)]) {
      const set = batch(5, title);
      const alone = encodeCheetah(set);
      const decoded = decodeCheetah(encodeCheetah(['around', set])) as [string, OperationSet];
      const whole = encodedEntityOf(decoded[1]);
      expect(whole && hex(whole)).toBe(hex(alone));
      expect(decodeCheetah(whole as Uint8Array)).toStrictEqual(set);
    }
    // not kept: an instance built here, or one of another class
    expect(encodedEntityOf(batch(6, 'fresh'))).toBeUndefined();
    expect(encodedEntityOf(decodeCheetah(encodeCheetah(batch(7, 'z').operations[0])) as UpdateOperation)).toBeUndefined();
  });

  it('on - the kept form is held by the entity itself (a hidden property), not by a table keyed by the entity', () => {
    keepEncodedForms(OperationSet);
    const set = (decodeCheetah(encodeCheetah(['x', batch(8, 'y'.repeat(1000))])) as [string, OperationSet])[1];
    // V8 clears WeakMap entries only in a full collection: the distributor's 100 KB forms, kept in one, piled up as
    // external memory between full collections. On the entity, a form goes with it in a young-generation collection.
    const symbols = Object.getOwnPropertySymbols(set);
    expect(symbols).toHaveLength(1);
    expect((set as unknown as Record<symbol, unknown>)[symbols[0] as symbol]).toBe(encodedEntityOf(set));
    // hidden: not enumerable, so not compared, copied or spread with the entity's fields
    expect(Object.keys(set)).not.toContain(symbols[0]);
    expect(Object.getOwnPropertyDescriptor(set, symbols[0] as symbol)?.enumerable).toBe(false);
    expect({ ...set }).toStrictEqual({ ...batch(8, 'y'.repeat(1000)) });
  });

  it('encodeCheetahAhead - an entity built here is encoded once, then written as those bytes inside any message', () => {
    const set = batch(9, 'ahead');
    const expected = hex(encodeCheetah(['process', batch(9, 'ahead')]));
    encodeCheetahAhead(set);
    expect(hex(encodedEntityOf(set) as Uint8Array)).toBe(hex(encodeCheetah(batch(9, 'ahead'))));
    expect(hex(encodeCheetah(['process', set]))).toBe(expected);
    // the contract: not changed afterwards (a change would not be sent); encoding ahead again keeps the first bytes
    retitle(set.operations[0] as UpdateOperation, 'changed');
    expect(() => encodeCheetahAhead(set)).not.toThrow();
    expect(hex(encodeCheetah(['process', set]))).toBe(expected);
  });
});
