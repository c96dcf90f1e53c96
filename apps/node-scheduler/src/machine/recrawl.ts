/**
 * Crawl rounds. A recrawl (CMD_ADM_CONF_REFRESH, MS-FSCMT 3.1.5.9 and 2.2.3.10, or the collection's `refresh`
 * interval) queues again every URI this node fetched, each once in the round: they leave the seen set and come
 * back into it as they are queued, so a link found meanwhile to a known page does not queue it a second time, and
 * a link to a new page queues that page once as in any crawl. Their entries carry URIF_RESCHEDULED, which tells the
 * crawler to ask conditionally (If-None-Match / If-Modified-Since): an unchanged page costs a 304 and nothing else.
 *
 * What the refresh mask asks (FSCMT_REFRESH_BITS):
 *   REFRESH_COLLECTION, REFRESH_SUBCOLLECTION, or no bit   a crawl round (this node keeps no subcollections: the
 *                                                          whole collection is refreshed)
 *   TRUNCATE_AND_RESTART                                   the crawl queues are emptied first, then a round
 *   REQUEUE_START_URIS                                     alone: the start URIs are queued again (as on an
 *                                                          update); with a round, the round has them already
 *   RELOAD_CONFIGURATION                                   nothing: configurations come in CMD_ADM_CONF_UPDATE,
 *                                                          this node keeps none on disk
 *
 * A known page whose URI the configuration no longer allows leaves the index at once; a known page of a site
 * routed to another node now is forgotten here (that node fetches it).
 */
import { FSCMT_CONF_STATES, FSCMT_REFRESH_BITS, FSCMT_URI_FLAGS } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Clock } from '@esp/timers';
import { crawlStartUris } from '@esp/crawl-bus';
import { uriAllowed } from '../crawl-settings';
import { normalizeUri } from '../url-normalize';
import type { Collection, CollectionTable } from './collection-table';
import type { CrawlQueue } from './crawl-queue';
import { entryFor } from './queue-entries';
import type { RouteTable } from './route-table';
import { siteOf } from './sites';

export interface RecrawlDeps {
  nodeId: string;
  clock: Clock;
  collections: CollectionTable;
  queue: CrawlQueue;
  routes: RouteTable;
  /** A round began: the crawler reads the sites' sitemaps again. */
  onRound: (collection: string) => void;
  /** Delete these URIs from the index (pages the configuration no longer allows). */
  onDelete: (collection: string, uris: string[]) => void;
  log?: Logger;
}

const ROUND = FSCMT_REFRESH_BITS.REFRESH_COLLECTION | FSCMT_REFRESH_BITS.REFRESH_SUBCOLLECTION | FSCMT_REFRESH_BITS.TRUNCATE_AND_RESTART;

export class Recrawl {
  constructor(private readonly deps: RecrawlDeps) {}

  /** CMD_ADM_CONF_REFRESH for a collection held here. */
  refresh(name: string, mask: number, subcollection: string | null): void {
    const c = this.deps.collections.get(name);
    if (!c) return;
    if ((mask & ROUND) !== 0 || mask === 0) {
      // a round queues the start URIs too: the known ones conditionally, like every known page
      this.round(c, subcollection === null ? 'refresh' : `refresh of subcollection ${subcollection}`, (mask & FSCMT_REFRESH_BITS.TRUNCATE_AND_RESTART) !== 0);
    } else if (mask & FSCMT_REFRESH_BITS.REQUEUE_START_URIS) this.deps.queue.requeueStartUris(name);
  }

  /** The refresh tick: collections whose `refresh` interval has run since their round began start another. */
  due(): void {
    const now = this.deps.clock.now();
    for (const c of this.deps.collections.values()) {
      if (c.settings.refreshMs > 0 && c.state === FSCMT_CONF_STATES.ACTIVE && now - c.roundStartedAt >= c.settings.refreshMs) this.round(c, 'refresh interval', false);
    }
  }

  private round(c: Collection, reason: string, truncate: boolean): void {
    if (c.state === FSCMT_CONF_STATES.REMOVING) return;
    const { nodeId, routes, queue } = this.deps;
    const queued = new Set<string>();
    let dropped = 0;
    for (const s of c.sites.values()) {
      if (truncate) {
        for (const e of s.queue) c.seen.delete(e.uri.uri);
        dropped += s.queue.length;
        s.queue.length = 0;
      } else for (const e of s.queue) queued.add(e.uri.uri);
      // max_doc bounds the pages of a site in a round
      s.docs = 0;
    }
    c.roundStartedAt = this.deps.clock.now();
    this.deps.onRound(c.name);
    let requeued = 0;
    const disallowed: string[] = [];
    for (const [uri, depth] of c.known) {
      if (queued.has(uri)) continue;
      const where = siteOf(uri);
      const owner = where && routes.owner(c.name, where.site);
      if (!where || (owner !== undefined && owner !== nodeId)) {
        c.known.delete(uri);
        continue;
      }
      if (!uriAllowed(c.settings, uri)) {
        c.known.delete(uri);
        if (c.sites.get(where.site)?.fetched.delete(uri)) disallowed.push(uri);
        continue;
      }
      c.seen.delete(uri);
      queue.enqueue(c.name, entryFor(uri, '', depth, [], FSCMT_URI_FLAGS.URIF_RESCHEDULED));
      requeued++;
    }
    // a start URI never fetched here (new in the configuration, or its fetch was put off) joins the round as a link
    for (const raw of crawlStartUris(c.dspec)) {
      const uri = normalizeUri(raw, c.settings.stripQuery);
      if (uri !== undefined && !c.known.has(uri)) queue.link(c, uri, '', 0, [], true);
    }
    if (disallowed.length > 0) {
      c.stats.removed += disallowed.length;
      this.deps.onDelete(c.name, disallowed);
    }
    this.deps.log?.info({ collection: c.name, reason, requeued, dropped, removed: disallowed.length }, 'crawl round started: known pages queued again');
  }
}

/** Is this entry a page queued again by a crawl round (to be asked for conditionally)? */
export function isRecrawl(uriFlags: number): boolean {
  return (uriFlags & FSCMT_URI_FLAGS.URIF_RESCHEDULED) !== 0;
}
