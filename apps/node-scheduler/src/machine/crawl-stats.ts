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
