/**
 * A collection's counters (sent in CMD_UM_STAT). Every 2xx answer read is `fetched`, and is then exactly one of
 * `fed` (handed to the feeding client), `duplicates` (another URI owns its content), `unfed` (owned, but feeding is
 * off or suspended), `excluded_type` (not a type the pipeline indexes), `excluded_size` (over the body bound) or
 * `noindex` (the page says noindex: meta robots or X-Robots-Tag).
 * `excluded` counts URIs never fetched (robots.txt, include / exclude rules). `feed_failed` counts documents the
 * feeding chain took and then failed (a processing error, document_too_large...): the feeding client's outcomes.
 * On a recrawl, `unchanged` counts the pages a conditional GET found not modified (304: not `fetched`), and
 * `removed` the pages taken out of the index because they are gone (404, 410), redirect, or are no longer
 * indexable, allowed or owned.
 */
import { FswcuDict, type FswcuValue } from '@esp/codecs';
import type { Collection } from './collection-table';

export interface CrawlStats {
  fetched: number;
  fed: number;
  duplicates: number;
  unfed: number;
  excluded_type: number;
  excluded_size: number;
  noindex: number;
  excluded: number;
  errors: number;
  redirects: number;
  feed_failed: number;
  unchanged: number;
  removed: number;
}

export const noStats = (): CrawlStats => ({ fetched: 0, fed: 0, duplicates: 0, unfed: 0, excluded_type: 0, excluded_size: 0, noindex: 0, excluded: 0, errors: 0, redirects: 0, feed_failed: 0, unchanged: 0, removed: 0 });

/** 3.1.6: a CMD_UM_STAT carries the counters' change since the previous one, not the totals; `sent` moves on. */
export function takeStatsDelta(counts: { stats: CrawlStats; statsSent: CrawlStats }): FswcuDict {
  const delta = Object.entries(counts.stats).map(([k, v]) => [new TextEncoder().encode(k), v - counts.statsSent[k as keyof CrawlStats]] as [Uint8Array, number]);
  counts.statsSent = { ...counts.stats };
  return new FswcuDict(delta);
}

/** The key of CMD_UM_STAT's PKT_DATA under which the node's progress travels (absolute values, not deltas). */
export const PROGRESS_KEY = 'progress';

/**
 * What the collection has queued and in flight on this node now (documents in the feeding chain included), and per
 * site its pages fetched and queued, its fetch errors (with the last one's reason) and why it is held back, if it is,
 * for how many more milliseconds (`now`: the clock's time) (only
 * the sites that changed since the previous report, so a report stays small on a large crawl). The multinode
 * scheduler keeps the latest and tells from them when the crawl is done; a counter dict of older nodes has none.
 */
export function takeProgress(c: Collection, feedsInFlight = 0, now = 0): FswcuDict {
  const enc = (k: string) => new TextEncoder().encode(k);
  const sent = (c.progressSent ??= new Map());
  let queued = 0;
  let inFlight = feedsInFlight;
  const sites: Array<[Uint8Array, FswcuDict]> = [];
  for (const s of c.sites.values()) {
    queued += s.queue.length;
    inFlight += (s.busy ? 1 : 0) + s.processing;
    const held = s.held && s.held.until > now ? s.held : undefined;
    const key = `${s.docs} ${s.queue.length} ${s.errors} ${held ? `${held.until} ${held.reason}` : ''}`;
    if (sent.get(s.site) === key) continue;
    sent.set(s.site, key);
    const site: Array<[Uint8Array, FswcuValue]> = [[enc('fetched'), s.docs], [enc('queued'), s.queue.length], [enc('errors'), s.errors]];
    // why the site waits and for how long from now; the last fetch error's reason
    if (held) site.push([enc('held'), enc(held.reason)], [enc('held_ms'), Math.max(0, Math.round(held.until - now))]);
    if (s.lastError !== undefined) site.push([enc('last_error'), enc(s.lastError)]);
    sites.push([enc(s.site), new FswcuDict(site)]);
  }
  return new FswcuDict([
    [enc('queued'), queued],
    [enc('in_flight'), inFlight],
    [enc('sites'), new FswcuDict(sites)],
  ]);
}
