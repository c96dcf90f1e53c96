/**
 * Text forms of the XML-RPC scalars: strict parsers (each calls `fail` with a message on bad input) and formatters.
 * Leading and trailing XML whitespace is ignored around int, boolean, double, dateTime and base64 text; string
 * text is kept exactly.
 */
import { XMLRPC_INT_MAX, XMLRPC_INT_MIN } from './values';

export type Fail = (message: string) => never;

const XML_SPACE_EDGES = /^[ \t\r\n]+|[ \t\r\n]+$/g;
const INT_TEXT = /^[+-]?[0-9]+$/;
const DOUBLE_TEXT = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const PYTHON_NON_FINITE = /^([+-]?)(inf|infinity|nan)$/i;
const DATE_TIME_TEXT =
  /^([0-9]{4})(-?)([0-9]{2})\2([0-9]{2})T([0-9]{2})(:?)([0-9]{2})\6([0-9]{2})(?:[.,]([0-9]+))?(Z|[+-][0-9]{2}:?[0-9]{2})?$/;
const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;
const XML_SPACE = /[ \t\r\n]+/g;

function trimXmlSpace(text: string): string {
  return text.replace(XML_SPACE_EDGES, '');
}

function preview(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

/** `<int>` / `<i4>`: a decimal integer within int32. `<i8>` (an extension Python and Apache read): within ±(2^53-1). */
export function parseXmlRpcInt(text: string, tag: string, fail: Fail): number {
  const t = trimXmlSpace(text);
  if (!INT_TEXT.test(t)) fail(`bad <${tag}> value ${preview(text)}: expected a decimal integer`);
  const n = Number(t);
  if (tag === 'i8') {
    if (!Number.isSafeInteger(n)) fail(`<i8> value ${preview(t)} is outside the safe integer range of a JS number`);
  } else if (n < XMLRPC_INT_MIN || n > XMLRPC_INT_MAX) {
    fail(`<${tag}> value ${preview(t)} is outside the 32-bit range ${XMLRPC_INT_MIN}..${XMLRPC_INT_MAX}`);
  }
  return n === 0 ? 0 : n; // no -0 from "-0"
}

/** `<boolean>`: exactly 0 or 1. */
export function parseXmlRpcBoolean(text: string, fail: Fail): boolean {
  const t = trimXmlSpace(text);
  if (t === '1') return true;
  if (t === '0') return false;
  return fail(`bad <boolean> value ${preview(text)}: expected 0 or 1`);
}

/**
 * `<double>`: decimal with optional fraction and exponent. Also Python's non-finite forms (`inf`, `-inf`, `nan`),
 * which `xmlrpc.client.dumps` writes for float('inf') and float('nan').
 */
export function parseXmlRpcDouble(text: string, fail: Fail): number {
  const t = trimXmlSpace(text);
  if (DOUBLE_TEXT.test(t)) return Number(t);
  const nonFinite = PYTHON_NON_FINITE.exec(t);
  if (nonFinite) {
    if ((nonFinite[2] ?? '').toLowerCase() === 'nan') return Number.NaN;
    return nonFinite[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  return fail(`bad <double> value ${preview(text)}: expected a decimal number`);
}

/**
 * `<dateTime.iso8601>`: `YYYYMMDDTHH:MM:SS` (what Python writes), also with dashes (`YYYY-MM-DD`), without colons
 * (`HHMMSS`), with a fraction of a second (kept to the millisecond) and with `Z` or a `±HH:MM` offset. A time
 * without offset (the usual, naive form) is read as UTC.
 */
export function parseXmlRpcDateTime(text: string, fail: Fail): Date {
  const t = trimXmlSpace(text);
  const m = DATE_TIME_TEXT.exec(t);
  if (!m) return fail(`bad <dateTime.iso8601> value ${preview(text)}: expected YYYYMMDDTHH:MM:SS`);
  const [year, month, day, hour, minute, second] = [m[1], m[3], m[4], m[5], m[7], m[8]].map(Number) as [
    number, number, number, number, number, number,
  ];
  const millis = m[9] === undefined ? 0 : Number(m[9].slice(0, 3).padEnd(3, '0'));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    date.getUTCHours() !== hour ||
    date.getUTCMinutes() !== minute ||
    date.getUTCSeconds() !== second
  ) {
    return fail(`bad <dateTime.iso8601> value ${preview(text)}: no such date or time`);
  }
  const zone = m[10];
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMinutes = Number(digits.slice(2));
    if (offsetHours > 23 || offsetMinutes > 59) return fail(`bad <dateTime.iso8601> value ${preview(text)}: bad offset`);
    date.setTime(date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  }
  return date;
}

/** `<base64>`: the standard alphabet, whitespace (line breaks) allowed anywhere, padding optional but not wrong. */
export function parseXmlRpcBase64(text: string, fail: Fail): Uint8Array {
  const t = text.replace(XML_SPACE, '');
  if (!BASE64_TEXT.test(t)) fail(`bad <base64> value ${preview(text)}: characters outside the base64 alphabet`);
  const padded = t.endsWith('=');
  if ((padded && t.length % 4 !== 0) || (!padded && t.length % 4 === 1)) {
    fail(`bad <base64> value ${preview(text)}: wrong length or padding`);
  }
  return Uint8Array.from(Buffer.from(t, 'base64'));
}

/** Shortest round-tripping decimal; integral values keep a `.0` so that they read as doubles. */
export function formatXmlRpcDouble(n: number): string {
  if (Object.is(n, -0)) return '-0.0';
  const s = String(n);
  return /^-?[0-9]+$/.test(s) ? `${s}.0` : s;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** `YYYYMMDDTHH:MM:SS` from the UTC fields, milliseconds dropped (Python drops microseconds the same way). */
export function formatXmlRpcDateTime(d: Date): string {
  return (
    `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`
  );
}

export function formatXmlRpcBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Characters XML 1.0 cannot carry at all, not even as character references (and lone surrogates). */
const NON_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ESCAPED = /[&<>\r]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

/**
 * Escapes character data. CR goes out as `&#13;` so that the reader's line-end normalisation does not turn it into
 * LF. Returns undefined when the text holds a character XML 1.0 cannot represent.
 */
export function escapeXmlText(text: string): string | undefined {
  if (NON_XML_CHAR.test(text)) return undefined;
  return text.replace(ESCAPED, (c) => ESCAPES[c] ?? c);
}
