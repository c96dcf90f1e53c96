/**
 * Sitemaps (sitemaps.org protocol 0.9) as extra start URIs of a site: the Sitemap lines of its robots.txt, else
 * /sitemap.xml. A sitemap is a <urlset> of <url><loc>, a <sitemapindex> of <sitemap><loc> (read one level down), or
 * plain text with one URL a line; gzip-compressed files (.xml.gz, served as application/gzip or x-gzip without a
 * Content-Encoding) are decompressed with the page body bound on the decompressed size. Requests are `gapMs` apart
 * (the site's delay, besides the page requests). Only URLs of the site itself
 * (same host and port, http or https) are kept; the include / exclude rules apply when they are queued.
 *
 *   const uris = await readSitemaps({ get, site: new URL('http://h:8/'), sources: rules.sitemaps, maxBodyBytes, log });
 */
import { gunzipSync } from 'node:zlib';
import type { Logger } from '@esp/logging';
import { Parser } from 'htmlparser2';
import type { HttpGetResult } from './http-get';

/** The protocol's bounds: 50,000 URLs a file; we also read at most this many files a site. */
export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_FILES = 20;
const MAX_REDIRECTS = 5;

export interface ParsedSitemap {
  kind: 'urlset' | 'index';
  locs: string[];
}

/** The <loc> values of a sitemap or sitemap index (namespace prefixes ignored), or a text sitemap's lines. */
export function parseSitemap(text: string): ParsedSitemap {
  const body = text.replace(/^\uFEFF/, '').trimStart();
  if (!body.startsWith('<')) {
    const locs = body
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => /^https?:\/\//i.test(l));
    return { kind: 'urlset', locs: locs.slice(0, SITEMAP_MAX_URLS) };
  }
  let kind: ParsedSitemap['kind'] = 'urlset';
  const locs: string[] = [];
  let inLoc = false;
  let loc = '';
  const local = (name: string): string => name.slice(name.lastIndexOf(':') + 1).toLowerCase();
  const parser = new Parser(
    {
      onopentag(name) {
        const n = local(name);
        if (n === 'sitemapindex') kind = 'index';
        if (n === 'loc') {
          inLoc = true;
          loc = '';
        }
      },
      ontext(t) {
        if (inLoc) loc += t;
      },
      onclosetag(name) {
        if (local(name) !== 'loc' || !inLoc) return;
        inLoc = false;
        if (locs.length < SITEMAP_MAX_URLS && loc.trim() !== '') locs.push(loc.trim());
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(body);
  parser.end();
  return { kind, locs };
}

export interface ReadSitemapsOptions {
  /** GET without redirects followed, bodies bounded */
  get: (url: URL) => Promise<HttpGetResult>;
  /** any URL of the site */
  site: URL;
  /** Sitemap lines of robots.txt; none: /sitemap.xml */
  sources: string[];
  maxBodyBytes: number;
  /** wait before each request (the site's delay: sitemap requests are spaced as page requests are) */
  gapMs?: number;
  log?: Logger;
}

function isGzip(b: Uint8Array): boolean {
  return b[0] === 0x1f && b[1] === 0x8b;
}

/** The site's own URLs listed by its sitemaps, each once, in the order found. */
export async function readSitemaps(o: ReadSitemapsOptions): Promise<string[]> {
  const found = new Set<string>();
  const inScope = (u: URL): boolean => (u.protocol === 'http:' || u.protocol === 'https:') && u.host === o.site.host;
  const todo: Array<{ url: string; level: number }> = (o.sources.length > 0 ? o.sources : [new URL('/sitemap.xml', o.site).href]).map((url) => ({ url, level: 0 }));
  const done = new Set<string>();
  while (todo.length > 0 && done.size < SITEMAP_MAX_FILES) {
    const { url, level } = todo.shift() as { url: string; level: number };
    if (done.has(url)) continue;
    done.add(url);
    let text: string;
    try {
      const bytes = await fetchFollowing(o, new URL(url));
      if (bytes === undefined) continue;
      // maxOutputLength: a gzip bomb fails this sitemap, not the process
      text = new TextDecoder().decode(isGzip(bytes) ? gunzipSync(bytes, { maxOutputLength: o.maxBodyBytes }) : bytes);
    } catch (err) {
      o.log?.info({ sitemap: url, err: (err as Error).message }, 'sitemap not read');
      continue;
    }
    const parsed = parseSitemap(text);
    for (const loc of parsed.locs) {
      let u: URL;
      try {
        u = new URL(loc);
      } catch {
        continue;
      }
      if (parsed.kind === 'index') {
        // one level of indexes, as the protocol has it (an index does not list indexes)
        if (level === 0) todo.push({ url: u.href, level: 1 });
      } else if (inScope(u)) found.add(u.href);
    }
  }
  return [...found];
}

async function fetchFollowing(o: ReadSitemapsOptions, start: URL): Promise<Uint8Array | undefined> {
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (o.gapMs) await new Promise((r) => setTimeout(r, o.gapMs).unref());
    const res = await o.get(url);
    if (res.status >= 300 && res.status < 400 && res.location) {
      url = new URL(res.location, url);
      continue;
    }
    if (res.status >= 200 && res.status < 300) return res.body;
    if (!(res.status === 404 && o.sources.length === 0)) o.log?.info({ sitemap: url.href, status: res.status }, 'sitemap not read');
    return undefined;
  }
  o.log?.info({ sitemap: start.href }, `sitemap not read: more than ${MAX_REDIRECTS} redirects`);
  return undefined;
}
