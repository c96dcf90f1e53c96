/**
 * Whose turn it is to be fetched: one request at a time per site, `delay` apart (or robots.txt's longer
 * Crawl-delay), none on a site quarantined, blocked or over `maxDocsPerSite`; and when to look again.
 */
import { FSCMT_CONF_STATES, type FscmtQueueEntry } from '@esp/codecs';
import type { Clock } from '@esp/timers';
import type { CollectionTable } from './collection-table';
import type { Fetch } from './fetch';
import { depthOf } from './queue-entries';
import type { SitePermissions } from './site-permissions';

export const MAX_CRAWL_DELAY_MS = 120_000;

export interface FetchTurnsDeps {
  clock: Clock;
  collections: CollectionTable;
  permissions: SitePermissions;
  /** Work may be available (the crawler wakes up). */
  work: () => void;
}

export class FetchTurns {
  constructor(private readonly deps: FetchTurnsDeps) {}

  /** The next fetch allowed now, or undefined; `nextWakeMs` says when to look again. */
  nextFetch(): Fetch | undefined {
    const now = this.deps.clock.now();
    for (const c of this.deps.collections.values()) {
      if (c.state !== FSCMT_CONF_STATES.ACTIVE) continue;
      for (const s of c.sites.values()) {
        if (s.state === 'blocked' && s.blockedUntil <= now) this.deps.permissions.activate(c, s);
        if (s.state !== 'active' || s.busy || s.nextAt > now || s.queue.length === 0) continue;
        if ((c.quarantine.get(s.site) ?? 0) > now) continue;
        if (s.docs + s.pending >= c.settings.maxDocsPerSite) {
          // fetches still out may end as redirects or errors, which are not pages: wait for them before dropping
          if (s.pending > 0) continue;
          c.stats.excluded += s.queue.length;
          this.deps.collections.dropped(c, s.site, s.queue.splice(0));
          this.deps.permissions.release(c, s);
          continue;
        }
        const entry = s.queue.shift() as FscmtQueueEntry;
        s.busy = true;
        s.pending++;
        return { collection: c.name, site: s.site, entry, depth: depthOf(entry), settings: c.settings };
      }
    }
    return undefined;
  }

  /** Milliseconds until some site becomes fetchable (politeness, blocks, quarantine), or undefined. */
  nextWakeMs(): number | undefined {
    const now = this.deps.clock.now();
    let best: number | undefined;
    for (const c of this.deps.collections.values()) {
      if (c.state !== FSCMT_CONF_STATES.ACTIVE) continue;
      for (const s of c.sites.values()) {
        if (s.queue.length === 0 || s.busy) continue;
        const at = s.state === 'active' ? Math.max(s.nextAt, c.quarantine.get(s.site) ?? 0) : s.state === 'blocked' ? s.blockedUntil : undefined;
        if (at !== undefined) best = Math.min(best ?? Infinity, Math.max(0, at - now));
      }
    }
    return best;
  }

  /**
   * The request to the site is over (the body is read): the site may be asked again `delay` from now, while this
   * page is still being checked, fed and mined for links. Politeness is about requests to the site, so the
   * processing does not hold the site up. Optional: fetched() implies it.
   */
  requestDone(f: Fetch): void {
    const c = this.deps.collections.get(f.collection);
    const s = c?.sites.get(f.site);
    if (!c || !s || !s.busy) return;
    s.busy = false;
    s.processing++;
    s.nextAt = this.deps.clock.now() + Math.max(c.settings.delayMs, s.crawlDelayMs);
    this.deps.work();
  }

  /**
   * The site's robots.txt asks for this many milliseconds between requests (Crawl-delay): it is the site's delay
   * when longer than the configured one, at most MAX_CRAWL_DELAY_MS (a robots.txt must not park a crawl for days).
   */
  crawlDelay(f: Fetch, ms: number): void {
    const s = this.deps.collections.get(f.collection)?.sites.get(f.site);
    if (s) s.crawlDelayMs = Math.min(Math.max(0, ms), MAX_CRAWL_DELAY_MS);
  }
}
