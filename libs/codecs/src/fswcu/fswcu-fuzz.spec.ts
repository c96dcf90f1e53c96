/**
 * Hostile input: random bytes, mutated and truncated encodings. The decoder may only ever throw its own
 * CodecError, must finish quickly, and whatever it accepts must encode back to the same bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError } from '../errors';
import { decodeFswcu, decodeFswcuPrefix } from './fswcu-decoder';
import { encodeFswcu } from './fswcu-encoder';
import { fswcuEquals } from './fswcu-equals';
import { fswcuBytesEqual } from './fswcu-value';
import { fswcuValueArb } from './testing/arbitraries';

/** Decodes, and if that succeeds checks the round trip; returns the error class name, or 'ok'. */
function decodeOrCodecError(bytes: Uint8Array): string {
  try {
    const value = decodeFswcu(bytes, { maxDepth: 64 });
    expect(fswcuBytesEqual(encodeFswcu(value), bytes)).toBe(true);
    return 'ok';
  } catch (err) {
    if (!(err instanceof CodecError)) throw err;
    expect(err.offset).toBeGreaterThanOrEqual(0);
    expect(err.offset).toBeLessThanOrEqual(bytes.length);
    return err.name;
  }
}

// Type codes weighted in, so random bytes get past the first byte often enough to be interesting.
const byteArb = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(...Array.from('NTFiIlfgsu([{0', (c) => c.charCodeAt(0))));

describe('fswcu hostile input', () => {
  it('round trip: every generated value encodes and decodes to itself', () => {
    fc.assert(
      fc.property(fswcuValueArb({ cpythonDumps: false }), (value) => {
        const bytes = encodeFswcu(value);
        const decoded = decodeFswcu(bytes);
        expect(fswcuEquals(decoded, value)).toBe(true);
        expect(fswcuBytesEqual(encodeFswcu(decoded), bytes)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('random bytes never throw anything but a CodecError', () => {
    fc.assert(fc.property(fc.array(byteArb, { maxLength: 64 }), (bytes) => void decodeOrCodecError(Uint8Array.from(bytes))), {
      numRuns: 3000,
    });
  });

  it('every truncation of a valid encoding is a CodecError (truncated, or trailing bytes in a prefix)', () => {
    fc.assert(
      fc.property(fswcuValueArb({ cpythonDumps: false }), (value) => {
        const bytes = encodeFswcu(value);
        for (let n = 0; n < bytes.length; n++) {
          expect(() => decodeFswcu(bytes.subarray(0, n))).toThrow(CodecError);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('single-byte mutations of valid encodings decode or fail with a CodecError', () => {
    fc.assert(
      fc.property(fswcuValueArb({ cpythonDumps: false }), fc.nat(), fc.integer({ min: 0, max: 255 }), (value, at, byte) => {
        const bytes = encodeFswcu(value).slice();
        bytes[at % bytes.length] = byte;
        decodeOrCodecError(bytes);
      }),
      { numRuns: 2000 },
    );
  });

  it('a count claiming 2 GiB of items allocates nothing and fails at once', () => {
    const started = Date.now();
    for (const code of [0x28, 0x5b, 0x73, 0x75, 0x6c]) {
      expect(() => decodeFswcu(Uint8Array.from([code, 0xff, 0xff, 0xff, 0x7f, 0x4e]))).toThrow(CodecError);
    }
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('prefix decoding of random bytes stays within the input', () => {
    fc.assert(
      fc.property(fc.array(byteArb, { minLength: 1, maxLength: 64 }), (bytes) => {
        try {
          const { end } = decodeFswcuPrefix(Uint8Array.from(bytes));
          expect(end).toBeLessThanOrEqual(bytes.length);
        } catch (err) {
          expect(err).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
