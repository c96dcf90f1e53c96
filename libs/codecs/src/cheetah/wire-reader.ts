/**
 * Reads one entity tree written by wire-writer from the payload of a Cheetah extension. Every read is
 * bounds-checked and typed: a value of the wrong MessagePack type gives a CheetahFieldError naming the entity
 * being decoded and the field; running out of bytes a CheetahMalformedError. Synchronous and not re-entrant.
 *
 * Accepted formats are those of MessagePack for the field's type, not only the ones the writer picks: any integer
 * format for int/longint (within range), float32/float64 or any integer for float, str8/16/32 and fixstr, bin,
 * fixarray/array16/array32.
 */
import { CheetahMalformedError } from './cheetah-errors';
import { type CheetahEntity, type CheetahOwner } from './entity';
import { fieldTypeError } from './field-checks';

/** Node's Buffer slices without toString's argument handling (present since Node 0.x; msgpackr uses them too). */
interface FastText {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

let src: Uint8Array = new Uint8Array(0);
let text = Buffer.alloc(0) as unknown as FastText;
let view = new DataView(src.buffer);
let pos = 0;
let end = 0;

/** Decodes the entity whose array header (type id and checksum included) was just read; set by the registry. */
type EntityDispatcher = (typeId: number, checksum: number, fieldCount: number) => CheetahEntity;
let dispatch: EntityDispatcher = () => {
  throw new CheetahMalformedError('no Cheetah entity classes registered');
};

export function setEntityDispatcher(d: EntityDispatcher): void {
  dispatch = d;
}

function truncated(): CheetahMalformedError {
  return new CheetahMalformedError(`Cheetah entity truncated at byte ${pos} of ${end}`);
}

/** What a MessagePack lead byte starts, for error messages. */
function describeToken(b: number | undefined): string {
  if (b === undefined) return 'the end of the data';
  if (b < 0x80 || b >= 0xe0 || (b >= 0xcc && b <= 0xd3)) return 'an integer';
  if (b < 0x90 || b === 0xde || b === 0xdf) return 'a map';
  if (b < 0xa0 || b === 0xdc || b === 0xdd) return 'an array';
  if (b < 0xc0 || (b >= 0xd9 && b <= 0xdb)) return 'a string';
  if (b === 0xc0) return 'nil';
  if (b === 0xc2 || b === 0xc3) return 'a bool';
  if (b >= 0xc4 && b <= 0xc6) return 'a bytearray (bin)';
  if (b === 0xca || b === 0xcb) return 'a float';
  if (b === 0xc1) return 'the never-used byte 0xc1';
  return 'an extension';
}

function wrongType(owner: CheetahOwner | undefined, field: string, index: number, expected: string): Error {
  const got = describeToken(pos < end ? src[pos] : undefined);
  if (owner === undefined) return new CheetahMalformedError(`expected ${expected}, got ${got}`);
  return fieldTypeError(owner, field, expected, got, index, true);
}

/** Starts reading `bytes` (one extension payload). */
export function beginRead(bytes: Uint8Array): void {
  src = bytes;
  text = (Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as unknown as FastText;
  view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  pos = 0;
  end = bytes.byteLength;
}

/** Fails unless the whole payload was read. */
export function endRead(): void {
  if (pos !== end) throw new CheetahMalformedError(`${end - pos} byte(s) left over after the Cheetah entity`);
}

/** What a decoded empty collection is: one shared frozen array (empty collections are common: warnings, ...). */
export const EMPTY_COLLECTION: readonly never[] = Object.freeze([]);

// ---- scalars

/** Any MessagePack integer that is a safe integer; `what` names the expected type in errors. */
function readInteger(owner: CheetahOwner | undefined, field: string, index: number, what: string): number {
  if (pos >= end) throw truncated();
  const b = src[pos];
  if (b < 0x80) {
    pos++;
    return b;
  }
  if (b >= 0xe0) {
    pos++;
    return b - 0x100;
  }
  let size: number;
  switch (b) {
    case 0xcc:
    case 0xd0:
      size = 2;
      break;
    case 0xcd:
    case 0xd1:
      size = 3;
      break;
    case 0xce:
    case 0xd2:
      size = 5;
      break;
    case 0xcf:
    case 0xd3:
      size = 9;
      break;
    default:
      throw wrongType(owner, field, index, what);
  }
  if (pos + size > end) throw truncated();
  const p = pos + 1;
  let v: number;
  switch (b) {
    case 0xcc:
      v = src[p];
      break;
    case 0xd0:
      v = view.getInt8(p);
      break;
    case 0xcd:
      v = view.getUint16(p);
      break;
    case 0xd1:
      v = view.getInt16(p);
      break;
    case 0xce:
      v = view.getUint32(p);
      break;
    case 0xd2:
      v = view.getInt32(p);
      break;
    case 0xcf:
      v = view.getUint32(p) * 0x100000000 + view.getUint32(p + 4);
      break;
    default:
      v = view.getInt32(p) * 0x100000000 + view.getUint32(p + 4);
  }
  if (!Number.isSafeInteger(v)) throw wrongType(owner, field, index, `${what} (a safe integer)`);
  pos += size;
  return v;
}

export function readInt(owner: CheetahOwner, field: string, index = -1): number {
  const v = readInteger(owner, field, index, 'an int');
  if ((v | 0) !== v) {
    throw fieldTypeError(owner, field, 'an int (32-bit signed integer)', v, index);
  }
  return v;
}

export function readLong(owner: CheetahOwner, field: string, index = -1): number {
  return readInteger(owner, field, index, 'a longint');
}

export function readFloat(owner: CheetahOwner, field: string, index = -1): number {
  if (pos >= end) throw truncated();
  const b = src[pos];
  if (b === 0xcb) {
    if (pos + 9 > end) throw truncated();
    const v = view.getFloat64(pos + 1);
    pos += 9;
    return v;
  }
  if (b === 0xca) {
    if (pos + 5 > end) throw truncated();
    const v = view.getFloat32(pos + 1);
    pos += 5;
    return v;
  }
  return readInteger(owner, field, index, 'a float');
}

export function readBool(owner: CheetahOwner, field: string, index = -1): boolean {
  if (pos >= end) throw truncated();
  const b = src[pos];
  if (b === 0xc3) {
    pos++;
    return true;
  }
  if (b === 0xc2) {
    pos++;
    return false;
  }
  throw wrongType(owner, field, index, 'a bool');
}

/**
 * Short ASCII strings (keys, tags, languages) repeat: they come from a cache without allocating. An entry is found
 * by the string's bytes read as four big-endian 32-bit words (zero past its length), so a lookup compares five
 * numbers instead of characters.
 */
const CACHE_BITS = 12;
const CACHE_SIZE = 1 << CACHE_BITS;
const cacheWords = new Int32Array(CACHE_SIZE * 4);
const cacheLengths = new Int8Array(CACHE_SIZE).fill(-1);
const cacheStrings: string[] = new Array<string>(CACHE_SIZE).fill('');

/** Bytes [at, at + 4) of a string of `length` bytes starting at `start`, as a big-endian word zero-padded. */
function word(start: number, length: number, at: number): number {
  if (at >= length) return 0;
  if (start + at + 4 <= end) {
    const w = view.getInt32(start + at);
    const left = length - at;
    return left >= 4 ? w : w & ~(-1 >>> (left << 3)); // keep the first `left` bytes
  }
  let w = 0;
  for (let k = 0; k < 4; k++) w = (w << 8) | (at + k < length ? src[start + at + k] : 0);
  return w;
}

/**
 * An ASCII string of the payload, as a string of its own (one native call). Not a substring of the whole payload
 * read once as Latin-1, as before: from 13 characters on V8 makes a substring a view that keeps the whole payload's
 * string alive, and one such string kept (a cached key, a document id in a log, an attribute passed through) keeps its
 * whole batch with it, so whole payloads survive the item processor's young-generation collections. The copy costs a
 * little decoding time, far less than the memory it frees.
 */
function asciiText(start: number, length: number): string {
  return text.latin1Slice(start, start + length);
}

function isAscii(start: number, length: number): boolean {
  let i = start;
  const stop = start + length;
  for (; i + 4 <= stop; i += 4) if ((view.getInt32(i) & 0x80808080) !== 0) return false;
  for (; i < stop; i++) if (src[i] >= 0x80) return false;
  return true;
}

function decodeText(start: number, length: number): string {
  if (length > 16) return isAscii(start, length) ? asciiText(start, length) : text.utf8Slice(start, start + length);
  if (length === 0) return '';
  const w0 = word(start, length, 0);
  const w1 = word(start, length, 4);
  const w2 = word(start, length, 8);
  const w3 = word(start, length, 12);
  let h = Math.imul(w0 ^ Math.imul(w1, 0x9e3779b1) ^ Math.imul(w2 ^ length, 0x85ebca77) ^ w3, 0xc2b2ae3d);
  h = (h ^ (h >>> 15)) & (CACHE_SIZE - 1);
  const k = h << 2;
  if (
    cacheLengths[h] === length &&
    cacheWords[k] === w0 &&
    cacheWords[k + 1] === w1 &&
    cacheWords[k + 2] === w2 &&
    cacheWords[k + 3] === w3
  ) {
    return cacheStrings[h];
  }
  if (((w0 | w1 | w2 | w3) & 0x80808080) !== 0) return text.utf8Slice(start, start + length);
  const s = asciiText(start, length);
  cacheLengths[h] = length;
  cacheWords[k] = w0;
  cacheWords[k + 1] = w1;
  cacheWords[k + 2] = w2;
  cacheWords[k + 3] = w3;
  cacheStrings[h] = s;
  return s;
}

export function readString(owner: CheetahOwner | undefined, field: string, index = -1): string {
  if (pos >= end) throw truncated();
  const b = src[pos];
  let length: number;
  let start: number;
  if ((b & 0xe0) === 0xa0) {
    length = b & 0x1f;
    start = pos + 1;
  } else if (b === 0xd9) {
    if (pos + 2 > end) throw truncated();
    length = src[pos + 1];
    start = pos + 2;
  } else if (b === 0xda) {
    if (pos + 3 > end) throw truncated();
    length = view.getUint16(pos + 1);
    start = pos + 3;
  } else if (b === 0xdb) {
    if (pos + 5 > end) throw truncated();
    length = view.getUint32(pos + 1);
    start = pos + 5;
  } else {
    throw wrongType(owner, field, index, 'a string');
  }
  if (start + length > end) throw truncated();
  pos = start + length;
  return decodeText(start, length);
}

export function readBytes(owner: CheetahOwner, field: string, index = -1): Uint8Array {
  if (pos >= end) throw truncated();
  const b = src[pos];
  let length: number;
  let start: number;
  if (b === 0xc4) {
    if (pos + 2 > end) throw truncated();
    length = src[pos + 1];
    start = pos + 2;
  } else if (b === 0xc5) {
    if (pos + 3 > end) throw truncated();
    length = view.getUint16(pos + 1);
    start = pos + 3;
  } else if (b === 0xc6) {
    if (pos + 5 > end) throw truncated();
    length = view.getUint32(pos + 1);
    start = pos + 5;
  } else {
    throw wrongType(owner, field, index, 'a bytearray (bin)');
  }
  if (start + length > end) throw truncated();
  pos = start + length;
  const out = new Uint8Array(length);
  out.set(src.subarray(start, start + length));
  return out;
}

/** An array header; its length is bounded by the bytes left (every element takes at least one). */
export function readArrayHeader(owner: CheetahOwner | undefined, field: string, expected: string, index = -1): number {
  if (pos >= end) throw truncated();
  const b = src[pos];
  let n: number;
  if ((b & 0xf0) === 0x90) {
    n = b & 0x0f;
    pos++;
  } else if (b === 0xdc) {
    if (pos + 3 > end) throw truncated();
    n = view.getUint16(pos + 1);
    pos += 3;
  } else if (b === 0xdd) {
    if (pos + 5 > end) throw truncated();
    n = view.getUint32(pos + 1);
    pos += 5;
  } else {
    throw wrongType(owner, field, index, expected);
  }
  if (n > end - pos) throw truncated();
  return n;
}

// ---- entities

/**
 * An entity `[typeId, checksum, ...fields]` of any class; the caller checks that it is of the expected type.
 * `owner` undefined: the root of the payload.
 */
export function readEntity(owner: CheetahOwner | undefined, field: string, index = -1): CheetahEntity {
  const n = readArrayHeader(owner, field, 'a Cheetah entity [typeId, checksum, ...fields]', index);
  if (n < 2) throw new CheetahMalformedError(`a Cheetah entity needs a type id and a checksum, got ${n} element(s)`);
  let typeId: number;
  let checksum: number;
  // fast path: the writer's own layout (fixint type id, uint32/int32 checksum)
  const t = src[pos];
  const c = src[pos + 1];
  if (t < 0x80 && pos + 6 <= end && (c === 0xce || c === 0xd2)) {
    typeId = t;
    checksum = c === 0xce ? view.getUint32(pos + 2) : view.getInt32(pos + 2);
    pos += 6;
  } else {
    typeId = readInteger(undefined, 'typeId', -1, 'an integer Cheetah type id');
    checksum = readInteger(undefined, 'checksum', -1, 'an integer Cheetah checksum');
  }
  return dispatch(typeId, checksum, n - 2);
}

/** `[...]` of entities of any class. */
export function readEntityCollectionHeader(owner: CheetahOwner, field: string): number {
  return readArrayHeader(owner, field, 'a collection of Cheetah entities');
}

// ---- collections of scalars

export function readStrings(owner: CheetahOwner, field: string): readonly string[] {
  const n = readArrayHeader(owner, field, 'a collection of string');
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = readString(owner, field, i);
  return out;
}

export function readInts(owner: CheetahOwner, field: string): readonly number[] {
  const n = readArrayHeader(owner, field, 'a collection of integer');
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = readInt(owner, field, i);
  return out;
}

export function readLongs(owner: CheetahOwner, field: string): readonly number[] {
  const n = readArrayHeader(owner, field, 'a collection of longint');
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = readLong(owner, field, i);
  return out;
}

export function readFloats(owner: CheetahOwner, field: string): readonly number[] {
  const n = readArrayHeader(owner, field, 'a collection of float');
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = readFloat(owner, field, i);
  return out;
}

export function readBools(owner: CheetahOwner, field: string): readonly boolean[] {
  const n = readArrayHeader(owner, field, 'a collection of bool');
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<boolean>(n);
  for (let i = 0; i < n; i++) out[i] = readBool(owner, field, i);
  return out;
}

export function readBytesList(owner: CheetahOwner, field: string): readonly Uint8Array[] {
  const n = readArrayHeader(owner, field, 'a collection of bytearray');
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<Uint8Array>(n);
  for (let i = 0; i < n; i++) out[i] = readBytes(owner, field, i);
  return out;
}
