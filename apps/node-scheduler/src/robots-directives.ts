/**
 * Page-level robots directives, from <meta name="robots" content="..."> (or a meta named after our product token)
 * and the X-Robots-Tag header: "noindex" (fetch, follow the links, do not feed), "nofollow" (do not follow the
 * page's links), "none" (both). Other directives (noarchive, nosnippet, max-*) concern search result display.
 *
 *   const d = robotsDirectives('noindex, follow');                       // { noindex: true, nofollow: false }
 *   const h = headerRobotsDirectives('esp-crawler: nofollow', 'esp-crawler');
 */
export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
}

export const NO_DIRECTIVES: RobotsDirectives = Object.freeze({ noindex: false, nofollow: false });

export function robotsDirectives(content: string): RobotsDirectives {
  let noindex = false;
  let nofollow = false;
  for (const t of content.toLowerCase().split(/[\s,]+/)) {
    if (t === 'noindex' || t === 'none') noindex = true;
    if (t === 'nofollow' || t === 'none') nofollow = true;
  }
  return { noindex, nofollow };
}

export function mergeDirectives(a: RobotsDirectives, b: RobotsDirectives): RobotsDirectives {
  return { noindex: a.noindex || b.noindex, nofollow: a.nofollow || b.nofollow };
}

/**
 * X-Robots-Tag: each value (several headers arrive joined with ", ") applies to every crawler, or, when it starts
 * with "<agent>:", to that one only.
 */
export function headerRobotsDirectives(value: string | undefined, token: string): RobotsDirectives {
  if (!value) return NO_DIRECTIVES;
  let d = NO_DIRECTIVES;
  // "googlebot: noindex, otherbot: nofollow": an agent name starts a new part; the directives after it are its own
  let mine = true;
  for (const part of value.split(',')) {
    const m = /^\s*([a-z0-9_.-]+)\s*:\s*(.*)$/i.exec(part);
    let directives = part;
    if (m && !/^(max-|unavailable_after)/i.test(m[1] ?? '')) {
      mine = (m[1] ?? '').toLowerCase() === token;
      directives = m[2] ?? '';
    }
    if (mine) d = mergeDirectives(d, robotsDirectives(directives));
  }
  return d;
}
