import { StringAttribute, StringCollection } from '@esp/codecs';
import { z } from 'zod';
import type { Stage, StageContext } from '../stage';

export const normalizeOptions = z.strictObject({
  /** Attributes to normalize; default every string attribute and string collection. */
  attributes: z.array(z.string()).optional(),
  /** Unicode normalization form (default NFC). */
  form: z.enum(['NFC', 'NFKC']).default('NFC'),
  /** Runs of whitespace become one space (default true). */
  collapse_whitespace: z.boolean().default(true),
  /** With collapse_whitespace: keep line breaks (one per run of blank lines) instead of making them spaces (default false). */
  keep_newlines: z.boolean().default(false),
  trim: z.boolean().default(true),
  /** Remove control characters other than tab, line feed and carriage return (default true). */
  strip_control: z.boolean().default(true),
});
export type NormalizeOptions = z.output<typeof normalizeOptions>;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

// printable ASCII only: unchanged by NFC and NFKC, no control characters, no whitespace but the space
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const SPACES = / {2,}/g;
/**
 * Runs of whitespace other than a lone space: replacing these with one space is the same as replacing every run, but
 * V8 makes no replacement (and no copy) for the lone spaces between words, hundreds of times faster on a large text.
 */
const WHITESPACE_RUNS = /[^\S ]\s*| \s+/g;

export function normalizeText(s: string, o: NormalizeOptions): string {
  if (!o.keep_newlines && PRINTABLE_ASCII.test(s)) {
    // the common case, without the allocations of the general path: the same result
    let out = o.collapse_whitespace && s.includes('  ') ? s.replace(SPACES, ' ') : s;
    if (o.trim) out = out.trim();
    return out;
  }
  let out = s.normalize(o.form);
  if (o.strip_control) out = out.replace(CONTROL, '');
  if (o.collapse_whitespace) {
    out = o.keep_newlines
      ? out
          .split(/\r\n?|\n/)
          .map((l) => l.replace(WHITESPACE_RUNS, ' ').trim())
          .filter((l) => l !== '')
          .join('\n')
      : out.replace(WHITESPACE_RUNS, ' ');
  }
  if (o.trim) out = out.trim();
  return out;
}

/** normalize: Unicode normalization (NFC by default), whitespace collapsed, control characters removed. */
export function createNormalizeStage(name: string, o: NormalizeOptions): Stage {
  const wanted = o.attributes ? new Set(o.attributes) : undefined;
  return {
    name,
    type: 'normalize',
    process(ctx: StageContext) {
      let changed = 0;
      for (const attr of [...ctx.doc.all()]) {
        if (wanted && !wanted.has(attr.key)) continue;
        if (attr instanceof StringAttribute) {
          const v = normalizeText(attr.value, o);
          if (v !== attr.value) {
            ctx.doc.setString(attr.key, v);
            changed++;
          }
        } else if (attr instanceof StringCollection) {
          const vs = attr.values.map((v) => normalizeText(v, o));
          if (vs.some((v, i) => v !== attr.values[i])) {
            ctx.doc.setStrings(attr.key, vs);
            changed++;
          }
        }
      }
      if (ctx.debugging) ctx.debug(`${changed} attributes normalized (${o.form})`);
    },
  };
}
