/**
 * The FSWCU value model. FSWCU is CPython's marshal format version 0, and the wire keeps distinctions that plain
 * JavaScript values lose, so every type code maps to a JavaScript shape of its own and a decoded value encodes
 * back to the very same bytes:
 *
 *   'N' None                 -> null
 *   'T' / 'F'                -> true / false
 *   'i' int32                -> number (always an int32)
 *   'I' int64                -> FswcuInt64 (older 64-bit writers; kept apart so it re-encodes as 'I')
 *   'l' long                 -> bigint
 *   'f' float as text        -> FswcuFloat (keeps the text it was read from)
 *   'g' binary64 float       -> FswcuFloat with binary = true
 *   's' byte string          -> Uint8Array
 *   'u' unicode string       -> string
 *   '(' tuple                -> FswcuTuple
 *   '[' list                 -> FswcuValue[]
 *   '{' dict                 -> FswcuDict (ordered entries; keys of any type, compared by value)
 *
 *   const msg = new FswcuDict([[fswcuBytes('cm'), 24]]);
 *   msg.getText('cm'); // 24
 */

export type FswcuValue =
  | null
  | boolean
  | number
  | bigint
  | FswcuInt64
  | FswcuFloat
  | Uint8Array
  | string
  | FswcuTuple
  | FswcuValue[]
  | FswcuDict;

/** A Python tuple. Kept apart from arrays (lists) because the wire tells them apart. */
export class FswcuTuple {
  readonly items: FswcuValue[];

  constructor(items: FswcuValue[]) {
    this.items = items;
  }

  get length(): number {
    return this.items.length;
  }

  at(index: number): FswcuValue | undefined {
    return this.items[index];
  }
}

/** Shorthand for `new FswcuTuple([...])`. */
export function fswcuTuple(...items: FswcuValue[]): FswcuTuple {
  return new FswcuTuple(items);
}

/** A 64-bit int written with type code 'I' (Python 2 on 64-bit hosts). Plain ints outside int32 are bigints ('l'). */
export class FswcuInt64 {
  readonly value: bigint;

  constructor(value: bigint) {
    // Checked here so an FswcuInt64 can always be written: the wire field is exactly 8 bytes.
    if (value !== BigInt.asIntN(64, value)) throw new RangeError(`FswcuInt64 out of range: ${value}`);
    this.value = value;
  }
}

export interface FswcuFloatOptions {
  /** Write as 'g' (8-byte IEEE 754) instead of marshal v0's 'f' (decimal text). */
  binary?: boolean;
  /**
   * For 'f': the exact decimal text to write. Decoding keeps the text it read so that decode then encode gives the
   * input back byte for byte; left out, the encoder writes what CPython's marshal writes (C's "%.17g").
   */
  text?: string;
  /** For 'g' NaNs: the 8 raw bytes, so a NaN payload survives a round trip (DataView may canonicalise NaNs). */
  rawBytes?: Uint8Array;
}

/** A Python float. A wrapper, because 1.0 and 1 are different values on the wire ('f' and 'i'). */
export class FswcuFloat {
  readonly value: number;
  readonly binary: boolean;
  readonly text: string | undefined;
  readonly rawBytes: Uint8Array | undefined;

  constructor(value: number, options: FswcuFloatOptions = {}) {
    this.value = value;
    this.binary = options.binary === true;
    this.text = options.text;
    this.rawBytes = options.rawBytes;
  }
}

const utf8Encoder = new TextEncoder();

/** A Python byte string from text (UTF-8), the usual form of FSCMT keys and strings. */
export function fswcuBytes(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

/** Byte-wise equality of two byte strings. */
export function fswcuBytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Does `key` spell `text`? FSCMT keys are byte strings on the wire, but a 'u' key with the same text is accepted
 * too. Only ASCII text is compared this way (all PKT_* keys are ASCII), so no decoding is needed.
 */
export function fswcuKeyIs(key: FswcuValue, text: string): boolean {
  if (typeof key === 'string') return key === text;
  if (!(key instanceof Uint8Array) || key.length !== text.length) return false;
  for (let i = 0; i < key.length; i++) if (key[i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * A Python dict as ordered entries. Not a Map: keys are mostly byte strings (Uint8Array), which a Map compares by
 * identity, and duplicate keys on the wire must survive a decode/encode round trip. Lookups compare by value.
 */
export class FswcuDict {
  readonly entries: Array<[FswcuValue, FswcuValue]>;

  constructor(entries: Array<[FswcuValue, FswcuValue]> = []) {
    this.entries = entries;
  }

  get size(): number {
    return this.entries.length;
  }

  /** The value of the last entry whose key equals `key` (Python keeps the last one too). */
  get(key: FswcuValue): FswcuValue | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i];
      if (fswcuKeyEquals(entry[0], key)) return entry[1];
    }
    return undefined;
  }

  /** The value of the last entry whose key is the byte (or unicode) string `text`. */
  getText(text: string): FswcuValue | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i];
      if (fswcuKeyIs(entry[0], text)) return entry[1];
    }
    return undefined;
  }

  has(key: FswcuValue): boolean {
    return this.get(key) !== undefined;
  }

  /** Replaces the value of an equal key in place (keeping its position, like Python) or appends a new entry. */
  set(key: FswcuValue, value: FswcuValue): this {
    for (const entry of this.entries) {
      if (fswcuKeyEquals(entry[0], key)) {
        entry[1] = value;
        return this;
      }
    }
    this.entries.push([key, value]);
    return this;
  }

  /** `set` with a byte-string key spelled by `text`. */
  setText(text: string, value: FswcuValue): this {
    return this.set(fswcuBytes(text), value);
  }

  keys(): FswcuValue[] {
    return this.entries.map((e) => e[0]);
  }
}

/**
 * Key equality as a Python dict sees it for the key types FSCMT uses, except that the wire types stay apart
 * (b'a' and u'a', 1 and True are different keys here). Containers and floats compare structurally.
 */
function fswcuKeyEquals(a: FswcuValue, b: FswcuValue): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && fswcuBytesEqual(a, b);
  if (a instanceof FswcuTuple) {
    if (!(b instanceof FswcuTuple) || a.items.length !== b.items.length) return false;
    return a.items.every((item, i) => fswcuKeyEquals(item, b.items[i]));
  }
  if (a instanceof FswcuInt64) return b instanceof FswcuInt64 && a.value === b.value;
  if (a instanceof FswcuFloat) return b instanceof FswcuFloat && a.binary === b.binary && Object.is(a.value, b.value);
  return false;
}
