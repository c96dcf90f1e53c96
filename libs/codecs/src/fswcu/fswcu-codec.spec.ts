import { describe, expect, it } from 'vitest';
import { CodecError } from '../errors';
import { decodeFswcu, decodeFswcuPrefix } from './fswcu-decoder';
import { encodeFswcu } from './fswcu-encoder';
import { fswcuEquals } from './fswcu-equals';
import {
  FswcuBadFloatError,
  FswcuBadLengthError,
  FswcuBadLongError,
  FswcuBadStringError,
  FswcuBadTypeCodeError,
  FswcuDepthError,
  FswcuEncodeError,
  FswcuTrailingBytesError,
  FswcuTruncatedError,
} from './fswcu-errors';
import { formatFswcuFloatText } from './fswcu-float-text';
import {
  FswcuDict,
  FswcuFloat,
  FswcuInt64,
  FswcuTuple,
  fswcuBytes,
  fswcuBytesEqual,
  fswcuTuple,
  type FswcuValue,
} from './fswcu-value';
import { fromHex, toHex } from './testing/cpython-marshal';

/** Bytes from a mix of ASCII text and \xNN escapes, as Python's bytes literals read. */
function b(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && text[i + 1] === 'x') {
      out.push(parseInt(text.slice(i + 2, i + 4), 16));
      i += 3;
    } else out.push(text.charCodeAt(i));
  }
  return Uint8Array.from(out);
}

function roundTrip(bytes: Uint8Array): FswcuValue {
  const value = decodeFswcu(bytes);
  expect(toHex(encodeFswcu(value))).toBe(toHex(bytes));
  return value;
}

