import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import { BytearrayAttribute } from '@esp/codecs';
import iconv from 'iconv-lite';
import type * as Jschardet from 'jschardet';
import { z } from 'zod';
import { StageFailure, type Stage, type StageContext } from '../stage';
import { charsetParam, formatOf, isTextFormat, mimeOf } from './content-type';
import { firstInvalidUtf8 } from './utf8';

export const charsetOptions = z.strictObject({
  /** The attribute holding the content (default "body"). */
  attribute: z.string().default('body'),
  /** The attribute holding the content type (default "content_type"): its charset parameter is the HTTP header's. */
  content_type_attribute: z.string().default('content_type'),
  /** Where the name of the character set used goes (default "charset"). */
  charset_attribute: z.string().default('charset'),
  /** How many leading bytes are searched for a <meta> charset (default 4096) and given to the detector (default 65536). */
  meta_bytes: z.number().int().min(64).default(4096),
  detect_bytes: z.number().int().min(64).default(65536),
  /**
   * The detector's guess is taken from this confidence (0-1) on: it tells CJK encodings and Cyrillic apart well
   * (0.2-0.9), but guesses Latin-1 text with a low confidence, sometimes as a Cyrillic code page.
   */
  min_confidence: z.number().min(0).max(1).default(0.2),
  /** The character set when neither a declaration nor a confident detector says (default windows-1252). */
  fallback: z.string().default('windows-1252'),
});
export type CharsetOptions = z.output<typeof charsetOptions>;

/** The charset stage's defaults, for callers of decideCharset outside a pipeline (the crawler's link extraction). */
export const DEFAULT_CHARSET_OPTIONS: CharsetOptions = charsetOptions.parse({});

/** Where the character set of a document was found. */
export type CharsetSource = 'bom' | 'content type' | 'meta' | 'xml declaration' | 'utf-8 bytes' | 'detector' | 'fallback';

export interface CharsetDecision {
  /** The label as found (lower case), before the WHATWG replacements. */
  readonly label: string;
  readonly source: CharsetSource;
  /** Bytes of a byte order mark to skip. */
  readonly bom: number;
}

const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8']);
/**
 * WHATWG Encoding 4.2: these labels all mean windows-1252 (HTML 5 decodes a declared ISO-8859-1 or ASCII page as
 * windows-1252, since servers say Latin-1 for pages written with “smart quotes” and €).
 */
