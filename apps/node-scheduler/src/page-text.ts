/**
 * An HTML page's bytes as text, for link extraction and its title, in the character set the pipeline's charset
 * stage would choose (`decideCharset` of @esp/pipeline: byte order mark, Content-Type charset, <meta> charset,
 * valid UTF-8, detector, windows-1252), so the crawler and the indexed text agree. The fed body stays bytes.
 *
 * @esp/pipeline is loaded in the background when the crawler starts (it takes a moment to import, and the node
 * scheduler should register without waiting for it).
 *
 *   preloadPageText();
 *   const html = await pageText(body, 'text/html; charset=Shift_JIS');
 */
import { TextDecoder } from 'node:util';
import { mediaType } from './http-get';

type Charsets = Pick<typeof import('@esp/pipeline'), 'decideCharset' | 'charsetName' | 'DEFAULT_CHARSET_OPTIONS'>;

let loading: Promise<Charsets> | undefined;

export function preloadPageText(): Promise<Charsets> {
  loading ??= import('@esp/pipeline');
  return loading;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export async function pageText(body: Uint8Array, contentTypeHeader: string): Promise<{ text: string; charset: string }> {
  const { decideCharset, charsetName, DEFAULT_CHARSET_OPTIONS } = await preloadPageText();
  // a page taken for HTML from its bytes (no type, or octet-stream): its <meta> charset counts as in any HTML page
  const contentType = HTML_TYPES.has(mediaType(contentTypeHeader)) ? contentTypeHeader : 'text/html';
  const d = decideCharset(body, contentType, DEFAULT_CHARSET_OPTIONS);
  const charset = charsetName(d.label);
  const bytes = body.subarray(d.bom);
  const decoder = decoderFor(charset);
  return { text: decoder.decode(bytes), charset: decoder.encoding };
}

const decoders = new Map<string, TextDecoder>();

/** One decoder per charset (a page at a time uses it); a label the platform does not know reads as windows-1252. */
function decoderFor(charset: string): TextDecoder {
  let d = decoders.get(charset);
  if (!d) {
    try {
      d = new TextDecoder(charset);
    } catch {
      // links are mostly ASCII, which windows-1252 reads as such
      d = new TextDecoder('windows-1252');
    }
    // labels come from the web: a few dozen real ones, any number of made-up ones
    if (decoders.size < 64) decoders.set(charset, d);
  }
  return d;
}
