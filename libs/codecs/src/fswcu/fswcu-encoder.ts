/**
 * FSWCU (CPython marshal v0) encoder: the inverse of decodeFswcu, byte for byte.
 *
 *   encodeFswcu(fswcuTuple(new FswcuDict([[fswcuBytes('cm'), 10]]), 0));
 *
 * Values built in JavaScript get the bytes CPython's `marshal.dumps(v, 0)` gives for the same Python value.
 *
 * Like Node's Buffer pool, small results are views into a shared 64 KiB slab: honour `byteOffset`, and copy a
 * result before transferring or detaching its `buffer`. Decoded byte strings are such views as well.
 */
import { FswcuEncodeError } from './fswcu-errors';
import { formatFswcuFloatText, parseFswcuFloatText } from './fswcu-float-text';
import { fswcuLongDigits } from './fswcu-long';
import { fswcuCopyBytes } from './fswcu-slab';
import { maxFswcuUtf8Length, writeFswcuUtf8 } from './fswcu-utf8';
import { FswcuDict, FswcuFloat, FswcuInt64, FswcuTuple, type FswcuValue } from './fswcu-value';
import { FSWCU_DEFAULT_MAX_DEPTH } from './fswcu-decoder';

export interface FswcuEncodeOptions {
  /** Deepest nesting written; also what stops a cyclic structure. Default 1000, as for decoding. */
  maxDepth?: number;
}

/** Encodes one value. */
export function encodeFswcu(value: FswcuValue, options: FswcuEncodeOptions = {}): Uint8Array {
  // One scratch writer serves every call (encoding is synchronous and never re-entered), so a call costs one
  // exact-size copy instead of a fresh buffer grown by doubling.
  const writer = scratch ?? new FswcuWriter();
  scratch = undefined;
  try {
    writer.reset(options.maxDepth ?? FSWCU_DEFAULT_MAX_DEPTH);
    writer.write(value);
    return fswcuCopyBytes(writer.finish());
  } finally {
    writer.shrink();
    scratch = writer;
  }
}

let scratch: FswcuWriter | undefined;

/**
 * A growable output buffer with FSWCU writers. Exported for callers that put FSWCU behind a header (FSCMT frames):
 * `reserve` room first, `write` values, `finish` to get the bytes.
 */
export class FswcuWriter {
  private buf: Uint8Array;
  private pos = 0;
  private depth = 0;
  private maxDepth: number;
  private view: DataView;

