import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFswcu } from './fswcu-decoder';
import { encodeFswcu } from './fswcu-encoder';
import { fswcuEquals } from './fswcu-equals';
import { fswcuFromJson, FswcuJsonError, fswcuToJson } from './fswcu-json';
import { FswcuDict, FswcuFloat, FswcuTuple, fswcuBytes, fswcuBytesEqual } from './fswcu-value';
import { fswcuValueArb } from './testing/arbitraries';
import { fromHex } from './testing/cpython-marshal';

describe('fswcu lossless JSON', () => {
  it('value -> JSON text -> value gives the same value and the same bytes', () => {
    fc.assert(
      fc.property(fswcuValueArb({ cpythonDumps: false }), (value) => {
        const back = fswcuFromJson(JSON.parse(JSON.stringify(fswcuToJson(value))));
        expect(fswcuEquals(back, value)).toBe(true);
        expect(fswcuBytesEqual(encodeFswcu(back), encodeFswcu(value))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps f text spellings and g NaN payloads byte for byte', () => {
    // f "10.0", then two NaNs with non-canonical bits
    for (const hex of ['660431302e30', '67010000000000f87f', '67000000000000f8ff']) {
      const bytes = fromHex(hex);
      const back = fswcuFromJson(JSON.parse(JSON.stringify(fswcuToJson(decodeFswcu(bytes)))));
      expect(fswcuBytesEqual(encodeFswcu(back), bytes)).toBe(true);
    }
  });

  it('uses plain JSON where unambiguous and tags elsewhere', () => {
    const value = new FswcuDict([
      [fswcuBytes('cm'), 24],
      [fswcuBytes('xp'), new FswcuTuple([fswcuBytes('host'), 10000])],
      [fswcuBytes('cs'), Uint8Array.from([0xa9, 0xeb])],
      ['u', [2n ** 40n, new FswcuFloat(0.5), null, true]],
    ]);
    expect(fswcuToJson(value)).toEqual({
      dict: [
        ['cm', 24],
        ['xp', { tuple: ['host', 10000] }],
        ['cs', { hex: 'a9eb' }],
        [{ u: 'u' }, [{ long: '1099511627776' }, { float: '0.5' }, null, true]],
      ],
    });
  });

  it('bad JSON names the path of the problem', () => {
    expect(() => fswcuFromJson({ dict: [['a', 1.5]] })).toThrow(FswcuJsonError);
    expect(() => fswcuFromJson({ dict: [['a', 1.5]] })).toThrow(/\$\.dict\[0\]\[1\]/);
    expect(() => fswcuFromJson({ tuple: [{ what: 1 }] })).toThrow(/unknown tag/);
    expect(() => fswcuFromJson({ u: 'a', hex: '' })).toThrow(/exactly one key/);
    expect(() => fswcuFromJson('\ud800')).toThrow(/lone surrogate/);
    expect(() => fswcuFromJson({ hex: 'abc' })).toThrow(/hex/);
  });
});
