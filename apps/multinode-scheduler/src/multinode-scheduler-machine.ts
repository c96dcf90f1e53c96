/**
 * The multinode scheduler of MS-FSCMT 3.2 as a state machine: messages from node schedulers in, messages out
 * through `send`, DNS lookups out through `resolve` (answers come back through `dnsResolved`), time from a Clock.
 *
 *   const m = new MultinodeSchedulerMachine({ clock, send, resolve });
 *   m.addCollection('web', dspec);          // CMD_ADM_CONF_ADD to every node; start URIs queued
 *   m.handle(from, dict, priority);         // CMD_UM_INIT first, then anything of 2.2.4
 *
 * Its rules live in the parts under ./machine, one concept each: registration (CMD_UM_INIT first, one connection
 * per node id), the registry of nodes and what they were handed, liveness (missed keep-alives drop a node, beyond
 * 3.2.6), the takeover of a dropped node's sites by the live ones, site routing, collections and their queues, the
 * DNS cache, crawl IP permissions and the nodes' statistics.
 *
 * Every change of what must survive a restart (collections and epochs, queued entries, routes, IP permissions, DNS
 * answers, the nodes' counters) is written through `store` as it happens; `restore()` takes it back. An entry handed to a node leaves
 * the store only when `onHandedOut` says so (the transport retires it once the message is known to have left).
 */
import {
  buildFscmtNodeSchedulerMessage,
  FSCMT_CONF_STATES,
  FswcuDict,
  readFscmtMultinodeSchedulerMessage,
  type FscmtAddrinfoResult,
  type FscmtMultinodeSchedulerMessage,
  type FscmtNodeSchedulerMessage,
  type FscmtPriority,
  type FscmtQueueEntry,
} from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Clock } from '@esp/timers';
import { BoundedLog } from './bounded-log';
import { addStats, totalStats } from './machine/collection-stats';
import { CollectionTable } from './machine/collection-table';
import { CrawlProgress } from './machine/crawl-progress';
import { crawlStateOf, type CrawlState } from './machine/crawl-state';
import { DEFAULT_DNS_TTL_S, DnsCache } from './machine/dns-cache';
import { IpPermissions } from './machine/ip-permissions';
import { NodeLiveness } from './machine/node-liveness';
import { NodeRegistration } from './machine/node-registration';
import { NodeRegistry } from './machine/node-registry';
import type { NodeSend } from './machine/node-send';
import { SiteRouting } from './machine/site-routing';
import { startEntry } from './machine/sites';
import { takeOverSites } from './machine/site-takeover';
import { NullSchedulerStore, type SchedulerStore, type StoredSchedulerState } from './scheduler-store';

export { DEFAULT_DNS_TTL_S } from './machine/dns-cache';
export { MAX_SITES_PER_IP } from './machine/ip-permissions';
export { DEFAULT_KEEPALIVE_MS, DEFAULT_MAX_MISSED_KEEPALIVES } from './machine/node-liveness';
export { ASK_ROUTE_WAIT_MS } from './machine/site-routing';
export { DEFAULT_SETTLE_MS, type NodeProgress, type SiteProgress } from './machine/crawl-progress';
export type { CrawlState } from './machine/crawl-state';
export { siteOf } from './machine/sites';

/** CMD_UM_LOG lines kept for inspection (each is also written to the scheduler's log). */
export const LOG_LINES_KEPT = 1000;

export interface MultinodeSchedulerOptions {
  clock: Clock;
  send: (to: string, dict: FswcuDict, priority: FscmtPriority) => void;
  /** Starts a lookup; the answer must come back through dnsResolved(host, ...). */
  resolve: (host: string) => void;
  /** A connection whose first message was not CMD_UM_INIT, or whose node id is taken (the transport may close it). */
  onRefused?: (address: string, reason: string) => void;
  log?: Logger;
  keepaliveMs?: number;
  maxSitesPerIp?: number;
  /**
   * Routing begins once this many node schedulers are registered (so the first one does not take every site); once
   * begun it goes on with fewer (a dead node's sites must go to the live ones).
   */
  minNodes?: number;
  /** Keep-alive rounds left unanswered in a row after which a node is dropped (default 3). */
  maxMissedKeepalives?: number;
  /** Where the state that must survive a restart is written (default: nowhere). */
  store?: SchedulerStore;
  /**
   * An entry was handed to a node scheduler (its CMD_UM_URI is queued for sending). Default: it leaves the store at
   * once. A transport that can tell when the message has reached the bus retires it then, so a kill in between
   * sends it again after the restart (the node scheduler drops a URI it has seen) instead of losing it.
   */
  onHandedOut?: (key: number, collection: string, entry: FscmtQueueEntry) => void;
  /** How long every node must report itself idle before a crawl is done (default DEFAULT_SETTLE_MS). */
  settleMs?: number;
}


