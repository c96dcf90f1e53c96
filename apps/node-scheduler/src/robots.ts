/**
 * robots.txt (the 1994 convention as RFC 9309 writes it down): the group for our user agent, else "*"; the
 * longest matching Allow / Disallow path prefix wins, Allow on a tie; "*" and "$" in paths are honoured. A missing
 * robots.txt (4xx) allows everything; an unreachable one (5xx, network error) allows nothing for now.
 *
 *   const rules = parseRobots(text, 'esp-crawler');
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

export const ALLOW_ALL: RobotsRules = { allow: [], disallow: [] };
export const DENY_ALL: RobotsRules = { allow: [], disallow: [robotsPathRule('/')] };

export function parseRobots(text: string, agent: string): RobotsRules {
  const groups: Array<{ agents: string[]; rules: { allow: string[]; disallow: string[] } }> = [];
  let current: { agents: string[]; rules: { allow: string[]; disallow: string[] } } | undefined;
  let lastWasAgent = false;
  for (const raw of text.split(/\r?\n|\r/).slice(0, 10_000)) {
    const line = raw.replace(/#.*$/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = (m[1] ?? '').toLowerCase();
    const value = (m[2] ?? '').trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) groups.push((current = { agents: [], rules: { allow: [], disallow: [] } }));
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if (key === 'disallow' && value) current.rules.disallow.push(value);
    if (key === 'allow' && value) current.rules.allow.push(value);
  }
  const me = agent.toLowerCase();
  const mine = groups.filter((g) => g.agents.some((a) => a !== '*' && me.includes(a)));
  const chosen = mine.length > 0 ? mine : groups.filter((g) => g.agents.includes('*'));
  return { allow: chosen.flatMap((g) => g.rules.allow).map(robotsPathRule), disallow: chosen.flatMap((g) => g.rules.disallow).map(robotsPathRule) };
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
