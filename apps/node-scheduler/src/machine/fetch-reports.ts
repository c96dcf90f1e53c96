/**
 * What the crawler reports of a fetch: the page's fate counted, its links queued here or sent on for routing,
 * redirects followed with their trail, a fetch put off back in front; a site with nothing queued, in flight or in
 * processing is released. Each URI fetched becomes known (a crawl round fetches it again: recrawl.ts); a page in
 * the index whose new answer says it no longer belongs there (gone, a redirect, no longer indexable, allowed or
 * owned) is deleted from it.
 */
import { FSCMT_URI_FLAGS } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Clock } from '@esp/timers';
import type { CollectionTable } from './collection-table';
import type { CrawlQueue } from './crawl-queue';
import type { Fetch, FetchOutcome } from './fetch';
import type { FetchTurns } from './fetch-turns';
import type { SitePermissions } from './site-permissions';

/** A reason travels in every progress report of its site: bounded. */
const MAX_REASON_CHARS = 300;

export interface FetchReportsDeps {
  clock: Clock;
  collections: CollectionTable;
  queue: CrawlQueue;
  turns: FetchTurns;
  permissions: SitePermissions;
  /** Delete these URIs from the index (and their checksums from the duplicate server). */
  onDelete: (collection: string, uris: string[]) => void;
  /** Work may be available (the crawler wakes up). */
  work: () => void;
  log?: Logger;
}

export class FetchReports {
  constructor(private readonly deps: FetchReportsDeps) {}

  /**
   * Links of a page just read, queued here or sent to the multinode scheduler at once, before the page's duplicate
   * check and feeding: a site whose queue holds only the links of the page in processing would otherwise wait for
   * the duplicate server's round trip before its next request (pass them to `fetched` instead if not known early).
   * They are taken as normalised already (normalizeUrl with the collection's stripQuery): the link extractor does it.
   */
  linksFound(f: Fetch, links: string[]): void {
    const c = this.deps.collections.get(f.collection);
    if (!c || !c.sites.has(f.site)) return;
    // the crawler's link extraction normalised them with the collection's settings already
    if (f.depth < c.settings.maxDepth) for (const link of links) this.deps.queue.link(c, link, f.entry.uri.uri, f.depth + 1, [], true);
    this.deps.work();
  }

  /** The crawler reads the site's sitemaps: the site is not released meanwhile. */
  sitemapsStarted(f: Fetch): void {
    const s = this.deps.collections.get(f.collection)?.sites.get(f.site);
    if (s) s.processing++;
  }

  /** The site's sitemaps listed these URIs: start URIs of the crawl (depth 0), queued or routed as links are. */
  sitemapsRead(f: Fetch, referrer: string, uris: string[]): void {
    const c = this.deps.collections.get(f.collection);
    const s = c?.sites.get(f.site);
    if (!c || !s) return;
    s.processing = Math.max(0, s.processing - 1);
    for (const uri of uris) this.deps.queue.link(c, uri, referrer, 0, []);
    if (s.queue.length === 0 && !s.busy && s.processing === 0) this.deps.permissions.release(c, s);
    this.deps.work();
  }

  /** The crawler reports a fetch: links are queued here or sent to the multinode scheduler. */
  fetched(f: Fetch, outcome: FetchOutcome): void {
    const c = this.deps.collections.get(f.collection);
    const s = c?.sites.get(f.site);
    if (!c || !s) return;
    if (s.busy && (outcome.kind === 'excluded' || outcome.kind === 'deferred')) {
      // refused or put off by robots.txt before any request: the site was not asked, so no politeness delay
      s.busy = false;
      s.processing++;
    } else if (s.busy) this.deps.turns.requestDone(f);
    s.processing = Math.max(0, s.processing - 1);
    s.pending = Math.max(0, s.pending - 1);
    // a site is held back only as long as its fetches are put off
    if (outcome.kind !== 'deferred') s.held = undefined;
    const uri = f.entry.uri.uri;
    if (outcome.kind !== 'deferred') c.known.set(uri, f.depth);
    // what the index holds of this URI stays only for a page fed (again), unchanged, unfed (feeding off: the copy
    // there stands) or not read for now (error, deferred)
    const stays = outcome.kind === 'unchanged' || outcome.kind === 'error' || outcome.kind === 'deferred' || (outcome.kind === 'page' && outcome.fate !== 'duplicate');
    if (!stays && s.fetched.delete(uri)) {
      c.stats.removed++;
      this.deps.log?.info({ collection: c.name, uri, outcome: outcome.kind }, 'page no longer in the crawl: deleted from the index');
      this.deps.onDelete(c.name, [uri]);
    }
    switch (outcome.kind) {
      case 'page':
        s.docs++;
        c.stats.fetched++;
        if (outcome.fate === 'fed') {
          c.stats.fed++;
          s.fetched.add(uri);
        } else if (outcome.fate === 'duplicate') c.stats.duplicates++;
        else c.stats.unfed++;
        if (f.depth < c.settings.maxDepth) for (const link of outcome.links) this.deps.queue.link(c, link, f.entry.uri.uri, f.depth + 1, []);
        break;
      case 'redirect':
        c.stats.redirects++;
        // the target carries the redirect trail (2.2.2.2) and keeps the depth of the page that redirected
        this.deps.queue.link(c, outcome.location, f.entry.referrer.uri, f.depth, [
          ...f.entry.redirects,
          { uri: f.entry.uri.uri, kind: outcome.status === 301 ? FSCMT_URI_FLAGS.URIF_REDIRECT_301 : FSCMT_URI_FLAGS.URIF_REDIRECT_302 },
        ]);
        break;
      case 'not_indexable':
        s.docs++;
        c.stats.fetched++;
        c.stats.excluded_type++;
        break;
      case 'noindex':
        s.docs++;
        c.stats.fetched++;
        c.stats.noindex++;
        break;
      case 'too_large':
        s.docs++;
        c.stats.fetched++;
        c.stats.excluded_size++;
        this.deps.log?.info({ collection: c.name, uri: f.entry.uri.uri, maxBytes: outcome.maxBytes }, 'page excluded: larger than the body bound');
        break;
      case 'excluded':
        c.stats.excluded++;
        break;
      case 'unchanged':
        s.docs++;
        c.stats.unchanged++;
        break;
      case 'gone':
        c.stats.errors++;
        s.errors++;
        s.lastError = `${uri}: HTTP ${outcome.status}`.slice(0, MAX_REASON_CHARS);
        this.deps.log?.info({ collection: c.name, uri, reason: `HTTP ${outcome.status}` }, 'fetch failed');
        break;
      case 'deferred':
        s.queue.unshift(f.entry);
        s.nextAt = Math.max(s.nextAt, this.deps.clock.now() + outcome.retryInMs);
        s.held = { reason: (outcome.reason ?? 'put off').slice(0, MAX_REASON_CHARS), until: s.nextAt };
        break;
      case 'error':
        c.stats.errors++;
        s.errors++;
        if (outcome.read) s.docs++;
        s.lastError = `${uri}: ${outcome.reason}`.slice(0, MAX_REASON_CHARS);
        this.deps.log?.info({ collection: c.name, uri: f.entry.uri.uri, reason: outcome.reason }, 'fetch failed');
        break;
    }
    if (s.queue.length === 0 && !s.busy && s.processing === 0) this.deps.permissions.release(c, s);
    this.deps.work();
  }

  /** The feeding chain failed a document of the collection after it was fed (the feeding client's outcome). */
  feedFailed(collection: string): void {
    const c = this.deps.collections.get(collection);
    if (c) c.stats.feed_failed++;
  }
}