/** Composes the parts under ./machine: each owns its state; this class dispatches messages and admin calls to them. */
export class MultinodeSchedulerMachine {
  private readonly store: SchedulerStore;
  private readonly nodes: NodeRegistry;
  private readonly collections: CollectionTable;
  private readonly dns: DnsCache;
  private readonly ips: IpPermissions;
  private readonly routing: SiteRouting;
  private readonly liveness: NodeLiveness;
  private readonly registration: NodeRegistration;
  readonly logLines = new BoundedLog<{ node: string; file: string; message: string }>(LOG_LINES_KEPT);
  /** What each node has queued and in flight, per collection and per site (its CMD_UM_STAT progress). */
  readonly progress: CrawlProgress;

  constructor(private readonly opts: MultinodeSchedulerOptions) {
    const { clock, log } = opts;
    const store = (this.store = opts.store ?? new NullSchedulerStore());
    const progress = (this.progress = new CrawlProgress(clock, opts.settleMs));
    const send: NodeSend = (to, message, priority) => {
      if (message.command === 'CMD_UM_URI' || message.command === 'CMD_UM_URI_URG') {
        const id = this.nodes.get(to)?.id;
        if (id !== undefined) progress.handedOut(message.dspecName, id);
      }
      opts.send(to, buildFscmtNodeSchedulerMessage(message), priority);
    };
    const nodes = (this.nodes = new NodeRegistry({ send, store, onHandedOut: opts.onHandedOut, log }));
    const collections = (this.collections = new CollectionTable({ store, broadcast: (message, priority) => nodes.broadcast(message, priority) }));
    const dns = (this.dns = new DnsCache({ clock, store, send, resolve: opts.resolve }));
    this.ips = new IpPermissions({ store, maxSitesPerIp: opts.maxSitesPerIp, log });
    const routing = (this.routing = new SiteRouting({ clock, store, send, nodes, collections, dns, minNodes: opts.minNodes, log }));
    this.registration = new NodeRegistration({ nodes, routing, onRefused: opts.onRefused, log });
    this.liveness = new NodeLiveness({
      clock,
      nodes,
      send,
      drop: (address, reason) => this.dropNode(address, reason),
      afterRound: () => this.routing.pump(), // also ends route waits that timed out
      keepaliveMs: opts.keepaliveMs,
      maxMissedKeepalives: opts.maxMissedKeepalives,
      log,
    });
  }

  /**
   * Takes back what a previous run stored (call before anything else): collections with their epochs and states,
   * queued entries in queue order, routes, IP permissions and DNS answers. Node schedulers register again and are
   * sent the routes; the entries are routed once the nodes are back (and have told their own routes).
   */
  restore(state: StoredSchedulerState): void {
    this.collections.restore(state);
    this.ips.restore(state.ips);
    this.dns.restore(state.dns);
  }

  start(): void {
    this.liveness.start();
  }

  stop(): void {
    this.liveness.stop();
  }

  /**
   * Our NATS connection came back: at the next keep-alive tick every node gets again what it has not vouched for.
   * The rounds missed while we were cut off say nothing about the nodes: they start again from zero.
   */
  busReconnected(): void {
    this.liveness.busReconnected();
  }

  /** Our NATS connection broke: unanswered keep-alives are our outage, not the nodes', and drop nobody meanwhile. */
  busDisconnected(): void {
    this.liveness.busDisconnected();
  }

  /** Entries handed out and not yet vouched for by their node, over all nodes (what a NATS outage could have lost). */
  get unconfirmedHandedOut(): number {
    return this.nodes.unconfirmedHandedOut;
  }

