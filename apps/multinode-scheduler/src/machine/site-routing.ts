/**
 * Routing crawl queue entries site by site (3.2.5.5): a site gets a route once, to the least-loaded live node, and
 * every node is sent it with CMD_UM_ADD_ROUTE; the entry then goes to the routed node. An entry whose host has no
 * live DNS answer waits (parked) for one. A node that registers learns the routes made so far and tells its own
 * (CMD_UM_ASK_ROUTE ... CMD_UM_LAST_ROUTE): routing of a collection waits for that, `ASK_ROUTE_WAIT_MS` at most.
 */
import { FSCMT_CONF_STATES, type FscmtQueueEntry } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Clock } from '@esp/timers';
import type { SchedulerStore } from '../scheduler-store';
import type { Collection, CollectionTable, Queued } from './collection-table';
import type { DnsCache } from './dns-cache';
import type { NodeRegistry } from './node-registry';
import type { NodeSend } from './node-send';
import { hostOfSite, siteOf } from './sites';

/** How long routing of a collection waits for a node's CMD_UM_LAST_ROUTE after asking it for its routes. */
export const ASK_ROUTE_WAIT_MS = 30_000;

export interface SiteRoutingDeps {
  clock: Clock;
  store: SchedulerStore;
  send: NodeSend;
  nodes: NodeRegistry;
  collections: CollectionTable;
  dns: DnsCache;
  /**
   * Routing begins once this many node schedulers are registered (so the first one does not take every site); once
   * begun it goes on with fewer (a dead node's sites must go to the live ones).
   */
  minNodes?: number;
  log?: Logger;
}

export class SiteRouting {
  /** Set once `minNodes` nodes were registered: routing has begun. */
  private begun = false;

  constructor(private readonly deps: SiteRoutingDeps) {}

  routeOf(collection: string, site: string): string | undefined {
    return this.deps.collections.get(collection)?.routes.get(site);
  }

  /** The sites routed to the node id already (restored from the store, or kept from before it left). */
  sitesOf(nodeId: string): number {
    return [...this.deps.collections.values()].reduce((n, c) => n + [...c.routes.values()].filter((owner) => owner === nodeId).length, 0);
  }

  /**
   * A node registered: per collection it gets the configuration and every route made so far, and is asked for the
   * ones it already crawls by (a node that outlived a restart of this scheduler has some); routing of the
   * collection waits for its CMD_UM_LAST_ROUTE so that no site gets a second node. A suspended collection's state
   * follows its configuration (CMD_ADM_CONF_SUSPEND), so that a suspension outlives a restart of either scheduler.
   */
  greet(address: string, nodeId: string): void {
    const { collections, clock, send } = this.deps;
    for (const [name, c] of collections.entries()) {
      if (c.removing) continue;
      send(address, { command: 'CMD_ADM_CONF_ADD', dspecName: name, dspec: c.dspec, epoch: c.epoch }, 1);
      // a node holds a collection ACTIVE once added (and after its own restart): a suspension must reach it again
      if (c.state !== FSCMT_CONF_STATES.ACTIVE) send(address, { command: 'CMD_ADM_CONF_SUSPEND', dspecName: name, state: c.state }, 1);
      for (const [site, owner] of c.routes) this.sendRoute(address, name, owner, site);
      send(address, { command: 'CMD_UM_ASK_ROUTE', dspecName: name }, 1);
      c.awaitingRoutes.set(nodeId, clock.now() + ASK_ROUTE_WAIT_MS);
    }
  }

  /** A node tells the routes it crawls by (after CMD_UM_ASK_ROUTE): adopted unless the site is routed already. */
  adopt(collection: string, routes: Array<{ routingAttribute: string; nodeId: string }>): void {
    const c = this.deps.collections.get(collection);
    if (!c) return;
    for (const r of routes) {
      const existing = c.routes.get(r.routingAttribute);
      if (existing === undefined) {
        c.routes.set(r.routingAttribute, r.nodeId);
        this.deps.store.putRoute(collection, r.routingAttribute, r.nodeId);
        const owner = this.deps.nodes.withId(r.nodeId);
        if (owner) owner.sites++;
      } else if (existing !== r.nodeId) {
        this.deps.log?.warn({ collection, site: r.routingAttribute, claimedBy: r.nodeId, routedTo: existing }, 'conflicting route ignored');
      }
    }
  }

  /** 3.2.5.10: the node has told all its routes (the caller pumps: routing of the collection may resume). */
  lastRoute(collection: string, nodeId: string): void {
    this.deps.collections.get(collection)?.awaitingRoutes.delete(nodeId);
  }

  /** Routes and hands out queued entries while there are node schedulers to take them (3.2.5.5). */
  pump(): void {
    const { nodes, collections, store, log, clock } = this.deps;
    if (nodes.size === 0) return;
    if (!this.begun && nodes.size < (this.deps.minNodes ?? 1)) return;
    this.begun = true;
    const now = clock.now();
    for (const [name, c] of collections.entries()) {
      if (c.removing || c.state !== FSCMT_CONF_STATES.ACTIVE) continue;
      for (const [id, deadline] of c.awaitingRoutes) {
        if (deadline > now) continue;
        c.awaitingRoutes.delete(id);
        log?.warn({ collection: name, node: id }, 'no CMD_UM_LAST_ROUTE in time: routing resumes without it');
      }
      if (c.awaitingRoutes.size > 0) continue;
      while (c.queue.length > 0) {
        const queued = c.queue.shift() as Queued;
        const entry = queued.entry;
        const site = siteOf(entry);
        if (site === undefined) {
          log?.warn({ collection: name, uri: entry.uri.uri }, 'dropped a crawl queue entry without a host');
          store.deleteEntry(queued.key);
          continue;
        }
        let owner = c.routes.get(site.site);
        if (owner === undefined) {
          if (!this.deps.dns.fresh(site.host)) {
            const parked = c.parked.get(site.host) ?? [];
            parked.push(queued);
            c.parked.set(site.host, parked);
            this.deps.dns.lookup(site.host);
            continue;
          }
          owner = this.route(name, c, site.site, entry);
        }
        const to = nodes.withId(owner);
        if (!to) {
          c.routes.delete(site.site);
          store.deleteRoute(name, site.site);
          c.queue.unshift(queued);
          continue;
        }
        nodes.handOut(to, { key: queued.key, collection: name, entry });
      }
    }
  }

  /** A new route for the site, to the least-loaded node, told to every node. */
  private route(collection: string, c: Collection, site: string, entry: FscmtQueueEntry): string {
    const owner = this.deps.nodes.pick().id;
    c.routes.set(site, owner);
    c.routedBy.set(site, entry);
    this.deps.store.putRoute(collection, site, owner);
    for (const n of this.deps.nodes.values()) {
      if (n.id === owner) n.sites++;
      this.sendRoute(n.address, collection, owner, site);
    }
    return owner;
  }

  private sendRoute(to: string, collection: string, owner: string, site: string): void {
    const { addrinfo, ttl } = this.deps.dns.forRoute(hostOfSite(site));
    this.deps.send(to, { command: 'CMD_UM_ADD_ROUTE', dspecName: collection, route: { nodeId: owner, routingAttribute: site, site, addrinfo, ttl } }, 1);
  }
}
