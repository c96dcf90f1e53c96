/**
 * What a node scheduler takes from a crawl configuration (the PKT_DSPEC dict, MS-FSCMT 2.2.2.3), checked, with
 * errors that name the setting:
 *
 *   delay           real/integer  seconds between two requests to one site (politeness)      default 60
 *   max_doc         integer       documents per site at most                                 default unlimited
 *   crawlmode.mode  string        "FULL" or "DEPTH:<n>" (links followed from a start URI)    default FULL
 *   include_uris / exclude_uris   sections of list-strings prefix, suffix, exact, regexp     default all / none
 *   robots          boolean       obey robots.txt                                            default yes
 *   link_extraction section       tags whose links are followed (2.2.2.3.3 integer keys)     default a, area, frame, link, meta_refresh
 *   sitemaps        boolean       read the site's sitemaps (robots.txt Sitemap lines, else    default yes
 *                                 /sitemap.xml): their URLs of the site are queued as start URIs
 *   strip_query_params list-string query parameters removed from every URI before it is      default none
 *                                 queued: names ("sessionid") or prefixes ("utm_*"), any case (see url-normalize.ts)
 *   refresh         real/integer  minutes between the starts of two crawl rounds: each round    default 0 (none)
 *                                 fetches the known pages again, conditionally (recrawl.ts)
 */
import { FSCMT_LINK_EXTRACTION_KEYS, FswcuDict, FswcuFloat, type FswcuValue } from '@esp/codecs';
import { queryParamMatcher, type QueryParamMatcher } from './url-normalize';

export class CrawlSettingsError extends Error {
  override readonly name = 'CrawlSettingsError';
  readonly code = 'crawl_settings_invalid';
}

export interface UriRules {
  prefix: string[];
  suffix: string[];
  exact: string[];
  regexp: RegExp[];
}

export interface CrawlSettings {
  delayMs: number;
  maxDocsPerSite: number;
  maxDepth: number;
  include: UriRules | undefined;
  exclude: UriRules | undefined;
  robots: boolean;
  /** FSCMT_LINK_EXTRACTION_KEYS bits of the tags to follow. */
  linkTags: number;
  /** the sitemaps' URLs of each site are start URIs */
  sitemaps: boolean;
  /** query parameters removed from URIs (strip_query_params) */
  stripQuery: QueryParamMatcher | undefined;
  /** milliseconds between the starts of two crawl rounds (refresh); 0: only CMD_ADM_CONF_REFRESH starts one */
  refreshMs: number;
}

const K = FSCMT_LINK_EXTRACTION_KEYS;
export const DEFAULT_LINK_TAGS = K.a | K.area | K.frame | K.link | K.meta_refresh;

const text = (v: FswcuValue | undefined): string | undefined =>
  v instanceof Uint8Array ? new TextDecoder().decode(v) : typeof v === 'string' ? v : undefined;

function num(v: FswcuValue | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  if (v instanceof FswcuFloat) return v.value;
  if (typeof v === 'bigint') return Number(v);
  throw new CrawlSettingsError(`${name} must be a number`);
}

function rules(v: FswcuValue | undefined, name: string): UriRules | undefined {
  if (v === undefined) return undefined;
  if (!(v instanceof FswcuDict)) throw new CrawlSettingsError(`${name} must be a section`);
  const list = (key: string): string[] => {
    const items = v.getText(key);
    if (items === undefined) return [];
    if (!Array.isArray(items)) throw new CrawlSettingsError(`${name}.${key} must be a list-string`);
    return items.map((i) => text(i) ?? '');
  };
  const regexp = list('regexp').map((r) => {
    try {
      return new RegExp(r);
    } catch (err) {
      throw new CrawlSettingsError(`${name}.regexp "${r}": ${(err as Error).message}`);
    }
  });
  return { prefix: list('prefix'), suffix: list('suffix'), exact: list('exact'), regexp };
}

function flag(v: FswcuValue | undefined, byDefault: boolean): boolean {
  return v === undefined ? byDefault : v === 1 || v === true;
}

export function crawlSettings(dspec: FswcuDict): CrawlSettings {
  const delay = num(dspec.getText('delay'), 'delay') ?? 60;
  if (!(delay >= 0)) throw new CrawlSettingsError('delay must be >= 0');
  const maxDoc = num(dspec.getText('max_doc'), 'max_doc') ?? 0;
  const refresh = num(dspec.getText('refresh'), 'refresh') ?? 0;
  if (!(refresh >= 0)) throw new CrawlSettingsError('refresh must be >= 0 (minutes)');
  let maxDepth = Infinity;
  const mode = dspec.getText('crawlmode');
  if (mode !== undefined) {
    if (!(mode instanceof FswcuDict)) throw new CrawlSettingsError('crawlmode must be a section');
    const m = text(mode.getText('mode')) ?? 'FULL';
    const depth = /^DEPTH:(\d+)$/i.exec(m);
    if (depth) maxDepth = Number(depth[1]);
    else if (m.toUpperCase() !== 'FULL') throw new CrawlSettingsError(`crawlmode.mode must be FULL or DEPTH:<n>, got "${m}"`);
  }
  let linkTags = DEFAULT_LINK_TAGS;
  const le = dspec.getText('link_extraction');
  if (le !== undefined) {
    if (!(le instanceof FswcuDict)) throw new CrawlSettingsError('link_extraction must be a section');
    linkTags = 0;
    for (const [k, v] of le.entries) if (typeof k === 'number' && v === 1) linkTags |= k;
  }
  const robots = dspec.getText('robots');
  const strip = dspec.getText('strip_query_params');
  if (strip !== undefined && !Array.isArray(strip)) throw new CrawlSettingsError('strip_query_params must be a list-string');
  return {
    delayMs: Math.round(delay * 1000),
    maxDocsPerSite: maxDoc > 0 ? maxDoc : Infinity,
    maxDepth,
    include: rules(dspec.getText('include_uris'), 'include_uris'),
    exclude: rules(dspec.getText('exclude_uris'), 'exclude_uris'),
    robots: robots === undefined ? true : robots === 1 || robots === true,
    linkTags,
    sitemaps: flag(dspec.getText('sitemaps'), true),
    stripQuery: strip === undefined ? undefined : queryParamMatcher(strip.map((v) => text(v) ?? '')),
    refreshMs: Math.round(refresh * 60_000),
  };
}

function matches(r: UriRules, uri: string): boolean {
  return r.exact.includes(uri) || r.prefix.some((p) => uri.startsWith(p)) || r.suffix.some((s) => uri.endsWith(s)) || r.regexp.some((re) => re.test(uri));
}

/** Is a URI inside the crawl (include rules, if any, match; no exclude rule matches)? */
export function uriAllowed(settings: CrawlSettings, uri: string): boolean {
  if (settings.include && !matches(settings.include, uri)) return false;
  return !(settings.exclude && matches(settings.exclude, uri));
}