  /** Collections known and not being removed, with their configuration. */
  collectionConfigs(): Map<string, FswcuDict> {
    return this.collections.configs();
  }

  nodeIds(): string[] {
    return this.nodes.ids();
  }

  routeOf(collection: string, site: string): string | undefined {
    return this.routing.routeOf(collection, site);
  }

  queued(collection: string): number {
    return this.collections.get(collection)?.queue.length ?? 0;
  }

  /** Per node, the counters it reported (sums of its deltas). */
  statsOf(collection: string): Map<string, Map<string, number>> | undefined {
    return this.collections.get(collection)?.stats;
  }

  /** The collection's counters over every node that ever reported (a dropped node's counts stay). */
  totalStats(collection: string): Record<string, number> {
    return totalStats(this.collections.get(collection)?.stats);
  }

  /** The collection's crawl here and whether it is done, or undefined when it is unknown or being removed. */
  crawlState(name: string): CrawlState | undefined {
    const c = this.collections.active(name);
    return c && crawlStateOf(c, this.progress.settled(name, this.nodes.ids()));
  }

  // ---- administration (MS-FSCADM side): configurations to every node scheduler

  addCollection(name: string, dspec: FswcuDict, startUris: string[] = []): void {
    this.progress.reset(name);
    if (this.collections.add(name, dspec, startUris)) this.routing.pump();
  }

  updateCollection(name: string, dspec: FswcuDict): void {
    this.progress.reset(name);
    if (this.collections.update(name, dspec)) this.routing.pump();
  }

  /** URIs to crawl before anything else queued (CMD_UM_URI_URG, 3.2.5.7): to the front of the collection's queue. */
  enqueueUrgent(name: string, uris: string[]): boolean {
    const c = this.collections.active(name);
    if (!c) return false;
    this.progress.reset(name);
    for (const uri of [...uris].reverse()) this.collections.enqueue(name, c, startEntry(uri), true);
    this.routing.pump();
    return true;
  }

  /** CMD_ADM_CONF_REMOVE to every node; the state goes when a node answers CMD_UM_DELETE_OK (3.2.5.14). */
  removeCollection(name: string): void {
    this.collections.remove(name);
  }

  suspend(name: string, state: number = FSCMT_CONF_STATES.SUSPENDED_BY_USER): void {
    this.collections.suspend(name, state);
  }

  resume(name: string): void {
    this.progress.reset(name);
    if (this.collections.resume(name)) this.routing.pump();
  }

  /** Sends an administrative message to every node (preempt, delete site / URIs, reprocess, quarantine...). */
  broadcast(message: FscmtNodeSchedulerMessage, priority: FscmtPriority = 1): void {
    this.nodes.broadcast(message, priority);
  }

  // ---- messages

