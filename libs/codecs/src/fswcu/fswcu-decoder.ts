/**
 * FSWCU (CPython marshal v0) decoder.
 *
 *   const value = decodeFswcu(bytes);                 // exactly one value, nothing after it
 *   const { value, end } = decodeFswcuPrefix(bytes);  // one value at the start, tells where it ended
 *
 * Hostile input is bounded: a count or length is checked against the bytes left before anything is allocated
 * (every item takes at least one byte), and nesting is capped, so memory stays proportional to the input and the
 * stack stays shallow. Every failure is a CodecError subclass carrying the byte offset.
 */
import {
  FswcuBadFloatError,
  FswcuBadLengthError,
  FswcuBadLongError,
  FswcuBadStringError,
  FswcuBadTypeCodeError,
  FswcuDepthError,
  FswcuTrailingBytesError,
  FswcuTruncatedError,
} from './fswcu-errors';
import { parseFswcuFloatText } from './fswcu-float-text';
import { readFswcuLongMagnitude } from './fswcu-long';
import { fswcuCopyBytes } from './fswcu-slab';
import { decodeFswcuUtf8 } from './fswcu-utf8';
import { FswcuDict, FswcuFloat, FswcuInt64, FswcuTuple, type FswcuValue } from './fswcu-value';

export interface FswcuDecodeOptions {
  /** Deepest container nesting accepted. Default 1000 (CPython's own limit is 2000). */
  maxDepth?: number;
  /** Added to every offset in errors, for callers decoding a slice of a larger stream. */
  baseOffset?: number;
  /**
   * Byte strings ('s') come out as views into the buffer they were decoded from; that is much faster than one
   * copy per string. By default the input is copied once first, so the caller may reuse its buffer. Set this when
   * the input is never modified afterwards and the copy can be skipped.
   */
  shareInput?: boolean;
}

export const FSWCU_DEFAULT_MAX_DEPTH = 1000;

const latin1 = new TextDecoder('latin1');

/** Decodes one value that must fill `bytes` exactly. */
export function decodeFswcu(input: Uint8Array, options: FswcuDecodeOptions = {}): FswcuValue {
  const bytes = options.shareInput === true ? input : fswcuCopyBytes(input);
  const reader = new FswcuReader(bytes, 0, bytes.length, options.baseOffset ?? 0, options.maxDepth);
  const value = reader.readValue();
  if (reader.pos !== bytes.length) {
    throw new FswcuTrailingBytesError(bytes.length - reader.pos, reader.pos + (options.baseOffset ?? 0));
  }
  return value;
}

/**
 * Decodes one value from bytes[start, end) and returns it with the offset just after it (in `bytes`). Copies
 * bytes[start, end) first unless `shareInput` is set, as decodeFswcu does.
 */
export function decodeFswcuPrefix(
  bytes: Uint8Array,
  options: FswcuDecodeOptions & { start?: number; end?: number } = {},
): { value: FswcuValue; end: number } {
  const start = options.start ?? 0;
  const end = options.end ?? bytes.length;
  if (options.shareInput === true) {
    const reader = new FswcuReader(bytes, start, end, options.baseOffset ?? 0, options.maxDepth);
    return { value: reader.readValue(), end: reader.pos };
  }
  const copy = fswcuCopyBytes(bytes.subarray(start, end));
  const reader = new FswcuReader(copy, 0, copy.length, (options.baseOffset ?? 0) + start, options.maxDepth);
  return { value: reader.readValue(), end: reader.pos + start };
}

const T_NULL = 0x30; // '0', only valid as a dict terminator
const T_NONE = 0x4e; // 'N'
const T_TRUE = 0x54; // 'T'
const T_FALSE = 0x46; // 'F'
const T_INT = 0x69; // 'i'
const T_INT64 = 0x49; // 'I'
const T_LONG = 0x6c; // 'l'
const T_FLOAT = 0x66; // 'f'
const T_BINARY_FLOAT = 0x67; // 'g'
const T_STRING = 0x73; // 's'
const T_UNICODE = 0x75; // 'u'
const T_TUPLE = 0x28; // '('
const T_LIST = 0x5b; // '['
const T_DICT = 0x7b; // '{'

/** A cursor over bytes[pos, end). Internal: one instance per decode. */
class FswcuReader {
  pos: number;
  private readonly bytes: Uint8Array;
  private readonly buffer: ArrayBufferLike;
  private readonly byteOffset: number;
  private readonly end: number;
  private readonly base: number;
  private readonly maxDepth: number;
  private depth = 0;
  private view: DataView | undefined;

  constructor(bytes: Uint8Array, start: number, end: number, base: number, maxDepth = FSWCU_DEFAULT_MAX_DEPTH) {
    this.bytes = bytes;
    this.buffer = bytes.buffer;
    this.byteOffset = bytes.byteOffset;
    this.pos = start;
    this.end = end;
    this.base = base;
    this.maxDepth = maxDepth;
  }

  readValue(): FswcuValue {
    if (this.pos >= this.end) throw this.truncated('input ended where a value was expected', this.pos);
    const at = this.pos;
    const code = this.bytes[this.pos++];
    switch (code) {
      case T_STRING: {
        const n = this.readLength(at, 1);
        const start = this.pos;
        this.pos += n;
        // A view, not a copy: the input is private to the decode (see shareInput). Built with the constructor,
        // which is about twice as cheap as subarray() (no species lookup); this is the decoder's hottest line.
        return new Uint8Array(this.buffer, this.byteOffset + start, n);
      }
      case T_INT:
        return this.readInt32(at);
      case T_TUPLE:
        return new FswcuTuple(this.readItems(at));
      case T_DICT:
        return this.readDict(at);
      case T_UNICODE:
        return this.readUnicode(at);
      case T_LIST:
        return this.readItems(at);
      case T_NONE:
        return null;
      case T_TRUE:
        return true;
      case T_FALSE:
        return false;
      case T_LONG:
        return this.readLong(at);
      case T_INT64:
        return this.readInt64(at);
      case T_FLOAT:
        return this.readFloatText(at);
      case T_BINARY_FLOAT:
        return this.readBinaryFloat(at);
      default:
        throw new FswcuBadTypeCodeError(code, at + this.base);
    }
  }

