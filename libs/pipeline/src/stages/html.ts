import { Parser } from 'htmlparser2';
import { z } from 'zod';
import type { Stage, StageContext } from '../stage';
import { contentKind } from './content-type';
import { yieldToEventLoop } from './yield-to-event-loop';

export const htmlOptions = z.strictObject({
  /** The attribute holding the HTML (default "body"). */
  attribute: z.string().default('body'),
  /** Where the text goes (default: the same attribute, replacing the HTML). */
  text_attribute: z.string().optional(),
  /** Keep the original HTML under this attribute (default: not kept). */
  keep_html_attribute: z.string().optional(),
  /** The attribute holding the MIME type (default "content_type"): text/html and application/xhtml+xml are converted. */
  content_type_attribute: z.string().default('content_type'),
  /** Without a content type, convert content that starts like HTML (doctype or <html>) (default true). */
  detect: z.boolean().default(true),
  /** Where the <title> goes (default "title"); an existing non-empty title is kept unless `overwrite_title`. */
  title_attribute: z.string().default('title'),
  overwrite_title: z.boolean().default(false),
  /** Where the links (a/area href, resolved against <base href> or the url attribute) go, as a string collection. */
  links_attribute: z.string().default('links'),
  /** The attribute with the document's own URL, to resolve relative links (default "url"). */
  base_url_attribute: z.string().default('url'),
  max_links: z.number().int().min(0).default(1000),
});
export type HtmlOptions = z.output<typeof htmlOptions>;

export interface HtmlExtract {
  readonly title: string;
  readonly text: string;
  readonly links: string[];
}

/** Elements whose content is not text of the page. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'math', 'iframe', 'object']);
/** Elements that break lines. */
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section',
  'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'body', 'html',
]);
const CELL = new Set(['td', 'th']);

/**
 * Each line's whitespace collapsed to single spaces and trimmed, empty lines dropped. With two replacements over the
 * whole text instead of a split into lines: the lone spaces between words are not replaced at all, which is what
 * makes a page of tens of MB take a fraction of a second.
 */
export function collapseLines(text: string): string {
  return text
    .replace(/[^\S\n ][^\S\n]*| [^\S\n]+/g, ' ')
    .replace(/ *\n[ \n]*/g, '\n')
    .trim();
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function resolveLink(href: string, base: string | undefined): string | undefined {
  const h = href.trim();
  if (h === '' || h.startsWith('#') || /^(?:javascript|data|vbscript):/i.test(h)) return undefined;
  if (base === undefined) return h;
  try {
    const u = new URL(h, base);
    u.hash = '';
    return u.href;
  } catch {
    return h;
  }
}

/** The extraction of extractHtml as a stream: write the page in chunks (any boundaries), then finish. */
function htmlExtractor(opts: { baseUrl?: string; maxLinks?: number }): { write(chunk: string): void; finish(): HtmlExtract } {
  const maxLinks = opts.maxLinks ?? 1000;
  let base = opts.baseUrl;
  let title: string | undefined;
  let titleText = '';
  let inTitle = false;
  let skipDepth = 0;
  const parts: string[] = [];
  const links: string[] = [];
  const seen = new Set<string>();
  const hrefs: string[] = [];

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'title' && title === undefined) inTitle = true;
        if (name === 'base' && attribs['href'] !== undefined && base === opts.baseUrl) {
          base = resolveLink(attribs['href'], opts.baseUrl) ?? base;
        }
        if ((name === 'a' || name === 'area') && attribs['href'] !== undefined) hrefs.push(attribs['href']);
        if (SKIP.has(name)) skipDepth++;
        if (BLOCK.has(name)) parts.push('\n');
        else if (CELL.has(name)) parts.push('\t');
        else if (name === 'img' && attribs['alt'] && skipDepth === 0) parts.push(` ${attribs['alt']} `);
      },
      ontext(text) {
        if (inTitle) titleText += text;
        else if (skipDepth === 0) parts.push(text);
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          title = collapse(titleText);
        }
        if (SKIP.has(name) && skipDepth > 0) skipDepth--;
        if (BLOCK.has(name)) parts.push('\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  const finish = (): HtmlExtract => {
    parser.end();
    if (title === undefined && inTitle) title = collapse(titleText);

    for (const href of hrefs) {
      if (links.length >= maxLinks) break;
      const link = resolveLink(href, base);
      if (link !== undefined && !seen.has(link)) {
        seen.add(link);
        links.push(link);
      }
    }
    const text = collapseLines(parts.join(''));
    return { title: title ?? '', text, links };
  };
  return { write: (chunk) => parser.write(chunk), finish };
}

/**
 * Text, title and links of an HTML page, parsed with htmlparser2 (forgiving, like a browser): text of script,
 * style, head and the like is left out, block elements become line breaks, entities are decoded.
 */
export function extractHtml(html: string, opts: { baseUrl?: string; maxLinks?: number } = {}): HtmlExtract {
  const x = htmlExtractor(opts);
  x.write(html);
  return x.finish();
}

/** Characters parsed between two turns of the event loop: a page of tens of MB must not stall the process. */
const CHUNK_CHARS = 512 * 1024;

/** extractHtml, giving the event loop a turn every CHUNK_CHARS characters (the same result). */
export async function extractHtmlCooperatively(html: string, opts: { baseUrl?: string; maxLinks?: number } = {}, chunkChars = CHUNK_CHARS): Promise<HtmlExtract> {
  if (html.length <= chunkChars) return extractHtml(html, opts);
  const x = htmlExtractor(opts);
  for (let at = 0; at < html.length; at += chunkChars) {
    x.write(html.slice(at, at + chunkChars));
    await yieldToEventLoop();
  }
  return x.finish();
}

/**
 * html: HTML content becomes plain text; the page's <title> and its links are extracted into attributes.
 * Other content is left alone.
 */
export function createHtmlStage(name: string, o: HtmlOptions): Stage {
  const take = (ctx: StageContext, html: string, { title, text, links }: HtmlExtract): void => {
    if (o.keep_html_attribute) ctx.doc.setString(o.keep_html_attribute, html);
    ctx.doc.setString(o.text_attribute ?? o.attribute, text);
    const existing = ctx.doc.getString(o.title_attribute);
    if (title !== '' && (o.overwrite_title || existing === undefined || existing.trim() === '')) ctx.doc.setString(o.title_attribute, title);
    if (links.length > 0) ctx.doc.setStrings(o.links_attribute, links);
    if (ctx.debugging) ctx.debug(`HTML to text: ${text.length} characters, title ${title ? JSON.stringify(title) : 'none'}, ${links.length} links`);
  };
  return {
    name,
    type: 'html',
    process(ctx: StageContext) {
      const html = ctx.doc.getText(o.attribute);
      if (html === undefined) return;
      if (!contentKind(ctx.doc, o.content_type_attribute, html, o.detect).html) return;
      const opts = { baseUrl: ctx.doc.getString(o.base_url_attribute), maxLinks: o.max_links };
      // a page of several MB is parsed a slice at a time; the usual page at once, without a promise
      if (html.length > CHUNK_CHARS) return extractHtmlCooperatively(html, opts).then((x) => take(ctx, html, x));
      take(ctx, html, extractHtml(html, opts));
    },
  };
}
