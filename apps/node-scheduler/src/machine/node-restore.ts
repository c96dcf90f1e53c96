/**
 * A node scheduler restarted on its store takes its crawl back: the collections, the routes it was told, each site's
 * queue in its order (with the entries that were being fetched at the kill: they were never marked done), the seen
 * set, the links forwarded for routing (those not vouched for are sent again once registered), and the pages it fed.
 *
 * The restored sites wait: they ask for their crawl permission only once the multinode scheduler, greeting the node
 * that registered again, has told the routes it knows and asked for ours (CMD_UM_ASK_ROUTE). By then a site that
 * went to another node while this one was down has moved (its entries went with it, CrawlQueue.routeMoved); one
 * routed here is crawled on; one routed nowhere goes back to the multinode scheduler, which routes it.
 */
import type { FscmtQueueEntry } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { StoredNodeState } from '../store/node-store';
import { newSite, type Collection, type CollectionTable, type Site } from './collection-table';
import type { MnsLink } from './mns-link';
import type { RouteTable } from './route-table';
import type { SitePermissions } from './site-permissions';
import { siteOf } from './sites';

export interface NodeRestoreDeps {
  nodeId: string;
  collections: CollectionTable;
  routes: RouteTable;
  mns: MnsLink;
  permissions: SitePermissions;
  log?: Logger;
}

/** What a restore took back, for the log line and for the specs. */
export interface RestoreSummary {
  collections: number;
  queued: number;
  done: number;
  forwarded: number;
  /** links forwarded and not vouched for: sent again after CMD_UM_INIT */
  unconfirmed: number;
  /** the URIs being fetched (or fed) when the node stopped: fetched again */
  inFlight: string[];
}

export class NodeRestore {
  /** Forwarded links not vouched for before the restart: sent again once registered. */
  private forwards: Array<{ collection: string; entry: FscmtQueueEntry }> = [];

  constructor(private readonly deps: NodeRestoreDeps) {}

  restore(state: StoredNodeState): RestoreSummary {
    const { collections, routes } = this.deps;
    for (const c of state.collections) collections.configure(c.name, c.dspec, c.epoch);
    for (const r of state.routes) if (collections.has(r.collection)) routes.add(r.collection, { site: r.site, nodeId: r.node, addrinfo: null, ttl: 0 });
    let queued = 0;
    let done = 0;
    const inFlight: string[] = [];
    for (const q of state.queued) {
      const c = collections.get(q.collection);
      const s = c && this.site(c, q.entry.uri.uri);
      if (!c || !s) continue;
      s.queue.push(q.entry);
      c.seen.add(q.entry.uri.uri);
      if (q.inFlight) inFlight.push(q.entry.uri.uri);
      queued++;
    }
    for (const d of state.done) {
      const c = collections.get(d.collection);
      if (!c) continue;
      c.seen.add(d.uri);
      if (d.depth >= 0) c.known.set(d.uri, d.depth);
      if (d.fed) this.site(c, d.uri)?.fetched.add(d.uri);
      done++;
    }
    let forwarded = 0;
    for (const f of state.forwarded) {
      const c = collections.get(f.collection);
      if (!c) continue;
      let bySite = c.forwarded.get(f.site);
      if (!bySite) c.forwarded.set(f.site, (bySite = new Map()));
      bySite.set(f.uri, f.depth);
      if (f.entry) this.forwards.push({ collection: f.collection, entry: f.entry });
      forwarded++;
    }
    return { collections: state.collections.length, queued, done, forwarded, unconfirmed: this.forwards.length, inFlight };
  }

  /** Registered again (CMD_UM_INIT sent): the forwarded links that were not vouched for go again. */
  registered(): void {
    for (const { collection, entry } of this.forwards.splice(0)) this.deps.mns.forward(collection, entry);
  }

  /**
   * The multinode scheduler told its routes of the collection and asked for ours: restored sites routed here ask
   * for their crawl permission; those routed nowhere go back to it for routing.
   */
  routesKnown(collection: string): void {
    const c = this.deps.collections.get(collection);
    if (!c) return;
    for (const s of c.sites.values()) {
      if (s.state !== 'new' || s.queue.length === 0) continue;
      const owner = this.deps.routes.owner(c.name, s.site);
      if (owner === this.deps.nodeId) this.deps.permissions.activate(c, s);
      else if (owner === undefined) {
        const entries = s.queue.splice(0);
        for (const e of entries) {
          c.seen.delete(e.uri.uri);
          this.deps.mns.forward(c.name, e);
        }
        this.deps.log?.info({ collection, site: s.site, entries: entries.length }, 'a restored site is routed nowhere: its entries go to the multinode scheduler');
      }
    }
  }

  private site(c: Collection, uri: string): Site | undefined {
    const where = siteOf(uri);
    if (!where) return undefined;
    let s = c.sites.get(where.site);
    if (!s) c.sites.set(where.site, (s = newSite(where)));
    return s;
  }
}