describe('fswcu type codes', () => {
  it('N T F decode to null, true, false and back', () => {
    expect(roundTrip(b('N'))).toBe(null);
    expect(roundTrip(b('T'))).toBe(true);
    expect(roundTrip(b('F'))).toBe(false);
  });

  it('i decodes to an int32 number, including both extremes', () => {
    expect(roundTrip(b('i\\x01\\x00\\x00\\x00'))).toBe(1);
    expect(roundTrip(b('i\\x00\\x00\\x00\\x80'))).toBe(-(2 ** 31));
    expect(roundTrip(b('i\\xff\\xff\\xff\\x7f'))).toBe(2 ** 31 - 1);
    expect(roundTrip(b('i\\xff\\xff\\xff\\xff'))).toBe(-1);
  });

  it('l decodes to a bigint from 15-bit digits, sign in the count (as CPython writes 2**40 and -65537)', () => {
    expect(roundTrip(b('l\\x03\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x04'))).toBe(2n ** 40n);
    expect(roundTrip(b('l\\xfd\\xff\\xff\\xff\\x01\\x00\\x00\\x00\\x02\\x00'))).toBe(-(2n ** 31n) - 1n);
    expect(roundTrip(b('l\\x00\\x00\\x00\\x00'))).toBe(0n);
    const huge = 3n ** 500n;
    expect(decodeFswcu(encodeFswcu(huge))).toBe(huge);
    expect(decodeFswcu(encodeFswcu(-huge))).toBe(-huge);
  });

  it('a small long stays a long: 5 as l re-encodes as l, not i', () => {
    expect(roundTrip(b('l\\x01\\x00\\x00\\x00\\x05\\x00'))).toBe(5n);
  });

  it('I decodes to FswcuInt64 and re-encodes as I', () => {
    const v = roundTrip(b('I\\x05\\x00\\x00\\x00\\x00\\x00\\x00\\x80'));
    expect(v).toBeInstanceOf(FswcuInt64);
    expect((v as FswcuInt64).value).toBe(-(2n ** 63n) + 5n);
  });

  it('f keeps its text so odd spellings survive, and g keeps binary64', () => {
    const f = roundTrip(b('f\\x0410.0')) as FswcuFloat;
    expect(f).toBeInstanceOf(FswcuFloat);
    expect([f.value, f.binary, f.text]).toEqual([10, false, '10.0']);
    const g = roundTrip(b('g\\x00\\x00\\x00\\x00\\x00\\x00\\xf8\\x3f')) as FswcuFloat;
    expect([g.value, g.binary]).toEqual([1.5, true]);
  });

  it('a g NaN keeps its payload bits', () => {
    roundTrip(b('g\\x01\\x00\\x00\\x00\\x00\\x00\\xf8\\x7f'));
    roundTrip(b('g\\x00\\x00\\x00\\x00\\x00\\x00\\xf8\\xff'));
  });

  it('s is a Uint8Array, u a string, and they stay apart', () => {
    const s = roundTrip(b('s\\x02\\x00\\x00\\x00cm'));
    expect(s).toEqual(fswcuBytes('cm'));
    expect(roundTrip(b('u\\x02\\x00\\x00\\x00cm'))).toBe('cm');
    expect(fswcuEquals(s, 'cm')).toBe(false);
  });

  it('u keeps a BOM, astral characters and lone surrogates (surrogatepass)', () => {
    expect(roundTrip(b('u\\x03\\x00\\x00\\x00\\xef\\xbb\\xbf'))).toBe('\ufeff');
    expect(roundTrip(b('u\\x04\\x00\\x00\\x00\\xf0\\x9f\\x98\\x80'))).toBe('\u{1f600}');
    expect(roundTrip(b('u\\x04\\x00\\x00\\x00a\\xed\\xb2\\x80'))).toBe('a\udc80');
    const long = 'é'.repeat(100) + '\ud800';
    expect(decodeFswcu(encodeFswcu(long))).toBe(long);
  });

  it('( [ { give tuple, list and dict, and stay apart', () => {
    const bytes = b('(\\x03\\x00\\x00\\x00i\\x01\\x00\\x00\\x00[\\x01\\x00\\x00\\x00i\\x02\\x00\\x00\\x00{s\\x01\\x00\\x00\\x00aN0');
    const v = roundTrip(bytes) as FswcuTuple;
    expect(v).toBeInstanceOf(FswcuTuple);
    expect(v.items[0]).toBe(1);
    expect(Array.isArray(v.items[1])).toBe(true);
    expect(v.items[2]).toBeInstanceOf(FswcuDict);
    expect((v.items[2] as FswcuDict).getText('a')).toBe(null);
    expect(fswcuEquals(fswcuTuple(1), [1])).toBe(false);
  });

  it('dict entries keep their order and duplicates, and lookups take the last one as Python does', () => {
    const d = roundTrip(b('{i\\x01\\x00\\x00\\x00Ni\\x01\\x00\\x00\\x00T0')) as FswcuDict;
    expect(d.size).toBe(2);
    expect(d.get(1)).toBe(true);
  });

  it('numbers that are not int32 are refused with a hint rather than silently changed', () => {
    expect(() => encodeFswcu(1.5)).toThrow(FswcuEncodeError);
    expect(() => encodeFswcu(2 ** 31)).toThrow(/bigint/);
    expect(toHex(encodeFswcu(BigInt(2 ** 31)))).toBe('6c03000000000000000200');
  });

  it('a cyclic value is an encode error, not a stack overflow', () => {
    const list: FswcuValue[] = [];
    list.push(list);
    expect(() => encodeFswcu(list)).toThrow(FswcuEncodeError);
  });

  it('undefined and foreign objects are encode errors', () => {
    expect(() => encodeFswcu(undefined as unknown as FswcuValue)).toThrow(FswcuEncodeError);
    expect(() => encodeFswcu(new Date() as unknown as FswcuValue)).toThrow(/Date/);
  });

  it('an FswcuFloat whose text does not spell its value is refused', () => {
    expect(() => encodeFswcu(new FswcuFloat(1, { text: '2' }))).toThrow(FswcuEncodeError);
  });
});

describe('fswcu float text', () => {
  it('formats as CPython marshal v0 does (%.17g)', () => {
    // Expected strings are what CPython 3.11 marshal.dumps(v, 0) writes.
    const cases: Array<[number, string]> = [
      [0.1, '0.10000000000000001'],
      [1e16, '10000000000000000'],
      [1e17, '1e+17'],
      [1e-5, '1.0000000000000001e-05'],
      [1e-4, '0.0001'],
      [-0, '-0'],
      [Infinity, 'inf'],
      [-Infinity, '-inf'],
      [NaN, 'nan'],
      [5e-324, '4.9406564584124654e-324'],
      [Number.MAX_VALUE, '1.7976931348623157e+308'],
      [100, '100'],
      [1e22, '1e+22'],
      [1.5, '1.5'],
    ];
    for (const [value, text] of cases) expect(formatFswcuFloatText(value)).toBe(text);
  });
});

