/**
 * Writes one entity tree as MessagePack into a scratch buffer: each entity is the array
 * `[typeId, checksum, ...fields]`, an entity-typed field or collection element being such an array again.
 * Entity classes write their fields with the functions below; the msgpackr extension then copies the scratch
 * bytes out behind its header. Synchronous and not re-entrant: one tree at a time.
 *
 * Formats: integers in the smallest MessagePack integer format (int64/uint64 beyond 32 bits), floats always as
 * float64 (so -0 and NaN survive), strings as UTF-8 str, byte arrays as bin.
 */
import { CheetahEncodeError } from './cheetah-errors';
import { CheetahEntity, cheetahDescriptorOf } from './entity';

let buf = Buffer.allocUnsafeSlow(64 * 1024);
let view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
let pos = 0;

const TWO_32 = 0x100000000;

function grow(need: number): void {
  let size = buf.length * 2;
  while (size < pos + need) size *= 2;
  const next = Buffer.allocUnsafeSlow(size);
  buf.copy(next, 0, 0, pos);
  buf = next;
  view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

function ensure(n: number): void {
  if (pos + n > buf.length) grow(n);
}

/** Starts a tree; returns nothing, the bytes are taken with `copyWritten`. */
export function resetWriter(): void {
  pos = 0;
}

export function writtenLength(): number {
  return pos;
}

/** Copies the bytes written since `resetWriter` to `target` at `offset`. */
export function copyWritten(target: Uint8Array, offset: number): void {
  buf.copy(target, offset, 0, pos);
}

// ---- scalars

export function writeArrayHeader(n: number): void {
  ensure(5);
  if (n < 16) {
    buf[pos++] = 0x90 | n;
  } else if (n < 0x10000) {
    buf[pos] = 0xdc;
    view.setUint16(pos + 1, n);
    pos += 3;
  } else {
    buf[pos] = 0xdd;
    view.setUint32(pos + 1, n);
    pos += 5;
  }
}

/** A field changed behind the types' back after construction (the constructor checked it). */
function notEncodable(what: string, v: unknown): CheetahEncodeError {
  return new CheetahEncodeError(`cannot encode ${typeof v} ${String(v)} as ${what}`);
}

/** Any safe integer (int and longint fields). */
export function writeInteger(v: number): void {
  if (!Number.isSafeInteger(v)) throw notEncodable('an integer', v);
  ensure(9);
  if (v >= 0) {
    if (v < 0x80) {
      buf[pos++] = v;
    } else if (v < 0x100) {
      buf[pos++] = 0xcc;
      buf[pos++] = v;
    } else if (v < 0x10000) {
      buf[pos] = 0xcd;
      view.setUint16(pos + 1, v);
      pos += 3;
    } else if (v < TWO_32) {
      buf[pos] = 0xce;
      view.setUint32(pos + 1, v);
      pos += 5;
    } else {
      buf[pos] = 0xcf;
      view.setUint32(pos + 1, Math.floor(v / TWO_32));
      view.setUint32(pos + 5, v >>> 0);
      pos += 9;
    }
  } else if (v >= -0x20) {
    buf[pos++] = v & 0xff;
  } else if (v >= -0x80) {
    buf[pos++] = 0xd0;
    buf[pos++] = v & 0xff;
  } else if (v >= -0x8000) {
    buf[pos] = 0xd1;
    view.setInt16(pos + 1, v);
    pos += 3;
  } else if (v >= -0x80000000) {
    buf[pos] = 0xd2;
    view.setInt32(pos + 1, v);
    pos += 5;
  } else {
    buf[pos] = 0xd3;
    view.setInt32(pos + 1, Math.floor(v / TWO_32));
    view.setUint32(pos + 5, v >>> 0);
    pos += 9;
  }
}

export function writeFloat(v: number): void {
  if (typeof v !== 'number') throw notEncodable('a float', v);
  ensure(9);
  buf[pos] = 0xcb;
  view.setFloat64(pos + 1, v);
  pos += 9;
}

export function writeBool(v: boolean): void {
  if (typeof v !== 'boolean') throw notEncodable('a bool', v);
  ensure(1);
  buf[pos++] = v ? 0xc3 : 0xc2;
}

export function writeString(s: string): void {
  if (typeof s !== 'string') throw notEncodable('a string', s);
  const n = s.length;
  if (n < 32) {
    // ASCII fast path as fixstr; anything else falls through to the general path
    ensure(n + 1);
    const start = pos + 1;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[start + i] = c;
    }
    if (i === n) {
      buf[pos] = 0xa0 | n;
      pos = start + n;
      return;
    }
  }
  const max = n * 3;
  const header = max < 0x20 ? 1 : max < 0x100 ? 2 : max < 0x10000 ? 3 : 5;
  ensure(header + max);
  const start = pos + header;
  const bytes = buf.write(s, start);
  if (header === 1) {
    buf[pos] = 0xa0 | bytes;
  } else if (header === 2) {
    buf[pos] = 0xd9;
    buf[pos + 1] = bytes;
  } else if (header === 3) {
    buf[pos] = 0xda;
    view.setUint16(pos + 1, bytes);
  } else {
    buf[pos] = 0xdb;
    view.setUint32(pos + 1, bytes);
  }
  pos = start + bytes;
}