  handle(from: string | undefined, dict: FswcuDict, priority: FscmtPriority = 0): void {
    if (from === undefined) return;
    let msg: FscmtMultinodeSchedulerMessage;
    try {
      msg = readFscmtMultinodeSchedulerMessage(dict);
    } catch (err) {
      this.opts.log?.warn({ from, err: (err as Error).message }, 'ignored a malformed message');
      return;
    }
    const node = this.nodes.get(from);
    if (msg.command === 'CMD_UM_INIT') return this.registration.init(from, node, msg.nodeId);
    if (!node) return this.registration.refuse(from, `${msg.command} before CMD_UM_INIT`);
    node.missed = node.missed > 0 && msg.command === 'CMD_UM_KEEPALIVE_ACK' ? 0 : node.missed;
    switch (msg.command) {
      case 'CMD_UM_KEEPALIVE':
        return this.sendTo(from, { command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
      case 'CMD_UM_KEEPALIVE_ACK':
        return this.nodes.acked(node);
      case 'CMD_UM_DNS_REQUEST':
        return this.dns.request(from, msg.site);
      case 'CMD_UM_URI':
      case 'CMD_UM_URI_URG': {
        const c = this.collections.active(msg.dspecName);
        if (!c) return;
        // priority 1 and URG both mean "front of the queue" (2.2.1, 3.2.5.7)
        this.collections.enqueue(msg.dspecName, c, msg.entry, msg.command === 'CMD_UM_URI_URG' || priority === 1);
        return this.routing.pump();
      }
      case 'CMD_UM_STAT': {
        const c = this.collections.get(msg.dspecName);
        if (c && msg.stats instanceof FswcuDict) {
          addStats(c.stats, node.id, msg.stats);
          // the sums, not the delta: `crawl status` shows the same counts after a restart
          this.store.putStats({ collection: msg.dspecName, node: node.id, counters: Object.fromEntries(c.stats.get(node.id) ?? []) });
          this.progress.report(msg.dspecName, node.id, msg.stats);
        }
        return;
      }
      case 'CMD_UM_LOG':
        this.logLines.push({ node: node.id, file: msg.data.logFile, message: msg.data.message });
        this.opts.log?.info({ node: node.id, file: msg.data.logFile, collection: msg.dspecName }, msg.data.message);
        return;
      case 'CMD_UM_ADD_ROUTE':
        return this.routing.adopt(msg.dspecName, msg.routes);
      case 'CMD_UM_LAST_ROUTE':
        this.routing.lastRoute(msg.dspecName, node.id);
        return this.routing.pump();
      case 'CMD_UM_START_CRAWL_IP': {
        const { ip, site, storeId } = msg.data;
        const allowed = this.ips.start(node.id, ip, site);
        return this.sendTo(from, { command: 'CMD_UM_START_CRAWL_IP', dspecName: msg.dspecName, data: { ip, site, storeId, allowed } }, 1);
      }
      case 'CMD_UM_STOP_CRAWL_IP':
        return this.ips.stop(node.id, msg.data.ip, msg.data.site);
      case 'CMD_UM_CONF_STATE':
        return this.sendTo(from, { command: 'CMD_UM_CONF_STATE', dspecName: msg.dspecName, state: this.collections.stateOf(msg.dspecName) }, 1);
      case 'CMD_UM_DELETE_OK':
        if (this.collections.deleted(msg.dspecName)) {
          this.progress.forget(msg.dspecName);
          this.opts.log?.info({ collection: msg.dspecName, node: node.id }, 'collection removed');
        }
        return;
    }
  }

  /** The answer to a resolve(host) call: addrinfo or null, and its time to live in seconds. */
  dnsResolved(host: string, addrinfo: FscmtAddrinfoResult, ttl = DEFAULT_DNS_TTL_S): void {
    this.dns.resolved(host, addrinfo, ttl);
    this.collections.unpark(host);
    this.routing.pump();
  }

  /** The transport saw the node's connection close (a TCP peer of the gateway): it is dropped at once. */
  peerGone(address: string, reason = 'connection closed'): void {
    this.dropNode(address, reason);
  }

  /**
   * A node scheduler leaves (its connection closed, or it stopped answering): its routes and IP permissions go, and
   * its work comes back to the queue to be routed to live nodes: the entries it never vouched for, and per site it
   * owned the collection's start URIs on that site and the entry the site was first routed with. What it had
   * vouched for, and the links it found on its own sites, were in its memory alone: they are found again by
   * crawling the sites anew from those entries.
   */
  dropNode(address: string, reason = 'dropped'): void {
    const node = this.nodes.remove(address);
    if (!node) return;
    const unconfirmed = node.handed.takeAll();
    const { sites, requeued } = takeOverSites(this.collections, this.store, node.id, unconfirmed);
    this.ips.dropNode(node.id);
    this.opts.log?.warn({ node: node.id, address, reason, sites, requeued, unconfirmed: unconfirmed.length }, 'node scheduler dropped: its sites go to the live nodes');
    if (unconfirmed.length > 0) this.requeue(unconfirmed);
    else this.routing.pump();
  }

  /**
   * Entries handed out whose messages may not have left (the bus could not confirm them): back to the front of the
   * queue under their keys (they are still in the store), to be routed and sent again.
   */
  requeue(items: Array<{ key: number; collection: string; entry: FscmtQueueEntry }>): void {
    this.collections.requeue(items);
    this.routing.pump();
  }

  private sendTo(to: string, message: FscmtNodeSchedulerMessage, priority: FscmtPriority): void {
    this.opts.send(to, buildFscmtNodeSchedulerMessage(message), priority);
  }
}
