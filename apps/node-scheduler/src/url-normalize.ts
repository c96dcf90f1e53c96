/**
 * One spelling per URL, so that a page is fetched once however it is linked. The WHATWG URL parser already lower-
 * cases the scheme and host, drops the default port, resolves "." and ".." segments and percent-encodes what must
 * be; on top of that (RFC 3986 6.2.2): the fragment goes, percent-encodings get upper-case hex digits, encoded
 * unreserved characters (A-Z a-z 0-9 - . _ ~) are decoded, an empty query ("?") goes, and the query parameters
 * the crawl configuration names (strip_query_params: exact names, or prefixes ending in "*", case-insensitive)
 * are removed; the others keep their order and spelling.
 *
 *   const strip = queryParamMatcher(['utm_*', 'sessionid']);
 *   normalizeUri('HTTP://Example.COM:80/a/./b/../c?utm_source=x&id=%7e1#top', strip);  // 'http://example.com/a/c?id=~1'
 */
export type QueryParamMatcher = (name: string) => boolean;

export function queryParamMatcher(patterns: string[]): QueryParamMatcher | undefined {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const p of patterns.map((x) => x.trim().toLowerCase()).filter((x) => x !== '')) {
    if (p.endsWith('*')) prefixes.push(p.slice(0, -1));
    else exact.add(p);
  }
  if (exact.size === 0 && prefixes.length === 0) return undefined;
  return (name) => {
    const n = name.toLowerCase();
    return exact.has(n) || prefixes.some((p) => n.startsWith(p));
  };
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** "%7e" -> "~", "%2f" -> "%2F": RFC 3986 6.2.2.1 and 6.2.2.2. */
function normalizePercent(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : `%${hex.toUpperCase()}`;
  });
}

function paramName(part: string): string {
  const raw = part.split('=')[0] ?? '';
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The normal form of an absolute http(s) URL, or undefined for anything else. */
export function normalizeUrl(u: URL, strip?: QueryParamMatcher): string | undefined {
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  // the setters parse again: each is used only when it changes something (most links need none of them)
  if (u.hash !== '') u.hash = '';
  const path = u.pathname;
  if (path.includes('%')) u.pathname = normalizePercent(path);
  const search = u.search;
  if (search === '' && !u.href.endsWith('?')) return u.href;
  let query = search.slice(1);
  if (query !== '' && strip) {
    query = query
      .split('&')
      .filter((p) => p !== '' && !strip(paramName(p)))
      .join('&');
  }
  // the setter drops one leading "?": given one, a query that starts with "?" keeps it
  u.search = query === '' ? '' : `?${normalizePercent(query)}`;
  return u.href;
}

export function normalizeUri(uri: string, strip?: QueryParamMatcher): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return undefined;
  }
  return normalizeUrl(u, strip);
}
