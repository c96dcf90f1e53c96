/**
 * A lossless JSON form of FSWCU values: JSON -> value -> FSWCU gives back the exact bytes the value was decoded
 * from. Plain JSON is used for what is unambiguous, a one-key tagged object for the rest:
 *
 *   null, true, false       None, True, False
 *   123                     int ('i', int32 only)
 *   "text"                  byte string ('s') whose bytes are the UTF-8 of the text
 *   {"hex": "a9eb"}         byte string that is not valid UTF-8 (any byte string may be written this way)
 *   {"u": "text"}           unicode string ('u')
 *   {"long": "-123"}        long ('l'), decimal
 *   {"int64": "123"}        int64 ('I'), decimal
 *   {"float": "0.5"}        float as text ('f'); the text is kept exactly as on the wire
 *   {"double": "0.5"}       binary float ('g'); also "inf", "-inf", "nan", "-0"
 *   {"double_bits": "7ff8000000000001"}  binary float given by its 64 bits (NaN payloads), big-endian hex
 *   [ ... ]                 list ('[')
 *   {"tuple": [ ... ]}      tuple ('(')
 *   {"dict": [[k, v], ...]} dict ('{'), entries in wire order, duplicates kept
 *
 *   fswcuFromJson(JSON.parse(JSON.stringify(fswcuToJson(v)))) // equals v, and encodes to the same bytes
 */
import { CodecError } from '../errors';
import { formatFswcuFloatText, parseFswcuFloatText } from './fswcu-float-text';
import { FswcuDict, FswcuFloat, FswcuInt64, FswcuTuple, type FswcuValue } from './fswcu-value';

export type FswcuJson = null | boolean | number | string | FswcuJson[] | { [tag: string]: FswcuJson };

