/**
 * Test helper: fast-check arbitraries for FSWCU values.
 *
 * `cpythonDumps: true` keeps to what CPython's `marshal.dumps(v, 0)` itself writes, so a value can be compared
 * with CPython's bytes exactly: no 'I' int64, no 'g' floats, no longs within the int32 range (CPython writes
 * those as 'i'). Dict keys are unique the way a Python dict sees them, since CPython would merge duplicates.
 */
import fc from 'fast-check';
import { FswcuDict, FswcuFloat, FswcuInt64, FswcuTuple, type FswcuValue } from '../fswcu-value';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export const int32Arb = fc.integer({ min: INT32_MIN, max: INT32_MAX });

const bigLongArb = fc.oneof(
  fc.bigInt({ min: 2n ** 31n, max: 2n ** 300n }),
  fc.bigInt({ min: -(2n ** 300n), max: -(2n ** 31n) - 1n }),
  fc.constantFrom(2n ** 31n, -(2n ** 31n) - 1n, 2n ** 63n, -(2n ** 63n), 2n ** 45n, 2n ** 60n - 1n),
);

/** Strings with astral characters, lone surrogates and the odd BOM, to exercise 'u' fully. */
export const unicodeArb = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ufeff', '\u0000') },
  ),
  maxLength: 12,
});

export const bytesArb = fc.uint8Array({ maxLength: 24 });

const doubleArb = fc.oneof(
  fc.double(),
  fc.constantFrom(0, -0, 0.1, 1e16, 1e17, 1e-5, 5e-324, Number.MAX_VALUE, Infinity, -Infinity, NaN, 100, 1e22),
);

export function fswcuValueArb(options: { cpythonDumps: boolean; maxDepth?: number }): fc.Arbitrary<FswcuValue> {
  const leaves: Array<fc.Arbitrary<FswcuValue>> = [
    fc.constant(null),
    fc.boolean(),
    int32Arb,
    bigLongArb,
    doubleArb.map((v) => new FswcuFloat(v)),
    bytesArb,
    unicodeArb,
  ];
  if (!options.cpythonDumps) {
    leaves.push(
      fc.bigInt({ min: BigInt(INT32_MIN), max: BigInt(INT32_MAX) }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((v) => new FswcuInt64(v)),
      doubleArb.map((v) => new FswcuFloat(v, { binary: true })),
    );
  }
  const leaf = fc.oneof(...leaves);
  const { value } = fc.letrec<{ value: FswcuValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth: options.maxDepth ?? 4 },
      { weight: 4, arbitrary: leaf },
      fc.array(tie('value'), { maxLength: 6 }).map((items) => new FswcuTuple(items)),
      fc.array(tie('value'), { maxLength: 6 }),
      fc.uniqueArray(fc.tuple(keyArb, tie('value')), { maxLength: 6, selector: ([k]) => pythonKey(k) }).map(
        (entries) => new FswcuDict(entries),
      ),
    ),
  }));
  return value;
}

/** Hashable keys of the kinds FSCMT uses. */
export const keyArb: fc.Arbitrary<FswcuValue> = fc.oneof(bytesArb, unicodeArb, int32Arb);

/** What a Python dict considers the same key (b'a' and 'a' differ; 1 and 1 do not). */
export function pythonKey(key: FswcuValue): string {
  if (key instanceof Uint8Array) return `b:${Array.from(key).join(',')}`;
  if (typeof key === 'string') return `u:${key}`;
  return `i:${String(key)}`;
}

/** The value as CPython holds it after loading: one int type, one float type. For comparing with its reply. */
export function asPythonSees(value: FswcuValue): FswcuValue {
  if (typeof value === 'bigint') return value >= INT32_MIN && value <= INT32_MAX ? Number(value) : value;
  if (value instanceof FswcuInt64) return asPythonSees(value.value);
  if (value instanceof FswcuFloat) return new FswcuFloat(value.value, { binary: true });
  if (value instanceof FswcuTuple) return new FswcuTuple(value.items.map(asPythonSees));
  if (Array.isArray(value)) return value.map(asPythonSees);
  if (value instanceof FswcuDict) return new FswcuDict(value.entries.map(([k, v]) => [asPythonSees(k), asPythonSees(v)]));
  return value;
}
