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
import { FswcuDict } from '@esp/codecs';
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
 * What the collection has queued and in flight on this node now (documents in the feeding chain included), and per site its pages fetched and queued (only
 * the sites that changed since the previous report, so a report stays small on a large crawl). The multinode
 * scheduler keeps the latest and tells from them when the crawl is done; a counter dict of older nodes has none.
 */
export function takeProgress(c: Collection, feedsInFlight = 0): FswcuDict {
  const enc = (k: string) => new TextEncoder().encode(k);
  const sent = (c.progressSent ??= new Map());
  let queued = 0;
  let inFlight = feedsInFlight;
  const sites: Array<[Uint8Array, FswcuDict]> = [];
  for (const s of c.sites.values()) {
    queued += s.queue.length;
    inFlight += (s.busy ? 1 : 0) + s.processing;
    const now = `${s.docs} ${s.queue.length}`;
    if (sent.get(s.site) === now) continue;
    sent.set(s.site, now);
    sites.push([enc(s.site), new FswcuDict([[enc('fetched'), s.docs], [enc('queued'), s.queue.length]])]);
  }
  return new FswcuDict([
    [enc('queued'), queued],
    [enc('in_flight'), inFlight],
    [enc('sites'), new FswcuDict(sites)],
  ]);
}