  constructor(maxDepth = FSWCU_DEFAULT_MAX_DEPTH, initialCapacity = 256) {
    this.maxDepth = maxDepth;
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  /** Empties the writer for reuse. */
  reset(maxDepth = this.maxDepth): void {
    this.pos = 0;
    this.depth = 0;
    this.maxDepth = maxDepth;
  }

  /** Drops an oversized buffer after a large value, so a reused writer does not pin it. */
  shrink(): void {
    if (this.buf.length > 1 << 20) {
      this.buf = new Uint8Array(256);
      this.view = new DataView(this.buf.buffer);
    }
  }

  get length(): number {
    return this.pos;
  }

  /** Skips `n` bytes (left zero) for the caller to fill later through `patch`. */
  reserve(n: number): number {
    this.ensure(n);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** Writes a big-endian uint32 at an earlier offset (FSCMT length headers). */
  patchUint32BE(at: number, value: number): void {
    this.view.setUint32(at, value, false);
  }

  /** The bytes written so far, as an exact-size copy-free view. */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  write(value: FswcuValue): void {
    // Ordered by how often each kind occurs in FSCMT traffic: ints and byte strings first.
    if (typeof value === 'number') {
      if ((value | 0) !== value) {
        throw new FswcuEncodeError(
          `number ${value} is not an int32; wrap floats in FswcuFloat and write larger ints as bigint (long)`,
        );
      }
      this.ensure(5);
      this.byte(0x69);
      this.int32(value);
    } else if (typeof value === 'string') {
      this.writeUnicode(value);
    } else if (typeof value === 'object') {
      if (value instanceof Uint8Array) this.writeBytes(value);
      else if (value instanceof FswcuTuple) this.writeItems(0x28, value.items);
      else if (value instanceof FswcuDict) this.writeDict(value);
      else if (Array.isArray(value)) this.writeItems(0x5b, value);
      else if (value === null) {
        this.ensure(1);
        this.byte(0x4e);
      } else if (value instanceof FswcuFloat) this.writeFloat(value);
      else if (value instanceof FswcuInt64) {
        this.ensure(9);
        this.byte(0x49);
        this.view.setBigInt64(this.pos, value.value, true);
        this.pos += 8;
      } else throw new FswcuEncodeError(`cannot encode ${describe(value)} as FSWCU`);
    } else if (typeof value === 'boolean') {
      this.ensure(1);
      this.byte(value ? 0x54 : 0x46);
    } else if (typeof value === 'bigint') {
      this.writeLong(value);
    } else {
      throw new FswcuEncodeError(`cannot encode ${describe(value)} as FSWCU`);
    }
  }

  private writeBytes(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(5 + n);
    this.byte(0x73);
    this.int32(n);
    // TypedArray.set has a fixed cost that outweighs a plain loop for the short strings FSCMT is made of.
    if (n <= 16) {
      const buf = this.buf;
      let p = this.pos;
      for (let i = 0; i < n; i++) buf[p++] = bytes[i];
      this.pos = p;
    } else {
      this.buf.set(bytes, this.pos);
      this.pos += n;
    }
  }

  private writeItems(code: number, items: FswcuValue[]): void {
    this.enter();
    this.ensure(5);
    this.byte(code);
    this.int32(items.length);
    for (let i = 0; i < items.length; i++) this.write(items[i]);
    this.depth--;
  }

  private writeDict(dict: FswcuDict): void {
    this.enter();
    this.ensure(1);
    this.byte(0x7b);
    const entries = dict.entries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      this.write(entry[0]);
      this.write(entry[1]);
    }
    this.ensure(1);
    this.byte(0x30);
    this.depth--;
  }

  private writeUnicode(text: string): void {
    this.ensure(5 + maxFswcuUtf8Length(text));
    this.byte(0x75);
    const lengthAt = this.pos;
    const end = writeFswcuUtf8(text, this.buf, lengthAt + 4);
    this.pos = lengthAt;
    this.int32(end - lengthAt - 4);
    this.pos = end;
  }

  private writeLong(value: bigint): void {
    const digits = fswcuLongDigits(value);
    if (digits.length > 0x7fffffff) throw new FswcuEncodeError('long too large for FSWCU');
    this.ensure(5 + 2 * digits.length);
    this.byte(0x6c);
    this.int32(value < 0n ? -digits.length : digits.length);
    for (let i = 0; i < digits.length; i++) {
      const d = digits[i];
      this.buf[this.pos++] = d & 0xff;
      this.buf[this.pos++] = d >> 8;
    }
  }

  private writeFloat(f: FswcuFloat): void {
    if (f.binary) {
      this.ensure(9);
      this.byte(0x67);
      if (f.rawBytes !== undefined && f.rawBytes.length === 8 && Number.isNaN(f.value)) this.buf.set(f.rawBytes, this.pos);
      else this.view.setFloat64(this.pos, f.value, true);
      this.pos += 8;
      return;
    }
    const text = f.text ?? formatFswcuFloatText(f.value);
    if (f.text !== undefined) {
      const parsed = parseFswcuFloatText(f.text);
      if (parsed === undefined || !(Object.is(parsed, f.value) || (Number.isNaN(parsed) && Number.isNaN(f.value)))) {
        throw new FswcuEncodeError(`FswcuFloat text ${JSON.stringify(f.text)} does not spell its value ${f.value}`);
      }
    }
    if (text.length > 255) throw new FswcuEncodeError('float text longer than 255 bytes');
    this.ensure(2 + text.length);
    this.byte(0x66);
    this.byte(text.length);
    for (let i = 0; i < text.length; i++) this.buf[this.pos++] = text.charCodeAt(i);
  }

  private enter(): void {
    if (++this.depth > this.maxDepth) {
      throw new FswcuEncodeError(`value nested deeper than ${this.maxDepth} levels (or cyclic)`);
    }
  }

  private byte(b: number): void {
    this.buf[this.pos++] = b;
  }

  private int32(n: number): void {
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = n & 0xff;
    buf[p++] = (n >> 8) & 0xff;
    buf[p++] = (n >> 16) & 0xff;
    buf[p++] = (n >> 24) & 0xff;
    this.pos = p;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let capacity = this.buf.length * 2;
    while (capacity < this.pos + n) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'object') return `an object (${Object.getPrototypeOf(value)?.constructor?.name ?? 'null prototype'})`;
  return `a ${typeof value}`;
}
