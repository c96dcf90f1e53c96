import { StringAttribute, StringCollection } from '@esp/codecs';
import { z } from 'zod';
import type { Stage, StageContext } from '../stage';
import { yieldToEventLoop } from './yield-to-event-loop';

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

/** Characters normalized between two turns of the event loop. */
const SLICE_CHARS = 1024 * 1024;

/**
 * Where a slice of `s` starting at or after `from` may end so that normalizing the slices one by one gives what
 * normalizing the whole does: after a line break when keeping lines, else at a character that is not whitespace
 * right after one (a whitespace run then ends its slice, and NFC never composes across a space or line break).
 */
function sliceEnd(s: string, from: number, keepNewlines: boolean): number {
  const re = keepNewlines ? /\n/g : /\s\S/g;
  re.lastIndex = from;
  const m = re.exec(s);
  return m ? m.index + 1 : s.length;
}

/** normalizeText, a slice at a time with a turn of the event loop between slices: the same result. */
export async function normalizeTextCooperatively(s: string, o: NormalizeOptions, sliceChars = SLICE_CHARS): Promise<string> {
  if (s.length <= sliceChars) return normalizeText(s, o);
  const pieces: string[] = [];
  const inner = { ...o, trim: o.keep_newlines ? o.trim : false };
  for (let at = 0; at < s.length; ) {
    const end = sliceEnd(s, Math.min(at + sliceChars, s.length), o.keep_newlines);
    const piece = normalizeText(s.slice(at, end), inner);
    if (!o.keep_newlines || piece !== '') pieces.push(piece);
    at = end;
    await yieldToEventLoop();
  }
  const out = pieces.join(o.keep_newlines ? '\n' : '');
  return o.trim ? out.trim() : out;
}

/** normalize: Unicode normalization (NFC by default), whitespace collapsed, control characters removed. */
export function createNormalizeStage(name: string, o: NormalizeOptions): Stage {
  const wanted = o.attributes ? new Set(o.attributes) : undefined;
  /** Normalizes every wanted attribute; `large` does the one string attribute that is too large to do at once. */
  const run = (ctx: StageContext, large?: { key: string; value: string }): void => {
    let changed = 0;
    for (const attr of [...ctx.doc.all()]) {
      if (wanted && !wanted.has(attr.key)) continue;
      if (attr instanceof StringAttribute) {
        const v = large && attr.key === large.key ? large.value : normalizeText(attr.value, o);
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
  };
  return {
    name,
    type: 'normalize',
    process(ctx: StageContext) {
      // a document's text of several MB (the body) is normalized a slice at a time; everything else at once
      const big = ctx.doc.all().find((a): a is StringAttribute => a instanceof StringAttribute && a.value.length > SLICE_CHARS && (!wanted || wanted.has(a.key)));
      if (!big) return run(ctx);
      return normalizeTextCooperatively(big.value, o).then((value) => run(ctx, { key: big.key, value }));
    },
  };
}