export function writeBytes(b: Uint8Array): void {
  if (!(b instanceof Uint8Array)) throw notEncodable('a bytearray', b);
  const n = b.length;
  ensure(5 + n);
  if (n < 0x100) {
    buf[pos] = 0xc4;
    buf[pos + 1] = n;
    pos += 2;
  } else if (n < 0x10000) {
    buf[pos] = 0xc5;
    view.setUint16(pos + 1, n);
    pos += 3;
  } else {
    buf[pos] = 0xc6;
    view.setUint32(pos + 1, n);
    pos += 5;
  }
  buf.set(b, pos);
  pos += n;
}

// ---- entities

/** `[typeId, checksum, ...fields]` of the entity's most derived class. */
export function writeEntity(e: CheetahEntity): void {
  if (!(e instanceof CheetahEntity)) throw notEncodable('a Cheetah entity', e);
  const d = cheetahDescriptorOf(e);
  ensure(7);
  buf[pos] = 0x90 | (d.fields.length + 2); // fewer than 14 fields and type ids below 0x80: checked by the registry
  buf[pos + 1] = d.typeId;
  const checksum = d.checksum;
  if (checksum < 0) {
    buf[pos + 2] = 0xd2;
    view.setInt32(pos + 3, checksum);
  } else {
    buf[pos + 2] = 0xce;
    view.setUint32(pos + 3, checksum);
  }
  pos += 7;
  e.encodeCheetahFields();
}

// ---- collections

export function writeEntities(list: readonly CheetahEntity[]): void {
  const n = list.length;
  writeArrayHeader(n);
  for (let i = 0; i < n; i++) writeEntity(list[i]);
}

export function writeStrings(list: readonly string[]): void {
  const n = list.length;
  writeArrayHeader(n);
  for (let i = 0; i < n; i++) writeString(list[i]);
}

export function writeIntegers(list: readonly number[]): void {
  const n = list.length;
  writeArrayHeader(n);
  for (let i = 0; i < n; i++) writeInteger(list[i]);
}

export function writeFloats(list: readonly number[]): void {
  const n = list.length;
  writeArrayHeader(n);
  for (let i = 0; i < n; i++) writeFloat(list[i]);
}

export function writeBools(list: readonly boolean[]): void {
  const n = list.length;
  writeArrayHeader(n);
  for (let i = 0; i < n; i++) writeBool(list[i]);
}

export function writeBytesList(list: readonly Uint8Array[]): void {
  const n = list.length;
  writeArrayHeader(n);
  for (let i = 0; i < n; i++) writeBytes(list[i]);
}