describe('fswcu decode errors', () => {
  const cases: Array<[string, string, new (...args: never[]) => CodecError, number]> = [
    ['empty input', '', FswcuTruncatedError, 0],
    ['unknown type code', '<', FswcuBadTypeCodeError, 0],
    ['0 outside a dict', '[\\x01\\x00\\x00\\x000', FswcuBadTypeCodeError, 5],
    ['cut int', 'i\\x01\\x00', FswcuTruncatedError, 3],
    ['negative length', 's\\xff\\xff\\xff\\xff', FswcuBadLengthError, 1],
    ['string past the end', 's\\x05\\x00\\x00\\x00ab', FswcuTruncatedError, 7],
    ['list count larger than the input', '[\\xff\\xff\\xff\\x7fN', FswcuTruncatedError, 6],
    ['dict without terminator', '{NN', FswcuTruncatedError, 3],
    ['long digit over 15 bits', 'l\\x01\\x00\\x00\\x00\\x00\\x80', FswcuBadLongError, 5],
    ['unnormalised long', 'l\\x01\\x00\\x00\\x00\\x00\\x00', FswcuBadLongError, 5],
    ['long count INT32_MIN', 'l\\x00\\x00\\x00\\x80', FswcuBadLongError, 1],
    ['bad float text', 'f\\x04 1.5', FswcuBadFloatError, 2],
    ['float text past the end', 'f\\x091.5', FswcuTruncatedError, 5],
    ['invalid UTF-8', 'u\\x01\\x00\\x00\\x00\\xff', FswcuBadStringError, 5],
    ['separately encoded surrogate pair', 'u\\x06\\x00\\x00\\x00\\xed\\xa0\\xbd\\xed\\xb8\\x80', FswcuBadStringError, 8],
    ['trailing bytes', 'NN', FswcuTrailingBytesError, 1],
  ];
  for (const [what, text, errorClass, offset] of cases) {
    it(`${what} - ${errorClass.name} at byte ${offset}`, () => {
      let caught: unknown;
      try {
        decodeFswcu(b(text));
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(errorClass);
      expect(caught).toBeInstanceOf(CodecError);
      expect((caught as CodecError).offset).toBe(offset);
      expect((caught as CodecError).message).toContain(`byte offset ${offset}`);
    });
  }

  it('nesting deeper than maxDepth is refused before the stack suffers', () => {
    const deep = new Uint8Array(5 * 100_000).fill(0);
    for (let i = 0; i < 100_000; i++) deep.set([0x5b, 1, 0, 0, 0], 5 * i);
    expect(() => decodeFswcu(deep)).toThrow(FswcuDepthError);
    expect(() => decodeFswcu(b('[\\x01\\x00\\x00\\x00[\\x00\\x00\\x00\\x00'), { maxDepth: 1 })).toThrow(FswcuDepthError);
  });

  it('baseOffset shifts reported offsets', () => {
    expect(() => decodeFswcu(b('<'), { baseOffset: 100 })).toThrow(/byte offset 100/);
  });

  it('a huge long cannot make decoding quadratic', () => {
    // 1.5 MB of digits: linear conversion takes milliseconds; digit-by-digit shifting would take minutes.
    const count = 750_000;
    const bytes = new Uint8Array(5 + 2 * count);
    bytes.set([0x6c, count & 0xff, (count >> 8) & 0xff, (count >> 16) & 0xff, 0]);
    bytes.fill(0x11, 5);
    const started = Date.now();
    const v = decodeFswcu(bytes) as bigint;
    expect(typeof v).toBe('bigint');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fswcuBytesEqual(encodeFswcu(v), bytes)).toBe(true);
  });
});

describe('fswcu prefix decoding and input ownership', () => {
  it('decodeFswcuPrefix reports where the value ended', () => {
    const r = decodeFswcuPrefix(fromHex('4e4e54'), { start: 1 });
    expect(r).toEqual({ value: null, end: 2 });
  });

  it('decoded byte strings do not change when the caller reuses its buffer', () => {
    const input = b('s\\x02\\x00\\x00\\x00cm');
    const v = decodeFswcu(input) as Uint8Array;
    input.fill(0);
    expect(v).toEqual(fswcuBytes('cm'));
  });

  it('encoding returns a private copy that later encodes do not overwrite', () => {
    const first = encodeFswcu(fswcuBytes('first'));
    encodeFswcu(fswcuBytes('second'));
    expect(decodeFswcu(first)).toEqual(fswcuBytes('first'));
  });
});
