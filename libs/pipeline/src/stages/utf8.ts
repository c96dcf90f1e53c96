import { isUtf8 } from 'node:buffer';
import { BytearrayAttribute, BytearrayCollection, KeyValueCollection, StringAttribute, StringCollection, type KeyValuePair } from '@esp/codecs';
import { z } from 'zod';
import { StageFailure, type Stage, type StageContext } from '../stage';

export const utf8Options = z.strictObject({
  /** Attributes to check; default every attribute of the document. */
  attributes: z.array(z.string()).optional(),
  /** Turn valid bytearray attributes into string attributes, so that later stages read text (default true). */
  decode: z.boolean().default(true),
  /** Also refuse string attributes with unpaired surrogates, which have no UTF-8 form (default true). */
  check_strings: z.boolean().default(true),
});
export type Utf8Options = z.output<typeof utf8Options>;

/**
 * Offset of the first byte that does not start a valid UTF-8 sequence (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF), or -1 when all of `b` is valid UTF-8.
 */
export function firstInvalidUtf8(b: Uint8Array): number {
  if (isUtf8(b)) return -1;
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c === 0xe0) [need, lo] = [2, 0xa0];
    else if (c === 0xed) [need, hi] = [2, 0x9f];
    else if (c >= 0xe1 && c <= 0xef) need = 2;
    else if (c === 0xf0) [need, lo] = [3, 0x90];
    else if (c === 0xf4) [need, hi] = [3, 0x8f];
    else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else return i;
    for (let k = 1; k <= need; k++) {
      const x = b[i + k];
      if (x === undefined) return i;
      const [min, max] = k === 1 ? [lo, hi] : [0x80, 0xbf];
      if (x < min || x > max) return i;
    }
    i += need + 1;
  }
  return -1;
}

const ANY_SURROGATE = /[\uD800-\uDFFF]/;

/** Index of the first unpaired surrogate of `s`, or -1. */
export function firstLoneSurrogate(s: string): number {
  // most text has no surrogate at all: one regex scan (native) instead of a loop over every character
  if (!ANY_SURROGATE.test(s)) return -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

function hex(b: number | undefined): string {
  return b === undefined ? 'end of data' : `0x${b.toString(16).padStart(2, '0')}`;
}

/**
 * utf8: every bytearray attribute (and collection) must be valid UTF-8, and every string must be encodable as UTF-8.
 * Fails the item with `utf8_error` naming the attribute and the offset; turns valid bytearray attributes into
 * string attributes when `decode` is on.
 */
export function createUtf8Stage(name: string, o: Utf8Options): Stage {
  const wanted = o.attributes ? new Set(o.attributes) : undefined;
  const decoder = new TextDecoder('utf-8', { fatal: true });

  function check(attr: KeyValuePair, path: string): void {
    if (attr instanceof BytearrayAttribute) {
      const at = firstInvalidUtf8(attr.value);
      if (at >= 0) throw new StageFailure('utf8_error', `attribute "${path}": invalid UTF-8 at byte ${at} (${hex(attr.value[at])})`);
    } else if (attr instanceof BytearrayCollection) {
      attr.values.forEach((v, j) => {
        const at = firstInvalidUtf8(v);
        if (at >= 0) throw new StageFailure('utf8_error', `attribute "${path}"[${j}]: invalid UTF-8 at byte ${at} (${hex(v[at])})`);
      });
    } else if (o.check_strings && attr instanceof StringAttribute) {
      const at = firstLoneSurrogate(attr.value);
      if (at >= 0) throw new StageFailure('utf8_error', `attribute "${path}": unpaired surrogate at character ${at} has no UTF-8 form`);
    } else if (o.check_strings && attr instanceof StringCollection) {
      attr.values.forEach((v, j) => {
        const at = firstLoneSurrogate(v);
        if (at >= 0) throw new StageFailure('utf8_error', `attribute "${path}"[${j}]: unpaired surrogate at character ${at} has no UTF-8 form`);
      });
    } else if (attr instanceof KeyValueCollection) {
      for (const v of attr.values) check(v, `${path}.${v.key}`);
    }
  }

  return {
    name,
    type: 'utf8',
    process(ctx: StageContext) {
      for (const attr of ctx.doc.all()) {
        if (wanted && !wanted.has(attr.key)) continue;
        check(attr, attr.key);
      }
      if (!o.decode) return;
      for (const attr of [...ctx.doc.all()]) {
        if (attr instanceof BytearrayAttribute && (!wanted || wanted.has(attr.key))) ctx.doc.setString(attr.key, decoder.decode(attr.value));
      }
    },
  };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with unpaired surrogates replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
export function wellFormed(s: string): string {
  return firstLoneSurrogate(s) < 0 ? s : s.replace(LONE_SURROGATE, '\uFFFD');
}