const WINDOWS_1252_LABELS = new Set([
  'ansi_x3.4-1968', 'ascii', 'cp1252', 'cp819', 'csisolatin1', 'ibm819', 'iso-8859-1', 'iso-ir-100', 'iso8859-1', 'iso88591',
  'iso_8859-1', 'iso_8859-1:1987', 'l1', 'latin1', 'us-ascii', 'windows-1252', 'x-cp1252',
]);
const META_CHARSET = /<meta\s[^>]*?charset\s*=\s*["']?\s*([a-z0-9_:.+-]+)/i;
const XML_ENCODING = /^<\?xml\s[^>]*?encoding\s*=\s*["']([a-z0-9._:-]+)["']/i;

// the detector is needed only for text that neither declares its charset nor is UTF-8: loaded then
let detector: typeof Jschardet | undefined;
function jschardet(): typeof Jschardet {
  detector ??= createRequire(import.meta.url)('jschardet') as typeof Jschardet;
  return detector;
}

function latin1(bytes: Uint8Array, n: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(n, bytes.length)).toString('latin1');
}

/** The charset name a label decodes as: the WHATWG replacements, else the label itself. */
export function charsetName(label: string): string {
  const l = label.trim().toLowerCase();
  if (UTF8_LABELS.has(l)) return 'utf-8';
  if (WINDOWS_1252_LABELS.has(l)) return 'windows-1252';
  return l;
}

/**
 * The character set of some text, in the order of HTML 5 (13.2.3.2, "determining the character encoding"): a byte
 * order mark; the content type's charset; a <meta> charset in the first bytes of HTML; the XML declaration's
 * encoding; UTF-8 when every byte is valid UTF-8; else the detector (jschardet) when confident, else `fallback`.
 */
export function decideCharset(bytes: Uint8Array, contentType: string | undefined, o: Pick<CharsetOptions, 'meta_bytes' | 'detect_bytes' | 'min_confidence' | 'fallback'>): CharsetDecision {
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { label: 'utf-8', source: 'bom', bom: 3 };
  if (b0 === 0xff && b1 === 0xfe) return { label: 'utf-16le', source: 'bom', bom: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { label: 'utf-16be', source: 'bom', bom: 2 };
  const header = charsetParam(contentType);
  if (header !== undefined) return { label: header.toLowerCase(), source: 'content type', bom: 0 };
  const format = formatOf(mimeOf(contentType));
  // only ASCII-compatible declarations are readable this way; a UTF-16 text without a byte order mark is not
  if (format === 'html') {
    const meta = META_CHARSET.exec(latin1(bytes, o.meta_bytes))?.[1];
    // HTML 5: a <meta> that says UTF-16 means UTF-8 (the bytes being read as ASCII could not be UTF-16)
    if (meta !== undefined) return { label: /^utf-?16/i.test(meta) ? 'utf-8' : meta.toLowerCase(), source: 'meta', bom: 0 };
  }
  if (format === 'html' || format === 'xml' || contentType === undefined) {
    const decl = XML_ENCODING.exec(latin1(bytes, 256))?.[1];
    if (decl !== undefined) return { label: decl.toLowerCase(), source: 'xml declaration', bom: 0 };
  }
  if (isUtf8(bytes)) return { label: 'utf-8', source: 'utf-8 bytes', bom: 0 };
  const guess = jschardet().detect(Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, o.detect_bytes)));
  if (guess.encoding && guess.confidence >= o.min_confidence && iconv.encodingExists(guess.encoding)) return { label: guess.encoding.toLowerCase(), source: 'detector', bom: 0 };
  return { label: o.fallback.toLowerCase(), source: 'fallback', bom: 0 };
}

function hex(b: number | undefined): string {
  return b === undefined ? 'end of data' : `0x${b.toString(16).padStart(2, '0')}`;
}

/**
 * charset: text content (HTML, XML, text/*) given as bytes is decoded to a string, in the character set it declares
 * or, without a declaration, the one its bytes look like (see decideCharset); the name used goes into `charset`.
 * A label no decoder knows fails the item with charset_error; content declared UTF-8 whose bytes are not fails with
 * utf8_error, as the utf8 stage does. Other content (PDF, DOCX, binary) is left alone.
 */
export function createCharsetStage(name: string, o: CharsetOptions): Stage {
  const utf8 = new TextDecoder('utf-8');
  if (!iconv.encodingExists(charsetName(o.fallback))) throw new Error(`charset: unknown fallback character set "${o.fallback}"`);
  return {
    name,
    type: 'charset',
    process(ctx: StageContext) {
      const body = ctx.doc.get(o.attribute);
      if (!(body instanceof BytearrayAttribute)) return;
      const contentType = ctx.doc.getString(o.content_type_attribute);
      if (contentType !== undefined && !isTextFormat(formatOf(mimeOf(contentType)))) return;
      const bytes = body.value;
      const d = decideCharset(bytes, contentType, o);
      const charset = charsetName(d.label);
      let text: string;
      if (charset === 'utf-8') {
        const content = bytes.subarray(d.bom);
        if (d.source !== 'utf-8 bytes' && !isUtf8(content)) {
          const at = firstInvalidUtf8(content) + d.bom;
          throw new StageFailure('utf8_error', `attribute "${o.attribute}": declared UTF-8 (${d.source}) but invalid UTF-8 at byte ${at} (${hex(bytes[at])})`);
        }
        text = utf8.decode(content);
      } else {
        if (!iconv.encodingExists(charset)) throw new StageFailure('charset_error', `attribute "${o.attribute}": unknown character set "${d.label}" (${d.source})`);
        text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).subarray(d.bom), charset, { stripBOM: false });
      }
      ctx.doc.setString(o.attribute, text);
      ctx.doc.setString(o.charset_attribute, charset);
      if (ctx.debugging) ctx.debug(`decoded ${bytes.length} bytes as ${charset} (${d.source}${d.label !== charset ? `: "${d.label}"` : ''})`);
    },
  };
}
