import fc from 'fast-check';
import { Packr, Unpackr, pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import {
  CHEETAH_EXT_TYPE,
  CheetahEncodeError,
  CheetahEntity,
  DocumentEntity,
  DocumentId,
  FloatAttribute,
  IntegerAttribute,
  LongCollection,
  OperationSet,
  StringAttribute,
  UpdateOperation,
  cheetahPackr,
  decodeCheetah,
  encodeCheetah,
  registerCheetahExtension,
} from '../index';
import { ENTITY_ARBITRARIES, anyEntity, operationSet } from './cheetah-arbitraries';
import { payloadOf } from './cheetah-test-wire';

function sample(): OperationSet {
  return new OperationSet({
    completed_op_id: 41,
    operations: [
      new UpdateOperation({
        id: 42,
        doc: new DocumentEntity({
          doc_id: new DocumentId({ id: 'http://example.com/' }),
          document_attributes: [
            new StringAttribute({ key: 'title', value: 'Hello' }),
            new IntegerAttribute({ key: 'size', value: 1234 }),
          ],
        }),
      }),
    ],
  });
}

describe('cheetah codec', () => {
  it('round trip - every entity class, arbitrary valid fields, same class and same fields back', () => {
    for (const [type, arbitrary] of ENTITY_ARBITRARIES) {
      fc.assert(
        fc.property(arbitrary, (value) => {
          const back = decodeCheetah(encodeCheetah(value));
          expect(back).toBeInstanceOf(type);
          expect((back as CheetahEntity).constructor).toBe(type);
          expect(back).toStrictEqual(value);
        }),
        { numRuns: 60 },
      );
    }
  });

  it('round trip - operation sets of mixed operation subtypes with nested attribute collections', () => {
    fc.assert(
      fc.property(operationSet, (set) => {
        const back = decodeCheetah(encodeCheetah(set)) as OperationSet;
        expect(back).toStrictEqual(set);
        back.operations.forEach((op, i) => expect(op.constructor).toBe(set.operations[i]?.constructor));
      }),
      { numRuns: 150 },
    );
  });

  it('round trip - entities anywhere inside arrays, maps and plain objects', () => {
    const container = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        anyEntity,
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        // msgpackr decodes maps as plain objects and renames a __proto__ key; a "constructor" key is covered by its own
        // test below (toStrictEqual compares `.constructor`, which such a key shadows with two distinct objects)
        fc.dictionary(
          fc.string({ unit: 'grapheme-ascii', minLength: 1 }).filter((k) => k !== '__proto__' && k !== 'constructor'),
          tie('value'),
          { maxKeys: 4, noNullPrototype: true },
        ),
      ),
    })).value;
    fc.assert(
      fc.property(container, (value) => {
        expect(decodeCheetah(encodeCheetah(value))).toStrictEqual(value);
      }),
      { numRuns: 200 },
    );
  });

  it('round trip - keys named like Object.prototype members stay plain data', () => {
    const value = { constructor: { a: [1, 'x'] }, toString: 2, hasOwnProperty: { b: null }, valueOf: [] };
    const back = decodeCheetah(encodeCheetah(value)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(Object.keys(value));
    for (const k of Object.keys(value)) expect(back[k]).toStrictEqual(value[k as keyof typeof value]);
  });

  it('floats - -0, NaN and infinities survive (float64 on the wire)', () => {
    for (const value of [-0, NaN, Infinity, -Infinity, 5e-324, 1.5]) {
      const back = decodeCheetah(encodeCheetah(new FloatAttribute({ key: 'f', value }))) as FloatAttribute;
      expect(Object.is(back.value, value)).toBe(true);
    }
  });

  it('longs - safe integers beyond 32 bits travel as int64/uint64 and come back as numbers', () => {
    const values = [2 ** 32, -(2 ** 32) - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, -1, 0];
    const back = decodeCheetah(encodeCheetah(new LongCollection({ key: 'l', values }))) as LongCollection;
    expect(back.values).toEqual(values);
    // a foreign encoder's int64 (msgpackr decodes it as bigint) is accepted too
    const wire = pack([35, 211918678, 'l', [BigInt(2 ** 40), -5n]]);
    const ext = new Uint8Array([0xc7, wire.length, CHEETAH_EXT_TYPE, ...wire]);
    expect((decodeCheetah(ext) as LongCollection).values).toEqual([2 ** 40, -5]);
  });

  it('layout - ext type 0x43 holding [typeId, checksum, ...fields], nested entities as plain arrays', () => {
    const bytes = encodeCheetah(sample());
    expect(bytes[0]).toBe(0xc7); // ext 8: the payload is under 256 bytes
    expect(unpack(payloadOf(bytes))).toEqual([
      38,
      211918678,
      41,
      [
        [
          52,
          211918678,
          42,
          [],
          [
            12,
            211918678,
            [11, 211918678, 'http://example.com/', []],
            [
              [26, 211918678, 'title', 'Hello'],
              [28, 211918678, 'size', 1234],
            ],
          ],
        ],
      ],
    ]);
  });

  it('layout - large payloads use ext 16 and ext 32', () => {
    const mid = new StringAttribute({ key: 'k', value: 'x'.repeat(1000) });
    const big = new StringAttribute({ key: 'k', value: 'y'.repeat(70_000) });
    expect(encodeCheetah(mid)[0]).toBe(0xc8);
    expect(encodeCheetah(big)[0]).toBe(0xc9);
    expect(decodeCheetah(encodeCheetah([mid, big]))).toStrictEqual([mid, big]);
  });

  it('other Packr instances - registerCheetahExtension returns them, and they read and write entities', () => {
    const own = registerCheetahExtension(new Packr({ useRecords: true }));
    const value = { batch: sample(), n: 1 };
    expect(own.unpack(own.pack(value))).toStrictEqual(value);
    expect(new Unpackr({ mapsAsObjects: true }).unpack(cheetahPackr.pack(value))).toStrictEqual(value);
    expect(cheetahPackr.unpack(own.pack(value))).toStrictEqual(value);
  });

  it('input - a plain Uint8Array view at an offset into a larger buffer decodes the same', () => {
    fc.assert(
      fc.property(anyEntity, fc.nat(16), (entity, offset) => {
        const bytes = encodeCheetah(entity);
        const backing = new Uint8Array(offset + bytes.length + 7).fill(0xc1);
        backing.set(bytes, offset);
        expect(decodeCheetah(backing.subarray(offset, offset + bytes.length))).toStrictEqual(entity);
      }),
      { numRuns: 200 },
    );
  });

  it('decoded entities do not share memory with the input', () => {
    const bytes = encodeCheetah(sample());
    const back = decodeCheetah(bytes) as OperationSet;
    bytes.fill(0);
    expect(back).toStrictEqual(sample());
  });

  it('encode - msgpackr failures become CheetahEncodeError', () => {
    expect(() => encodeCheetah(2n ** 80n)).toThrow(CheetahEncodeError);
  });

  it('encode - a field changed behind the types after construction is refused, not written as garbage', () => {
    const cases: [CheetahEntity, string, unknown][] = [
      [new IntegerAttribute({ key: 'k', value: 1 }), 'value', 'one'],
      [new IntegerAttribute({ key: 'k', value: 1 }), 'key', 7],
      [new FloatAttribute({ key: 'k', value: 1 }), 'value', '1'],
      [sample(), 'operations', [{ id: 1 }]],
    ];
    for (const [entity, field, value] of cases) {
      (entity as unknown as Record<string, unknown>)[field] = value;
      expect(() => encodeCheetah({ wrapped: [entity] })).toThrow(CheetahEncodeError);
    }
    // the shared Packr still works afterwards
    expect(decodeCheetah(encodeCheetah(sample()))).toStrictEqual(sample());
  });
});
