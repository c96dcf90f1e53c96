/**
 * UTF-8 for 'u' strings, with CPython's "surrogatepass": marshal writes a lone surrogate as its 3-byte form
 * (ED A0 80 for U+D800) and reads it back. JavaScript strings hold lone surrogates too, so they round-trip; the
 * one thing they cannot hold apart is an encoded high+low surrogate pair versus the astral character itself, so
 * such a pair is refused rather than silently re-encoded differently.
 */

// ignoreBOM: a leading EF BB BF is part of the string, not a marker to drop.
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Why a byte sequence is not a string we can keep exactly; `at` is relative to the start of the string. */
export interface FswcuUtf8Problem {
  message: string;
  at: number;
}

/** Decodes bytes[start, end). Returns a string, or a problem with where it was found. */
export function decodeFswcuUtf8(bytes: Uint8Array, start: number, end: number): string | FswcuUtf8Problem {
  // Short ASCII strings are the bulk of FSCMT traffic; building them directly beats TextDecoder's call overhead.
  if (end - start <= 24) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = bytes[i];
      if (c >= 0x80) return decodeNonAscii(bytes, start, end);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decodeNonAscii(bytes, start, end);
}

function decodeNonAscii(bytes: Uint8Array, start: number, end: number): string | FswcuUtf8Problem {
  try {
    return strictDecoder.decode(bytes.subarray(start, end));
  } catch {
    return decodeSlow(bytes, start, end);
  }
}

function decodeSlow(bytes: Uint8Array, start: number, end: number): string | FswcuUtf8Problem {
  const units: number[] = [];
  let lastWasEncodedHighSurrogate = false;
  let i = start;
  while (i < end) {
    const at = i - start;
    const b0 = bytes[i];
    let cp: number;
    let need: number;
    let min: number;
    if (b0 < 0x80) {
      cp = b0;
      need = 0;
      min = 0;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      cp = b0 & 0x1f;
      need = 1;
      min = 0x80;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      cp = b0 & 0x0f;
      need = 2;
      min = 0x800;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      cp = b0 & 0x07;
      need = 3;
      min = 0x10000;
    } else {
      return { message: `invalid UTF-8 lead byte 0x${b0.toString(16)}`, at };
    }
    if (need > 0 && i + need >= end) return { message: 'UTF-8 sequence cut short', at };
    for (let k = 1; k <= need; k++) {
      const b = bytes[i + k];
      if ((b & 0xc0) !== 0x80) return { message: 'invalid UTF-8 continuation byte', at: at + k };
      cp = (cp << 6) | (b & 0x3f);
    }
    if (cp < min || cp > 0x10ffff) return { message: 'overlong or out-of-range UTF-8 sequence', at };
    i += need + 1;
    const isSurrogate = cp >= 0xd800 && cp <= 0xdfff;
    if (isSurrogate && cp >= 0xdc00 && lastWasEncodedHighSurrogate) {
      return { message: 'separately encoded surrogate pair (cannot be kept apart from the astral character)', at };
    }
    lastWasEncodedHighSurrogate = isSurrogate && cp < 0xdc00;
    if (cp >= 0x10000) {
      const v = cp - 0x10000;
      units.push(0xd800 | (v >> 10), 0xdc00 | (v & 0x3ff));
    } else {
      units.push(cp);
    }
  }
  let s = '';
  for (let k = 0; k < units.length; k += 4096) s += String.fromCharCode(...units.slice(k, k + 4096));
  return s;
}

/** Worst-case UTF-8 size of a JavaScript string: 3 bytes per UTF-16 code unit. */
export function maxFswcuUtf8Length(text: string): number {
  return text.length * 3;
}

/**
 * Writes `text` as UTF-8 (surrogatepass) into `out` at `pos`, which must have room for maxFswcuUtf8Length(text)
 * bytes. Returns the position after the last byte written.
 */
export function writeFswcuUtf8(text: string, out: Uint8Array, pos: number): number {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[pos++] = c;
    } else if (c < 0x800) {
      out[pos++] = 0xc0 | (c >> 6);
      out[pos++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
          out[pos++] = 0xf0 | (c >> 18);
          out[pos++] = 0x80 | ((c >> 12) & 0x3f);
          out[pos++] = 0x80 | ((c >> 6) & 0x3f);
          out[pos++] = 0x80 | (c & 0x3f);
          continue;
        }
      }
      // Lone surrogates land here too and get their 3-byte form, as CPython's surrogatepass writes them.
      out[pos++] = 0xe0 | (c >> 12);
      out[pos++] = 0x80 | ((c >> 6) & 0x3f);
      out[pos++] = 0x80 | (c & 0x3f);
    }
  }
  return pos;
}
