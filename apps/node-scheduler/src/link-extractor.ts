/**
 * Links of an HTML page with a real HTML parser (htmlparser2), per the link_extraction table of MS-FSCMT 2.2.2.3.3:
 * only the tags whose bits are set are followed. Relative links are resolved against the page (and its <base>),
 * fragments dropped, only http(s) kept; a link written the same way twice is resolved once. The title is taken on
 * the way, for feeding (the pipeline's html stage keeps a title it is given). The page's text is not: the item
 * processor's html stage extracts it, with the block structure the index wants, from the body the crawler feeds;
 * collecting it here too would be thrown away.
 *
 * Robots directives of the page: <meta name="robots"> (or named after our product token) with nofollow drops every
 * link but a meta refresh target (the page's way of moving, as a redirect); a link with rel="nofollow" is dropped;
 * noindex is reported for the crawler to act on.
 *
 *   const { links, title, robots } = extractLinks(html, 'http://127.0.0.1:8080/a/', DEFAULT_LINK_TAGS, { agent: 'esp-crawler' });
 */
import { FSCMT_LINK_EXTRACTION_KEYS as K } from '@esp/codecs';
import { Parser } from 'htmlparser2';
import { mergeDirectives, NO_DIRECTIVES, robotsDirectives, type RobotsDirectives } from './robots-directives';

const ATTRS: Array<[string, string, number]> = [
  ['a', 'href', K.a],
  ['area', 'href', K.area],
  ['frame', 'src', K.frame],
  ['iframe', 'src', K.frame],
  ['link', 'href', K.link],
  ['img', 'src', K.img],
  ['embed', 'src', K.embed],
  ['script', 'src', K.script],
  ['object', 'data', K.object],
  ['form', 'action', K.action],
];

export interface ExtractedPage {
  links: string[];
  title: string;
  /** A meta refresh target, when the page has one and meta_refresh links are followed. */
  refresh: string | undefined;
  /** <meta name="robots"> directives (nofollow is applied to `links` already) */
  robots: RobotsDirectives;
}

export interface ExtractOptions {
  /** our product token, lower case: a <meta name="<agent>"> is read as <meta name="robots"> */
  agent?: string;
  /** the form a link is kept in (URL normalisation); default: the WHATWG serialisation without fragment */
  normalize?: (u: URL) => string | undefined;
}

const FOLLOW_REL = new Set(['a', 'area', 'link']);

export function extractLinks(html: string, pageUri: string, tags: number, opts: ExtractOptions = {}): ExtractedPage {
  let base = pageUri;
  const raw: string[] = [];
  let title = '';
  let inTitle = false;
  let refresh: string | undefined;
  let robots = NO_DIRECTIVES;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs['href']) base = resolve(attrs['href'], pageUri) ?? base;
        if (name === 'title') inTitle = true;
        for (const [tag, attr, bit] of ATTRS) {
          if (name !== tag || !(tags & bit) || !attrs[attr]) continue;
          if (FOLLOW_REL.has(name) && attrs['rel'] !== undefined && /(^|\s)nofollow(\s|$)/i.test(attrs['rel'])) continue;
          raw.push(attrs[attr]);
        }
        if (name === 'meta' && attrs['name'] !== undefined && attrs['content'] !== undefined) {
          const n = attrs['name'].trim().toLowerCase();
          if (n === 'robots' || (opts.agent !== undefined && n === opts.agent)) robots = mergeDirectives(robots, robotsDirectives(attrs['content']));
        }
        if (name === 'meta' && (attrs['http-equiv'] ?? '').toLowerCase() === 'refresh' && tags & K.meta_refresh) {
          const m = /url\s*=\s*['"]?([^'"]+)/i.exec(attrs['content'] ?? '');
          if (m?.[1]) {
            refresh = m[1];
            raw.push(m[1]);
          }
        }
      },
      ontext(t) {
        if (inTitle) title += t;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const refreshUri = refresh === undefined ? undefined : resolve(refresh, base, opts.normalize);
  const links = new Set<string>();
  if (robots.nofollow) {
    if (refreshUri !== undefined) links.add(refreshUri);
  } else {
    // menus and repeated links: each spelling is resolved once
    for (const r of new Set(raw)) {
      const u = resolve(r, base, opts.normalize);
      if (u) links.add(u);
    }
  }
  return {
    links: [...links],
    title: title.trim().replace(/\s+/g, ' '),
    refresh: refreshUri,
    robots,
  };
}

/** An absolute http(s) URI without fragment (in the `normalize` form, if given), or undefined. */
export function resolve(href: string, base: string, normalize?: (u: URL) => string | undefined): string | undefined {
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    if (normalize) return normalize(u);
    u.hash = '';
    return u.toString();
  } catch {
    return undefined;
  }
}
