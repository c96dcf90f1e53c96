/**
 * robots.txt per origin as RFC 9309 2.3 and 2.4 say to fetch and keep it:
 *
 *   - redirects are followed, five at most (http -> https and apex -> www are common); the rules read at the end
 *     apply to the origin asked about; more than five: no robots.txt (allow all)
 *   - 2xx: the rules; 4xx: no robots.txt (allow all); 5xx or no answer: everything disallowed for now, and read
 *     again later (1 minute, doubling to 30 at most); after `maxFailures` failures in a row the site's pages are
 *     given up (until the next attempt, 30 minutes later)
 *   - kept 24 hours (2.4: "SHOULD NOT use a cached version for more than 24 hours"); the first 500 KiB are parsed
 *
 * One line is logged when a robots.txt cannot be read or when it shuts the whole site out, not one per page.
 *
 *   const robots = new RobotsCache({ get: (url) => httpGet(url, opts), userAgent: 'esp-crawler', log });
 *   const d = await robots.decide(new URL('http://example.test/a.html'));
 *   if (d.kind === 'unreachable') retryIn(d.retryInMs); else if (robotsAllows(d.rules, path)) fetch();
 */
import type { Logger } from '@esp/logging';
import type { HttpGetResult } from './http-get';
import { ALLOW_ALL, parseRobots, robotsAllows, type RobotsRules } from './robots';

export const ROBOTS_TTL_MS = 24 * 3600_000;
export const ROBOTS_MAX_REDIRECTS = 5;
export const ROBOTS_MAX_BYTES = 500 * 1024;

export type RobotsDecision =
  | { kind: 'rules'; rules: RobotsRules }
  /** robots.txt could not be read (5xx, network): ask again in `retryInMs` */
  | { kind: 'unreachable'; retryInMs: number; reason: string }
  /** it could not be read `maxFailures` times in a row: the pages asked about meanwhile are given up */
  | { kind: 'given_up'; reason: string };

export interface RobotsCacheOptions {
  /** GET with the crawler's options (no redirects followed); bodies are truncated, not refused, past the bound */
  get: (url: URL) => Promise<HttpGetResult>;
  userAgent: string;
  log?: Logger;
  now?: () => number;
  ttlMs?: number;
  /** the first wait after a failure; doubled after each failure in a row, up to `maxRetryMs` */
  retryMs?: number;
  maxRetryMs?: number;
  maxFailures?: number;
  /** Rules read before (a restart): used until they expire. */
  saved?: Array<{ origin: string; rules: RobotsRules; expiresAt: number }>;
  /** Rules were read (to keep them across a restart). */
  onRules?: (origin: string, rules: RobotsRules, expiresAt: number) => void;
}

interface Entry {
  decision: Promise<RobotsDecision>;
  expiresAt: number;
}

type Read = { ok: true; rules: RobotsRules; note?: string } | { ok: false; reason: string };

export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  /** failures in a row per origin (a success resets) */
  private readonly failures = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly opts: RobotsCacheOptions) {
    this.now = opts.now ?? Date.now;
    for (const s of opts.saved ?? []) {
      if (s.expiresAt > this.now()) this.entries.set(s.origin, { decision: Promise.resolve({ kind: 'rules', rules: s.rules }), expiresAt: s.expiresAt });
    }
  }

  decide(url: URL): Promise<RobotsDecision> {
    const origin = url.origin;
    const e = this.entries.get(origin);
    if (e && e.expiresAt > this.now()) {
      return e.decision.then((d) => (d.kind === 'unreachable' ? { ...d, retryInMs: Math.max(0, e.expiresAt - this.now()) } : d));
    }
    const entry: Entry = { decision: Promise.resolve({ kind: 'given_up', reason: '' }), expiresAt: Infinity };
    entry.decision = this.load(origin, entry);
    this.entries.set(origin, entry);
    return entry.decision;
  }

  private async load(origin: string, entry: Entry): Promise<RobotsDecision> {
    const read = await this.read(origin);
    if (read.ok) {
      this.failures.delete(origin);
      entry.expiresAt = this.now() + (this.opts.ttlMs ?? ROBOTS_TTL_MS);
      this.opts.onRules?.(origin, read.rules, entry.expiresAt);
      if (read.note) this.opts.log?.info({ origin, note: read.note }, 'robots.txt not usable: the site is crawled as if it had none');
      if (!robotsAllows(read.rules, '/') && read.rules.allow.length === 0) this.opts.log?.info({ origin }, 'robots.txt disallows the whole site to us: nothing of it is fetched');
      return { kind: 'rules', rules: read.rules };
    }
    const n = (this.failures.get(origin) ?? 0) + 1;
    this.failures.set(origin, n);
    const maxRetry = this.opts.maxRetryMs ?? 30 * 60_000;
    const wait = Math.min(maxRetry, (this.opts.retryMs ?? 60_000) * 2 ** (n - 1));
    entry.expiresAt = this.now() + wait;
    const maxFailures = this.opts.maxFailures ?? 5;
    if (n >= maxFailures) {
      entry.expiresAt = this.now() + maxRetry;
      // counted anew from the next attempt: a site that comes back is crawled again
      this.failures.set(origin, maxFailures - 1);
      this.opts.log?.warn({ origin, reason: read.reason, failures: n, retryInMs: maxRetry }, 'robots.txt unreachable too often: the pages queued for the site are given up');
      return { kind: 'given_up', reason: read.reason };
    }
    this.opts.log?.warn({ origin, reason: read.reason, failures: n, retryInMs: wait }, 'robots.txt unreachable: the site is not crawled until it can be read');
    return { kind: 'unreachable', retryInMs: wait, reason: read.reason };
  }

  private async read(origin: string): Promise<Read> {
    let url = new URL('/robots.txt', origin);
    for (let hop = 0; ; hop++) {
      let res: HttpGetResult;
      try {
        res = await this.opts.get(url);
      } catch (err) {
        return { ok: false, reason: `${url.href}: ${(err as Error).message}` };
      }
      if (res.status >= 300 && res.status < 400 && res.location) {
        if (hop >= ROBOTS_MAX_REDIRECTS) return { ok: true, rules: ALLOW_ALL, note: `more than ${ROBOTS_MAX_REDIRECTS} redirects` };
        try {
          url = new URL(res.location, url);
        } catch {
          return { ok: true, rules: ALLOW_ALL, note: `a redirect to an invalid location "${res.location}"` };
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: true, rules: ALLOW_ALL, note: `a redirect to ${url.protocol}` };
        continue;
      }
      if (res.status >= 200 && res.status < 300) return { ok: true, rules: parseRobots(new TextDecoder().decode(res.body), this.opts.userAgent) };
      // 4xx (and a 3xx without Location): "unavailable", so no restriction
      if (res.status < 500) return { ok: true, rules: ALLOW_ALL };
      return { ok: false, reason: `${url.href}: HTTP ${res.status}` };
    }
  }
}
