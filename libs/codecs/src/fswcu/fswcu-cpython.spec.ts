/**
 * Differential tests against CPython's marshal (python3 on the PATH). Each property draws a batch of values,
 * sends them to ONE python3 process, and checks every reply.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFswcu } from './fswcu-decoder';
import { encodeFswcu } from './fswcu-encoder';
import { fswcuEquals } from './fswcu-equals';
import { fswcuFromJson, fswcuToJson } from './fswcu-json';
import { asPythonSees, fswcuValueArb } from './testing/arbitraries';
import { fromHex, runMarshalOracle, toHex } from './testing/cpython-marshal';

const BATCH = 400;

function sample<T>(arb: fc.Arbitrary<T>, seed: number): T[] {
  return fc.sample(arb, { numRuns: BATCH, seed });
}

describe('fswcu against CPython marshal', () => {
  it('bytes CPython writes with marshal.dumps(v, 0) decode here to v, and encode here to the same bytes', () => {
    const values = sample(fswcuValueArb({ cpythonDumps: true }), 0x5eed1);
    const replies = runMarshalOracle('dumps', values.map(fswcuToJson));
    values.forEach((value, i) => {
      const reply = replies[i];
      if (typeof reply !== 'string') throw new Error(`CPython refused value #${i}: ${JSON.stringify(reply)}`);
      const decoded = decodeFswcu(fromHex(reply));
      expect(fswcuEquals(decoded, value), `value #${i} ${JSON.stringify(fswcuToJson(value))}`).toBe(true);
      expect(toHex(encodeFswcu(value)), `value #${i}`).toBe(reply);
    });
  });

  it('bytes encoded here load in CPython to the same value (every type code, incl. I and g)', () => {
    const values = sample(fswcuValueArb({ cpythonDumps: false }), 0x5eed2);
    const replies = runMarshalOracle('loads', values.map((v) => toHex(encodeFswcu(v))));
    values.forEach((value, i) => {
      const loaded = fswcuFromJson(replies[i]);
      expect(fswcuEquals(loaded, asPythonSees(value)), `value #${i} ${JSON.stringify(fswcuToJson(value))}`).toBe(true);
    });
  });

  it('CPython refuses what this decoder refuses for the long and unicode edge cases', () => {
    // a digit over 15 bits, an unnormalised long, invalid UTF-8, float text with a space
    const refused = ['6c010000000080', '6c010000000000', '750100000080', '660420312e35'];
    const replies = runMarshalOracle('loads', refused);
    for (const [i, hex] of refused.entries()) {
      expect(replies[i], hex).toHaveProperty('error');
      expect(() => decodeFswcu(fromHex(hex))).toThrow();
    }
  });
});
