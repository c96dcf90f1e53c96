/**
 * The crawl queues: an entry for a site routed here joins its site's queue (each URI once, normalised, within the
 * include / exclude rules); a link to a site routed elsewhere, or not routed at all, goes to the multinode
 * scheduler, which routes it (3.1, forward links). When a site's route moves, the links follow it.
 */
import { FSCMT_CONF_STATES, FSCMT_URI_FLAGS, fscmtParsedUri, type FscmtQueueEntry, type FscmtRedirect } from '@esp/codecs';
import { crawlStartUris } from '@esp/crawl-bus';
import type { Logger } from '@esp/logging';
import { uriAllowed } from '../crawl-settings';
import { normalizeUri } from '../url-normalize';
import { newSite, type Collection, type CollectionTable } from './collection-table';
import type { MnsLink } from './mns-link';
import { entryFor } from './queue-entries';
import type { RouteTable } from './route-table';
import type { SitePermissions } from './site-permissions';
import { siteOf } from './sites';

export interface CrawlQueueDeps {
  nodeId: string;
  collections: CollectionTable;
  routes: RouteTable;
  mns: MnsLink;
  permissions: SitePermissions;
  /** Work may be available (the crawler wakes up). */
  work: () => void;
  log?: Logger;
}

export class CrawlQueue {
  constructor(private readonly deps: CrawlQueueDeps) {}

  /** A queue entry for this node (from the multinode scheduler, or a link found here), its URI normalised. */
  enqueue(collection: string, entry: FscmtQueueEntry, front = false): void {
    const c = this.deps.collections.get(collection);
    if (!c || c.state === FSCMT_CONF_STATES.REMOVING) return;
    const uri = normalizeUri(entry.uri.uri, c.settings.stripQuery);
    if (uri === undefined) return;
    this.enqueueNormalized(c, uri === entry.uri.uri ? entry : { ...entry, uri: fscmtParsedUri(uri) }, front);
  }

  /** Recrawl these URIs at the front of their sites' queues (promote requests 3.1.5.25, reprocess 3.1.5.14). */
  promote(collection: string, uris: string[]): void {
    const c = this.deps.collections.get(collection);
    if (!c) return;
    for (const uri of uris) {
      c.seen.delete(uri);
      this.enqueue(collection, entryFor(uri, '', 0, [], FSCMT_URI_FLAGS.URIF_PROMOTE), true);
    }
  }

  /** A link found here: queued when its site is routed here, else sent to the multinode scheduler (once). */
  link(c: Collection, raw: string, referrer: string, depth: number, redirects: FscmtRedirect[], normalized = false): void {
    // most links of a page were seen before (menus, cross links): answer those with a set lookup, before any parsing
    if (c.seen.has(raw)) return;
    // one spelling per page before the seen check, so that a page linked in two spellings is fetched once
    const uri = normalized ? raw : normalizeUri(raw, c.settings.stripQuery);
    if (uri === undefined || (uri !== raw && c.seen.has(uri))) return;
    const where = siteOf(uri);
    if (!where) return;
    if (this.deps.routes.owner(c.name, where.site) === this.deps.nodeId) return this.enqueueNormalized(c, entryFor(uri, referrer, depth, redirects, redirects.at(-1)?.kind ?? 0), false, where);
    if (c.forwarded.get(where.site)?.has(uri)) return;
    const entry = entryFor(uri, referrer, depth, redirects, redirects.at(-1)?.kind ?? 0);
    if (!uriAllowed(c.settings, uri)) {
      c.stats.excluded++;
      return;
    }
    // not routed here (or not routed at all): the multinode scheduler routes it (3.1, forward links)
    let bySite = c.forwarded.get(where.site);
    if (!bySite) c.forwarded.set(where.site, (bySite = new Map()));
    bySite.set(uri, depth);
    this.deps.mns.forward(c.name, entry);
  }

  /**
   * 3.1.5.11: the start URIs of the updated configuration go back to the crawl queue. Those on sites routed here are
   * crawled again (they leave the seen set); those not routed at all go to the multinode scheduler, which routes
   * them (a start URI new in this configuration has no route yet; every node sends it, the routed node takes it
   * once); those routed to another node are that node's to requeue on its own update.
   */
  requeueStartUris(name: string): void {
    const c = this.deps.collections.get(name);
    if (!c) return;
    let here = 0;
    let forwarded = 0;
    for (const raw of crawlStartUris(c.dspec)) {
      const uri = normalizeUri(raw, c.settings.stripQuery);
      const where = uri === undefined ? undefined : siteOf(uri);
      if (uri === undefined || !where) continue;
      const owner = this.deps.routes.owner(name, where.site);
      if (owner === this.deps.nodeId) {
        c.seen.delete(uri);
        this.enqueueNormalized(c, entryFor(uri, '', 0, [], FSCMT_URI_FLAGS.URIF_STARTURI), false);
        here++;
      } else if (owner === undefined) {
        c.forwarded.get(where.site)?.delete(uri);
        this.link(c, uri, '', 0, [], true);
        forwarded++;
      }
    }
    this.deps.log?.info({ collection: name, here, forwarded }, 'configuration updated: start URIs requeued');
  }

  /**
   * A site's route moved from one node to another: the multinode scheduler dropped the old owner (dead, or gone and
   * back). What was sent to the old owner may have died with it, so the links this node forwarded to the site are
   * handed to the new owner: queued here when that is us (a URI seen here is not fetched twice), sent to the
   * multinode scheduler again otherwise. A site that moved away from us is no longer crawled here: what its queue
   * holds goes to the new owner too (a fetch under way finishes).
   */
  routeMoved(collection: string, site: string, from: string, to: string): void {
    const c = this.deps.collections.get(collection);
    if (!c || c.state === FSCMT_CONF_STATES.REMOVING) return;
    const links = c.forwarded.get(site) ?? new Map<string, number>();
    const queued = from === this.deps.nodeId ? (c.sites.get(site)?.queue.splice(0) ?? []) : [];
    if (links.size === 0 && queued.length === 0) return;
    if (to === this.deps.nodeId) {
      c.forwarded.delete(site);
      for (const [uri, depth] of links) this.enqueueNormalized(c, entryFor(uri, '', depth, []), false);
    } else {
      for (const [uri, depth] of links) this.deps.mns.forward(c.name, entryFor(uri, '', depth, []));
      for (const entry of queued) {
        c.seen.delete(entry.uri.uri);
        this.deps.mns.forward(c.name, entry);
      }
    }
    this.deps.log?.info({ collection, site, from, to, links: links.size, queued: queued.length }, 'a site moved to another node: its links follow it');
  }

  /** `where` is the URI's site when the caller has it already (one URL parse less per link). */
  private enqueueNormalized(c: Collection, entry: FscmtQueueEntry, front: boolean, known?: ReturnType<typeof siteOf>): void {
    const uri = entry.uri.uri;
    if (c.seen.has(uri)) return;
    const where = known ?? siteOf(uri);
    if (!where) return;
    if (!uriAllowed(c.settings, uri)) {
      c.stats.excluded++;
      return;
    }
    c.seen.add(uri);
    let s = c.sites.get(where.site);
    if (!s) {
      s = newSite(where);
      c.sites.set(where.site, s);
    }
    if (front) s.queue.unshift(entry);
    else s.queue.push(entry);
    this.deps.collections.store.queued(c.name, s.site, entry, front);
    if (s.state === 'new') this.deps.permissions.activate(c, s);
    this.deps.work();
  }
}