/** JSON that does not describe an FSWCU value; `path` says where (e.g. `$.dict[2][1].tuple[0]`). */
export class FswcuJsonError extends CodecError {
  override name = 'FswcuJsonError';
  readonly path: string;
  constructor(path: string, message: string) {
    super('FSWCU_BAD_JSON', `${path}: ${message}`);
    this.path = path;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8 = new TextEncoder();

export function fswcuToJson(value: FswcuValue): FswcuJson {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'string') return { u: value };
  if (typeof value === 'bigint') return { long: value.toString() };
  if (value instanceof Uint8Array) return bytesToJson(value);
  if (value instanceof FswcuTuple) return { tuple: value.items.map(fswcuToJson) };
  if (Array.isArray(value)) return value.map(fswcuToJson);
  if (value instanceof FswcuDict) return { dict: fswcuDictToJsonEntries(value) };
  if (value instanceof FswcuInt64) return { int64: value.value.toString() };
  return floatToJson(value);
}

/** A dict's entries as JSON pairs (the form FSCMT message lines use for the message dict). */
export function fswcuDictToJsonEntries(dict: FswcuDict): FswcuJson[] {
  return dict.entries.map(([k, v]) => [fswcuToJson(k), fswcuToJson(v)]);
}

function bytesToJson(bytes: Uint8Array): FswcuJson {
  try {
    // Well-formed UTF-8 (no surrogates) re-encodes to the same bytes, so the plain text form is lossless.
    return strictUtf8.decode(bytes);
  } catch {
    return { hex: toHex(bytes) };
  }
}

function floatToJson(f: FswcuFloat): FswcuJson {
  // The text the encoder will write (CPython's %.17g when the float has none), so the bytes stay the same.
  if (!f.binary) return { float: f.text ?? formatFswcuFloatText(f.value) };
  if (Number.isNaN(f.value) && f.rawBytes !== undefined && f.rawBytes.length === 8) {
    const bits = toHex(f.rawBytes.slice().reverse());
    if (bits !== '7ff8000000000000') return { double_bits: bits };
  }
  return { double: formatShortest(f.value) };
}

function formatShortest(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (Object.is(value, -0)) return '-0';
  return String(value);
}

export function fswcuFromJson(json: unknown, path = '$'): FswcuValue {
  if (json === null || typeof json === 'boolean') return json;
  if (typeof json === 'number') {
    if ((json | 0) !== json) throw new FswcuJsonError(path, `${json} is not an int32 (use {"long": ...} or {"float": ...})`);
    return json;
  }
  if (typeof json === 'string') {
    if (hasLoneSurrogate(json)) throw new FswcuJsonError(path, 'byte string text has a lone surrogate; use {"hex": ...}');
    return utf8.encode(json);
  }
  if (Array.isArray(json)) return json.map((item, i) => fswcuFromJson(item, `${path}[${i}]`));
  if (typeof json !== 'object') throw new FswcuJsonError(path, `unexpected ${typeof json}`);
  const keys = Object.keys(json);
  if (keys.length !== 1) throw new FswcuJsonError(path, `a tagged value has exactly one key, got ${JSON.stringify(keys)}`);
  const tag = keys[0];
  const body: unknown = (json as Record<string, unknown>)[tag];
  const at = `${path}.${tag}`;
  switch (tag) {
    case 'u':
      return expectString(body, at);
    case 'hex':
      return fromHex(expectString(body, at), at);
    case 'long':
      return parseInteger(body, at);
    case 'int64': {
      const v = parseInteger(body, at);
      if (v !== BigInt.asIntN(64, v)) throw new FswcuJsonError(at, 'out of the int64 range');
      return new FswcuInt64(v);
    }
    case 'float': {
      const text = expectString(body, at);
      const value = parseFswcuFloatText(text);
      if (value === undefined || text.length > 255) throw new FswcuJsonError(at, `bad float text ${JSON.stringify(text)}`);
      return new FswcuFloat(value, { text });
    }
    case 'double': {
      const value = parseFswcuFloatText(expectString(body, at));
      if (value === undefined) throw new FswcuJsonError(at, `bad float text ${JSON.stringify(body)}`);
      return new FswcuFloat(value, { binary: true });
    }
    case 'double_bits': {
      const be = fromHex(expectString(body, at), at);
      if (be.length !== 8) throw new FswcuJsonError(at, 'expected 16 hex digits');
      const le = be.slice().reverse();
      const value = new DataView(le.buffer).getFloat64(0, true);
      return new FswcuFloat(value, { binary: true, rawBytes: Number.isNaN(value) ? le : undefined });
    }
    case 'tuple':
      if (!Array.isArray(body)) throw new FswcuJsonError(at, 'expected an array');
      return new FswcuTuple(body.map((item, i) => fswcuFromJson(item, `${at}[${i}]`)));
    case 'dict':
      return fswcuDictFromJsonEntries(body, at);
    default:
      throw new FswcuJsonError(path, `unknown tag ${JSON.stringify(tag)}`);
  }
}

/** The inverse of fswcuDictToJsonEntries. */
export function fswcuDictFromJsonEntries(json: unknown, path = '$'): FswcuDict {
  if (!Array.isArray(json)) throw new FswcuJsonError(path, 'expected an array of [key, value] pairs');
  return new FswcuDict(
    json.map((pair: unknown, i): [FswcuValue, FswcuValue] => {
      if (!Array.isArray(pair) || pair.length !== 2) throw new FswcuJsonError(`${path}[${i}]`, 'expected a [key, value] pair');
      return [fswcuFromJson(pair[0], `${path}[${i}][0]`), fswcuFromJson(pair[1], `${path}[${i}][1]`)];
    }),
  );
}

function expectString(body: unknown, path: string): string {
  if (typeof body !== 'string') throw new FswcuJsonError(path, 'expected a string');
  return body;
}

function parseInteger(body: unknown, path: string): bigint {
  const text = expectString(body, path);
  if (!/^-?\d+$/.test(text)) throw new FswcuJsonError(path, `expected a decimal integer, got ${JSON.stringify(text)}`);
  return BigInt(text);
}

function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

function toHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += bytes[i].toString(16).padStart(2, '0');
  return s;
}

function fromHex(hex: string, path: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new FswcuJsonError(path, 'expected an even number of hex digits');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
