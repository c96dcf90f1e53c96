/**
 * What a dropped node scheduler's sites leave behind: its routes go, and per site it owned the collection's start
 * URIs on that site and the entry the site was first routed with go back to the front of the queue, so that a live
 * node takes the site over and crawls it anew from there (what the dead node had queued lived in its memory alone).
 */
import type { FscmtQueueEntry } from '@esp/codecs';
import { crawlStartUris } from '@esp/crawl-bus';
import type { SchedulerStore } from '../scheduler-store';
import type { CollectionTable } from './collection-table';
import type { Handed } from './node-registry';
import { siteOf, startEntry } from './sites';

/**
 * Takes the node's routes away and requeues its sites' entries, except those in `unconfirmed` (the entries it never
 * vouched for: the caller puts those back itself). Returns the sites lost and the entries requeued.
 */
export function takeOverSites(collections: CollectionTable, store: SchedulerStore, nodeId: string, unconfirmed: Handed[]): { sites: number; requeued: number } {
  let sites = 0;
  let requeued = 0;
  for (const [name, c] of collections.entries()) {
    c.awaitingRoutes.delete(nodeId);
    const lost = new Set<string>();
    for (const [site, owner] of c.routes) {
      if (owner !== nodeId) continue;
      c.routes.delete(site);
      store.deleteRoute(name, site);
      lost.add(site);
    }
    sites += lost.size;
    if (c.removing || lost.size === 0) continue;
    // the requeued entries go to the front (the site was being crawled), each URI once, and none the node had
    // not vouched for (those come back anyway)
    const again = new Map<string, FscmtQueueEntry>();
    for (const h of unconfirmed) if (h.collection === name) again.set(h.entry.uri.uri, h.entry);
    const back = new Set(again.keys());
    for (const uri of crawlStartUris(c.dspec)) {
      const e = startEntry(uri);
      const site = siteOf(e);
      if (site && lost.has(site.site)) again.set(uri, e);
    }
    for (const site of lost) {
      const first = c.routedBy.get(site);
      c.routedBy.delete(site);
      if (first && !again.has(first.uri.uri)) again.set(first.uri.uri, first);
    }
    for (const back1 of back) again.delete(back1);
    for (const e of [...again.values()].reverse()) collections.enqueue(name, c, e, true);
    requeued += again.size;
  }
  return { sites, requeued };
}
