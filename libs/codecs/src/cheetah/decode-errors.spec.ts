import fc from 'fast-check';
import { pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import {
  CheetahChecksumError,
  CheetahFieldError,
  CheetahMalformedError,
  CheetahUnknownTypeError,
  CodecError,
  decodeCheetah,
  encodeCheetah,
} from '../index';
import { ENTITY_ARBITRARIES, anyEntity } from './cheetah-arbitraries';
import { CORE, DM, extBytes, extOf, payloadOf, wireOf } from './cheetah-test-wire';

function decodeError(bytes: Uint8Array): unknown {
  try {
    decodeCheetah(bytes);
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Decoding either succeeds or fails with a CodecError subclass; anything else fails the property. */
function onlyCodecErrors(bytes: Uint8Array): void {
  const e = decodeError(bytes);
  if (e !== undefined && !(e instanceof CodecError)) {
    throw new Error(`decoding threw a non-CodecError: ${String(e)}`, { cause: e });
  }
}

describe('cheetah decode errors', () => {
  it('unknown type id - CheetahUnknownTypeError with the id, at the top and nested', () => {
    expect(decodeError(extBytes([99, DM]))).toMatchObject({
      name: 'CheetahUnknownTypeError',
      code: 'CHEETAH_UNKNOWN_TYPE',
      typeId: 99,
      checksum: DM,
    });
    expect(decodeError(extBytes([8, CORE]))).toBeInstanceOf(CheetahUnknownTypeError);
    expect(decodeError(extBytes([38, DM, 0, [[13, DM, 1, []]]]))).toMatchObject({ typeId: 13 });
  });

  it('wrong checksum - CheetahChecksumError naming the entity the type id stands for', () => {
    expect(decodeError(extBytes([38, DM + 1, 0, []]))).toMatchObject({
      name: 'CheetahChecksumError',
      code: 'CHEETAH_CHECKSUM',
      entity: 'cht::documentmessages::operation_set',
      typeId: 38,
      checksum: DM + 1,
      expected: [DM],
    });
    // a cht::core checksum on a cht::documentmessages type id
    expect(decodeError(extBytes([38, CORE, 0, []]))).toMatchObject({ entity: 'cht::documentmessages::operation_set' });
    // type id 3 is bool_collection in one namespace and guarantee in the other
    const shared = decodeError(extBytes([3, 12345]));
    expect(shared).toBeInstanceOf(CheetahChecksumError);
    expect((shared as CheetahChecksumError).entity).toBe(
      'cht::documentmessages::bool_collection or cht::core::guarantee',
    );
    // nested
    expect(decodeError(extBytes([9, CORE, [[7, DM, 0]]]))).toMatchObject({
      entity: 'cht::documentmessages::operation',
    });
  });

  it('missing field - every entity, every count short of its fields: names the first missing field', () => {
    for (const [type, arbitrary] of ENTITY_ARBITRARIES) {
      const [value] = fc.sample(arbitrary, { numRuns: 1, seed: 7 });
      const wire = wireOf(value!);
      const fields = type.cheetah.fields;
      for (let present = 0; present < fields.length; present++) {
        const e = decodeError(extBytes(wire.slice(0, 2 + present)));
        expect(e, `${type.cheetah.name} with ${present} fields`).toBeInstanceOf(CheetahFieldError);
        expect(e).toMatchObject({ entity: type.cheetah.name, field: fields[present], problem: 'missing' });
      }
    }
  });

  it('extra field - every entity: one field too many is rejected', () => {
    for (const [type, arbitrary] of ENTITY_ARBITRARIES) {
      const [value] = fc.sample(arbitrary, { numRuns: 1, seed: 8 });
      const e = decodeError(extBytes([...wireOf(value!), 0]));
      expect(e).toBeInstanceOf(CheetahFieldError);
      expect(e).toMatchObject({ entity: type.cheetah.name, problem: 'extra' });
    }
  });

  it('wrongly typed field - every entity, every field, nil or a map instead: names entity and field', () => {
    for (const [type, arbitrary] of ENTITY_ARBITRARIES) {
      for (const value of fc.sample(arbitrary, { numRuns: 3, seed: 9 })) {
        const wire = wireOf(value);
        type.cheetah.fields.forEach((field, i) => {
          for (const wrong of [null, { a: 1 }]) {
            const edited = [...wire];
            edited[2 + i] = wrong;
            const e = decodeError(extBytes(edited));
            expect(e, `${type.cheetah.name}.${field}`).toBeInstanceOf(CheetahFieldError);
            expect(e).toMatchObject({ entity: type.cheetah.name, field, problem: 'type', code: 'CHEETAH_FIELD' });
          }
        });
      }
    }
  });

  it('wrongly typed field - string for int, float for int, out of range, bad enum, bad bytes, wrong subtype', () => {
    const cases: [unknown[], string, string][] = [
      [[28, DM, 'k', 'x'], 'cht::documentmessages::integer_attribute', 'value'],
      [[28, DM, 'k', 1.5], 'cht::documentmessages::integer_attribute', 'value'],
      [[28, DM, 'k', 2 ** 31], 'cht::documentmessages::integer_attribute', 'value'],
      [[34, DM, 'k', 2 ** 53 + 2], 'cht::documentmessages::long_attribute', 'value'],
      [[26, DM, 5, 'v'], 'cht::documentmessages::string_attribute', 'key'],
      [[2, DM, 'k', 1], 'cht::documentmessages::bool_attribute', 'value'],
      [[4, DM, 'k', 'not bytes'], 'cht::documentmessages::bytearray_attribute', 'value'],
      [[19, DM, 'k', 'x'], 'cht::documentmessages::float_attribute', 'value'],
      [[49, DM, 'k', ['a', 1]], 'cht::documentmessages::string_collection', 'values[1]'],
      [[30, DM, 'k', [1, 2, 1.5]], 'cht::documentmessages::integer_collection', 'values[2]'],
      [[15, DM, 4, 9, 'd', 'processing', 1, 7, []], 'cht::documentmessages::error', 'suggested_action'],
      [[40, DM, 0, 0, 5, 'indexing', [], []], 'cht::documentmessages::operation_status_info', 'state'],
      // a collection of a parent type holds its subtypes only
      [[38, DM, 0, [[12, DM, [11, DM, 'x', []], []]]], 'cht::documentmessages::operation_set', 'operations[0]'],
      [
        [12, DM, [11, DM, 'x', []], [[26, DM, 'k', 'v'], [6, DM, 1, 'w', 'indexing', 1, 1]]],
        'cht::documentmessages::document',
        'document_attributes[1]',
      ],
      [[52, DM, 1, [], [11, DM, 'x', []]], 'cht::documentmessages::update_operation', 'doc'],
      [[9, CORE, [[26, DM, 'k', 'v']]], 'cht::core::guarantee_set', 'guarantees[0]'],
    ];
    for (const [wire, entity, field] of cases) {
      const e = decodeError(extBytes(wire));
      expect(e, `${entity}.${field}`).toBeInstanceOf(CheetahFieldError);
      expect(e).toMatchObject({ entity, field, problem: 'type' });
    }
  });

  it('malformed - not an entity array, no type id, trailing bytes, truncation, msgpackr errors wrapped', () => {
    const malformed = [
      extOf(pack('hello')),
      extOf(pack([38])),
      extOf(pack(['38', DM, 0, []])),
      extOf(new Uint8Array([...pack([0, DM, 'k']), 0xc0])),
      extOf(pack([26, DM, 'k', 'value']).subarray(0, 8)),
      new Uint8Array([0xd4, 0x43, 0x00]), // fixext 1 of our type
      new Uint8Array([0x92, 0x01]), // msgpackr: unexpected end
      new Uint8Array([0xc7, 0x05, 0x43, 0x01]), // ext header longer than the data
      new Uint8Array([]),
    ];
    for (const bytes of malformed) {
      const e = decodeError(bytes);
      expect(e, Buffer.from(bytes).toString('hex')).toBeInstanceOf(CodecError);
    }
    const wrapped = decodeError(new Uint8Array([0x92, 0x01]));
    expect(wrapped).toBeInstanceOf(CheetahMalformedError);
    expect((wrapped as Error).cause).toBeInstanceOf(Error);
    expect(decodeError('not bytes' as never)).toBeInstanceOf(CheetahMalformedError);
  });

  it('fuzz - random bytes never throw anything but CodecError subclasses', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), onlyCodecErrors), { numRuns: 3000 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (b) => onlyCodecErrors(extOf(b))), { numRuns: 3000 });
  });

  it('fuzz - valid encodings with bytes changed, cut or inserted never throw anything but CodecError', () => {
    const mutated = fc
      .tuple(
        anyEntity,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(2)), { minLength: 1, maxLength: 4 }),
      )
      .map(([entity, edits]) => {
        const bytes = [...encodeCheetah(entity)];
        for (const [at, byte, kind] of edits) {
          const i = at % (bytes.length + 1);
          if (kind === 0) bytes[i] = byte;
          else if (kind === 1) bytes.splice(i, 0, byte);
          else bytes.length = i;
        }
        return new Uint8Array(bytes);
      });
    fc.assert(fc.property(mutated, onlyCodecErrors), { numRuns: 3000 });
  });

  it('fuzz - arbitrary MessagePack values as the payload never throw anything but CodecError', () => {
    const payload = fc.oneof(
      fc.anything({ maxDepth: 3, withBigInt: false }),
      fc.tuple(fc.integer({ min: -1, max: 60 }), fc.constantFrom(DM, CORE), fc.array(fc.anything({ maxDepth: 2 }))),
    );
    fc.assert(
      fc.property(payload, (value) => {
        let bytes: Uint8Array;
        try {
          bytes = pack(value);
        } catch {
          return; // not encodable: nothing to decode
        }
        onlyCodecErrors(extOf(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('payloadOf helper - payloads of real encodings are what the wire helpers expect', () => {
    fc.assert(
      fc.property(anyEntity, (entity) => {
        expect(decodeCheetah(extOf(payloadOf(encodeCheetah(entity))))).toStrictEqual(entity);
      }),
      { numRuns: 100 },
    );
  });
});