  private readInt32(at: number): number {
    const p = this.pos;
    if (p + 4 > this.end) throw this.truncated("input ended inside an 'i' int", at);
    const b = this.bytes;
    this.pos = p + 4;
    return b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24);
  }

  /**
   * Reads an int32 count and checks that `count * itemBytes` more bytes exist, so nothing is allocated for a
   * count the input cannot back.
   */
  private readLength(at: number, itemBytes: number): number {
    const p = this.pos;
    if (p + 4 > this.end) throw this.truncated('input ended inside a length field', at);
    const b = this.bytes;
    const n = b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24);
    this.pos = p + 4;
    if (n < 0) throw new FswcuBadLengthError(`negative length ${n}`, p + this.base);
    if (n * itemBytes > this.end - this.pos) {
      throw this.truncated(`length ${n} runs past the end of the input (${this.end - this.pos} bytes left)`, at);
    }
    return n;
  }

  private readItems(at: number): FswcuValue[] {
    const n = this.readLength(at, 1);
    if (++this.depth > this.maxDepth) throw new FswcuDepthError(this.maxDepth, at + this.base);
    const items = new Array<FswcuValue>(n);
    for (let i = 0; i < n; i++) items[i] = this.readValue();
    this.depth--;
    return items;
  }

  private readDict(at: number): FswcuDict {
    if (++this.depth > this.maxDepth) throw new FswcuDepthError(this.maxDepth, at + this.base);
    const entries: Array<[FswcuValue, FswcuValue]> = [];
    for (;;) {
      if (this.pos >= this.end) throw this.truncated("input ended inside a dict (no '0' terminator)", at);
      if (this.bytes[this.pos] === T_NULL) {
        this.pos++;
        break;
      }
      const key = this.readValue();
      entries.push([key, this.readValue()]);
    }
    this.depth--;
    return new FswcuDict(entries);
  }

  private readUnicode(at: number): string {
    const n = this.readLength(at, 1);
    const start = this.pos;
    this.pos += n;
    const text = decodeFswcuUtf8(this.bytes, start, start + n);
    if (typeof text !== 'string') throw new FswcuBadStringError(text.message, start + text.at + this.base);
    return text;
  }

  private readLong(at: number): bigint {
    const p = this.pos;
    if (p + 4 > this.end) throw this.truncated("input ended inside an 'l' long", at);
    const b = this.bytes;
    const signed = b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24);
    this.pos = p + 4;
    // |INT32_MIN| does not fit an int32; CPython refuses it as well.
    if (signed === -0x80000000) throw new FswcuBadLongError('long digit count out of range', p + this.base);
    const count = Math.abs(signed);
    if (count * 2 > this.end - this.pos) {
      throw this.truncated(`long of ${count} digits runs past the end of the input`, at);
    }
    const start = this.pos;
    for (let k = 0; k < count; k++) {
      if (b[start + 2 * k + 1] & 0x80) throw new FswcuBadLongError('long digit out of range (over 15 bits)', start + 2 * k + this.base);
    }
    if (count > 0 && b[start + 2 * count - 2] === 0 && b[start + 2 * count - 1] === 0) {
      throw new FswcuBadLongError('unnormalised long (top digit is zero)', start + 2 * count - 2 + this.base);
    }
    this.pos = start + 2 * count;
    const magnitude = readFswcuLongMagnitude(b, start, count);
    return signed < 0 ? -magnitude : magnitude;
  }

  private readInt64(at: number): FswcuInt64 {
    if (this.pos + 8 > this.end) throw this.truncated("input ended inside an 'I' int64", at);
    const value = this.dataView().getBigInt64(this.pos, true);
    this.pos += 8;
    return new FswcuInt64(value);
  }

  private readFloatText(at: number): FswcuFloat {
    if (this.pos >= this.end) throw this.truncated("input ended inside an 'f' float", at);
    const n = this.bytes[this.pos++];
    if (n > this.end - this.pos) throw this.truncated("'f' float text runs past the end of the input", at);
    const text = latin1.decode(this.bytes.subarray(this.pos, this.pos + n));
    const value = parseFswcuFloatText(text);
    if (value === undefined) throw new FswcuBadFloatError(`bad float text ${JSON.stringify(text)}`, this.pos + this.base);
    this.pos += n;
    return new FswcuFloat(value, { text });
  }

  private readBinaryFloat(at: number): FswcuFloat {
    if (this.pos + 8 > this.end) throw this.truncated("input ended inside a 'g' float", at);
    const value = this.dataView().getFloat64(this.pos, true);
    const rawBytes = Number.isNaN(value) ? this.bytes.slice(this.pos, this.pos + 8) : undefined;
    this.pos += 8;
    return new FswcuFloat(value, { binary: true, rawBytes });
  }

  private dataView(): DataView {
    this.view ??= new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    return this.view;
  }

  private truncated(message: string, at: number): FswcuTruncatedError {
    return new FswcuTruncatedError(`${message}; the value starts at byte ${at + this.base}`, this.end + this.base);
  }
}
