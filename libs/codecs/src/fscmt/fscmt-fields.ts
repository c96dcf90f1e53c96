/**
 * Field codecs: how one typed field maps to and from an FSWCU value. The typed message and structure readers are
 * built from these, so every field is checked the same way and errors name the path of the bad value.
 *
 * Strings are written as byte strings ('s', UTF-8), as the FSCMT peers write them; readers also accept 'u'.
 * Integers are written as 'i' when they fit an int32 and as a long otherwise (the spec's rule for PKT_VCLOCK);
 * readers accept 'i', 'I' and 'l' within the safe integer range.
 */
import { fswcuSlabAscii } from '../fswcu/fswcu-slab';
import { FswcuDict, FswcuInt64, FswcuTuple, type FswcuValue } from '../fswcu/fswcu-value';
import { FscmtShapeError } from './fscmt-errors';

export interface FscmtFieldCodec<T> {
  read(value: FswcuValue, path: string): T;
  // Method syntax on purpose: it keeps codecs of different T assignable to one table type.
  write(value: T): FswcuValue;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const utf8 = new TextEncoder();
const encodeUtf8 = (text: string): Uint8Array => utf8.encode(text);

/** Short ASCII byte strings (names, ids, most URIs) as text without TextDecoder's per-call cost. */
const ASCII_FAST_MAX = 256;
function asciiText(bytes: Uint8Array): string | undefined {
  const n = bytes.length;
  if (n > ASCII_FAST_MAX) return undefined;
  for (let i = 0; i < n; i++) if (bytes[i] >= 0x80) return undefined;
  // one call over the whole (ASCII, so Latin-1 = UTF-8) array instead of a string built char by char
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

export function fscmtDescribe(value: FswcuValue): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return `int ${value}`;
  if (typeof value === 'bigint') return `long ${value}`;
  if (typeof value === 'string') return 'unicode string';
  if (value instanceof Uint8Array) return 'byte string';
  if (value instanceof FswcuTuple) return `tuple of ${value.items.length}`;
  if (Array.isArray(value)) return `list of ${value.length}`;
  if (value instanceof FswcuDict) return 'dict';
  if (value instanceof FswcuInt64) return `int64 ${value.value}`;
  return 'float';
}

export function fscmtShapeError(path: string, expected: string, got: FswcuValue): FscmtShapeError {
  return new FscmtShapeError(path, `expected ${expected}, got ${fscmtDescribe(got)}`);
}

export const fscmtText: FscmtFieldCodec<string> = {
  read(value, path) {
    if (typeof value === 'string') return value;
    if (value instanceof Uint8Array) {
      const ascii = asciiText(value);
      if (ascii !== undefined) return ascii;
      try {
        return strictUtf8.decode(value);
      } catch {
        throw new FscmtShapeError(path, 'byte string is not UTF-8');
      }
    }
    throw fscmtShapeError(path, 'a string', value);
  },
  // a slab view rather than a fresh ArrayBuffer per string (same bytes as TextEncoder)
  write: (value) => fswcuSlabAscii(value, encodeUtf8),
};

/** Raw bytes, for checksums. */
export const fscmtBytes: FscmtFieldCodec<Uint8Array> = {
  read(value, path) {
    if (value instanceof Uint8Array) return value;
    throw fscmtShapeError(path, 'a byte string', value);
  },
  write: (value) => value,
};

export const fscmtInt: FscmtFieldCodec<number> = {
  read(value, path) {
    if (typeof value === 'number') return value;
    const big = typeof value === 'bigint' ? value : value instanceof FswcuInt64 ? value.value : undefined;
    if (big === undefined) throw fscmtShapeError(path, 'an integer', value);
    if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new FscmtShapeError(path, `integer ${big} is beyond the safe integer range`);
    }
    return Number(big);
  },
  write(value) {
    if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a safe integer`);
    return (value | 0) === value ? value : BigInt(value);
  },
};

/** Any dict, kept as is (crawl configurations, RSS extras). */
export const fscmtDict: FscmtFieldCodec<FswcuDict> = {
  read(value, path) {
    if (value instanceof FswcuDict) return value;
    throw fscmtShapeError(path, 'a dict', value);
  },
  write: (value) => value,
};

/** Any value, kept as is (structures this protocol does not define, such as MS-FSCADM statistics). */
export const fscmtRaw: FscmtFieldCodec<FswcuValue> = {
  read: (value) => value,
  write: (value) => value,
};

/** None or a T. */
export function fscmtNullable<T>(codec: FscmtFieldCodec<T>): FscmtFieldCodec<T | null> {
  return {
    read: (value, path) => (value === null ? null : codec.read(value, path)),
    write: (value) => (value === null ? null : codec.write(value)),
  };
}

/** A list ("array" in the spec) of T; tuples are accepted on reading too. */
export function fscmtListOf<T>(codec: FscmtFieldCodec<T>, maxItems = Infinity): FscmtFieldCodec<T[]> {
  return {
    read(value, path) {
      const items = Array.isArray(value) ? value : value instanceof FswcuTuple ? value.items : undefined;
      if (items === undefined) throw fscmtShapeError(path, 'a list', value);
      if (items.length > maxItems) throw new FscmtShapeError(path, `more than ${maxItems} items`);
      return items.map((item, i) => codec.read(item, `${path}[${i}]`));
    },
    write(value) {
      if (value.length > maxItems) throw new RangeError(`more than ${maxItems} items`);
      return value.map((item) => codec.write(item));
    },
  };
}

/** The items of a tuple of exactly `length` items (or `length` to `maxLength` items). */
/** The labels of a tuple's items under `path`, for errors: `${path}[i]`. */
export type FscmtItemLabels = (i: number) => string;

const itemLabels = new Map<string, FscmtItemLabels>();
/** Paths kept at most: field paths are few (a list's items add one per index seen). */
const MAX_LABELLED_PATHS = 1024;

/**
 * Item labels made once per path rather than a string per item per value read: a queue entry has two URIs of 14
 * items each, and every routed link is one.
 */
export function fscmtItemLabels(path: string): FscmtItemLabels {
  let labels = itemLabels.get(path);
  if (labels === undefined) {
    const made: string[] = [];
    labels = (i) => (made[i] ??= `${path}[${i}]`);
    if (itemLabels.size < MAX_LABELLED_PATHS) itemLabels.set(path, labels);
  }
  return labels;
}

export function fscmtTupleItems(value: FswcuValue, path: string, length: number, maxLength = length): FswcuValue[] {
  if (!(value instanceof FswcuTuple)) throw fscmtShapeError(path, `a tuple of ${length}`, value);
  if (value.items.length < length || value.items.length > maxLength) {
    throw fscmtShapeError(path, length === maxLength ? `a tuple of ${length}` : `a tuple of ${length} to ${maxLength}`, value);
  }
  return value.items;
}

/** A 0/1 int (or Python bool) as a boolean; written as the int. */
export const fscmtFlag: FscmtFieldCodec<boolean> = {
  read(value, path) {
    if (value === 0 || value === false) return false;
    if (value === 1 || value === true) return true;
    throw fscmtShapeError(path, 'the int 0 or 1', value);
  },
  write: (value) => (value ? 1 : 0),
};

type CodecValues<F> = { [K in keyof F]: F[K] extends FscmtFieldCodec<infer T> ? T : never };

/**
 * A fixed tuple read into an object: the order of `fields` is the order of the tuple's items.
 *
 *   const site = fscmtTupleOf({ site: fscmtText, seconds: fscmtInt }); // (str, int) <-> { site, seconds }
 */
export function fscmtTupleOf<F extends Record<string, FscmtFieldCodec<unknown>>>(fields: F): FscmtFieldCodec<CodecValues<F>> {
  const names = Object.keys(fields);
  return {
    read(value, path) {
      const items = fscmtTupleItems(value, path, names.length);
      const out: Record<string, unknown> = {};
      names.forEach((name, i) => {
        out[name] = fields[name].read(items[i], `${path}[${i}]`);
      });
      return out as CodecValues<F>;
    },
    write(value) {
      const record = value as Record<string, unknown>;
      return new FswcuTuple(names.map((name) => fields[name].write(record[name])));
    },
  };
}
