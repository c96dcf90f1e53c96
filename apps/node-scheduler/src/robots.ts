/**
 * robots.txt as RFC 9309 writes it down: the groups naming our product token (case-insensitive, exactly), else
 * "*"; the longest matching Allow / Disallow path wins, Allow on a tie; "*" and "$" in paths are honoured; non-ASCII
 * characters of a pattern match their UTF-8 percent-encoding. Crawl-delay (not in the RFC, widely used) is read from
 * the chosen groups, Sitemap lines from anywhere in the file. Fetching, redirects, status codes and caching are
 * robots-cache.ts's.
 *
 *   const rules = parseRobots(text, 'esp-crawler/1.0');
 *   robotsAllows(rules, '/private/x.html');
 */
/** A path rule, compiled once: every URI of the site is checked against every rule. */
export interface RobotsPathRule {
  pattern: string;
  /** the pattern's length without a trailing "$": the longest match wins */
  length: number;
  /** for patterns with "*" or "$"; plain patterns are prefixes */
  re: RegExp | undefined;
}

export interface RobotsRules {
  allow: RobotsPathRule[];
  disallow: RobotsPathRule[];
  /** Crawl-delay of the chosen group, in milliseconds */
  crawlDelayMs: number | undefined;
  /** Sitemap URLs as written (absolute per the convention) */
  sitemaps: string[];
}

export function robotsPathRule(pattern: string): RobotsPathRule {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const re =
    anchored || body.includes('*')
      ? new RegExp('^' + body.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + (anchored ? '$' : ''))
      : undefined;
  return { pattern, length: body.length, re };
}

export const ALLOW_ALL: RobotsRules = { allow: [], disallow: [], crawlDelayMs: undefined, sitemaps: [] };
export const DENY_ALL: RobotsRules = { allow: [], disallow: [robotsPathRule('/')], crawlDelayMs: undefined, sitemaps: [] };

/** The product token of a User-Agent string: "esp-crawler/1.0 (+http://x)" -> "esp-crawler". */
export function productToken(userAgent: string): string {
  return (userAgent.trim().split(/[/\s]/)[0] ?? '').toLowerCase();
}

/** RFC 9309 2.2.2: a pattern's non-ASCII characters (and spaces) compare as the percent-encoded URI path has them. */
function encodePattern(p: string): string {
  return p.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
}

interface Group {
  agents: string[];
  allow: string[];
  disallow: string[];
  crawlDelay: number | undefined;
}

export function parseRobots(text: string, userAgent: string): RobotsRules {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  let lastWasAgent = false;
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n|\r/).slice(0, 10_000)) {
    const line = raw.replace(/#.*$/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = (m[1] ?? '').toLowerCase();
    const value = (m[2] ?? '').trim();
    if (key === 'sitemap') {
      // not a group member: it may stand anywhere
      if (value) sitemaps.push(value);
      continue;
    }
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) groups.push((current = { agents: [], allow: [], disallow: [], crawlDelay: undefined }));
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if (key === 'disallow' && value) current.disallow.push(encodePattern(value));
    else if (key === 'allow' && value) current.allow.push(encodePattern(value));
    else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelay = seconds;
    }
  }
  const me = productToken(userAgent);
  const mine = groups.filter((g) => g.agents.includes(me));
  const chosen = mine.length > 0 ? mine : groups.filter((g) => g.agents.includes('*'));
  const delays = chosen.map((g) => g.crawlDelay).filter((d): d is number => d !== undefined);
  return {
    allow: chosen.flatMap((g) => g.allow).map(robotsPathRule),
    disallow: chosen.flatMap((g) => g.disallow).map(robotsPathRule),
    crawlDelayMs: delays.length > 0 ? Math.round(Math.max(...delays) * 1000) : undefined,
    sitemaps,
  };
}

function matchLength(rule: RobotsPathRule, path: string): number {
  const hit = rule.re ? rule.re.test(path) : path.startsWith(rule.pattern);
  return hit ? rule.length : -1;
}

/** `path` is the URI's path and query. */
export function robotsAllows(rules: RobotsRules, path: string): boolean {
  let best = -1;
  let allowed = true;
  for (const p of rules.disallow) {
    const n = matchLength(p, path);
    if (n > best) {
      best = n;
      allowed = false;
    }
  }
  for (const p of rules.allow) {
    const n = matchLength(p, path);
    if (n >= best && n >= 0) {
      best = n;
      allowed = true;
    }
  }
  return allowed;
}
