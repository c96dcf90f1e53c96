/**
 * The multinode scheduler of MS-FSCMT 3.2 as a state machine: messages from node schedulers in, messages out
 * through `send`, DNS lookups out through `resolve` (answers come back through `dnsResolved`), time from a Clock.
 *
 *   const m = new MultinodeSchedulerMachine({ clock, send, resolve });
 *   m.addCollection('web', dspec);          // CMD_ADM_CONF_ADD to every node; start URIs queued
 *   m.handle(from, dict, priority);         // CMD_UM_INIT first, then anything of 2.2.4
 *
 * Rules kept here: CMD_UM_INIT first on a connection (anything else first, or a node id already registered, is
 * refused: ignored, logged, and reported through `onRefused` so a transport can close the connection); crawl queue
 * entries are routed site by site (a route is made once, sent to every node with CMD_UM_ADD_ROUTE, and the entry
 * goes to the routed node), URG entries to the front; DNS answers are cached for their TTL; START_CRAWL_IP is
 * refused for an IP another node crawls, and for an IP that already has `maxSitesPerIp` sites.
 *
 * Liveness (beyond 3.2.6, which only logs): a node that leaves `maxMissedKeepalives` keep-alive rounds in a row
 * unanswered, or whose connection the transport reports closed (`peerGone`), is dropped: its routes and IP
 * permissions go, the entries it has not vouched for go back to the queue, and so do the start URIs of its sites
 * and the entry each of its sites was first routed with, so that a live node takes the sites over and crawls them
 * from there (what the dead node had queued lived in its memory alone). New sites go to live nodes only. The same
 * node id registering again afterwards (over NATS or a new TCP connection) is a new registration.
 *
 * Every change of what must survive a restart (collections and epochs, queued entries, routes, IP permissions, DNS
 * answers) is written through `store` as it happens; `restore()` takes it back. An entry handed to a node leaves
 * the store only when `onHandedOut` says so (the transport retires it once the message is known to have left).
 */
import {
  buildFscmtNodeSchedulerMessage,
  FSCMT_CONF_STATES,
  FSCMT_URI_FLAGS,
  fscmtParsedUri,
  fscmtUnparsedUri,
  FswcuDict,
  readFscmtMultinodeSchedulerMessage,
  type FscmtAddrinfoResult,
  type FscmtMultinodeSchedulerMessage,
  type FscmtNodeSchedulerMessage,
  type FscmtPriority,
  type FscmtQueueEntry,
} from '@esp/codecs';
import { crawlStartUris, KeepaliveOutbox } from '@esp/crawl-bus';
import type { Logger } from '@esp/logging';
import type { Clock, TimerHandle } from '@esp/timers';
import { BoundedLog } from './bounded-log';
import { NullSchedulerStore, type SchedulerStore, type StoredSchedulerState } from './scheduler-store';

export const DEFAULT_KEEPALIVE_MS = 120_000;
export const DEFAULT_DNS_TTL_S = 3600;
export const MAX_SITES_PER_IP = 10;
/** How long routing of a collection waits for a node's CMD_UM_LAST_ROUTE after asking it for its routes. */
export const ASK_ROUTE_WAIT_MS = 30_000;
/** Keep-alive rounds left unanswered in a row after which a node scheduler counts as dead and is dropped. */
export const DEFAULT_MAX_MISSED_KEEPALIVES = 3;
/** CMD_UM_LOG lines kept for inspection (each is also written to the scheduler's log). */
export const LOG_LINES_KEPT = 1000;

interface Node {
  id: string;
  address: string;
  /** Keep-alive rounds without an answer. */
  missed: number;
  sites: number;
  /** Entries handed to the node that its keep-alive answers do not vouch for yet: they stay in the store meanwhile. */
  handed: KeepaliveOutbox<Handed>;
}

/** An entry handed out to a node scheduler, under its store key. */
interface Handed {
  key: number;
  collection: string;
  entry: FscmtQueueEntry;
}

/** A queue entry with its store key (smaller keys are nearer the front). */
interface Queued {
  key: number;
  entry: FscmtQueueEntry;
}

interface Collection {
  dspec: FswcuDict;
  epoch: number;
  state: number;
  queue: Queued[];
  /** site -> node id */
  routes: Map<string, string>;
  /** Entries waiting for their site's DNS answer before they can be routed. */
  parked: Map<string, Queued[]>;
  removing: boolean;
  /** node id -> counter -> total: the sum of the deltas the node sent (3.1.6: a CMD_UM_STAT carries a delta). */
  stats: Map<string, Map<string, number>>;
  /** site -> the entry that made its route (in memory only): a dead owner's site is crawled again from there. */
  routedBy: Map<string, FscmtQueueEntry>;
  /** Nodes asked for their routes (CMD_UM_ASK_ROUTE) whose CMD_UM_LAST_ROUTE has not come: node id -> deadline. */
  awaitingRoutes: Map<string, number>;
}

interface DnsEntry {
  addrinfo: FscmtAddrinfoResult;
  resolvedAt: number;
  ttl: number;
  expires: number;
}

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
}

export class MultinodeSchedulerMachine {
  private readonly nodes = new Map<string, Node>(); // by address
  private readonly collections = new Map<string, Collection>();
  private readonly dns = new Map<string, DnsEntry>();
  private readonly resolving = new Set<string>();
  /** ip -> { node id, sites } per crawl IP permission. */
  private readonly ips = new Map<string, { node: string; sites: Set<string> }>();
  private keepaliveTimer: TimerHandle | undefined;
  private resendDue = false;
  private readonly store: SchedulerStore;
  /** Next store keys for an entry put in front / at the back of a queue. */
  private frontKey = 0;
  private backKey = 1;
  readonly logLines = new BoundedLog<{ node: string; file: string; message: string }>(LOG_LINES_KEPT);
  /** Set once `minNodes` nodes were registered: routing has begun. */
  private routing = false;
  private busDown = false;

  constructor(private readonly opts: MultinodeSchedulerOptions) {
    this.store = opts.store ?? new NullSchedulerStore();
  }

  /**
   * Takes back what a previous run stored (call before anything else): collections with their epochs and states,
   * queued entries in queue order, routes, IP permissions and DNS answers. Node schedulers register again and are
   * sent the routes; the entries are routed once the nodes are back (and have told their own routes).
   */
  restore(state: StoredSchedulerState): void {
    for (const s of state.collections) {
      this.collections.set(s.name, {
        dspec: s.dspec,
        epoch: s.epoch,
        state: s.state,
        queue: [],
        routes: new Map(),
        parked: new Map(),
        removing: s.removing,
        stats: new Map(),
        routedBy: new Map(),
        awaitingRoutes: new Map(),
      });
    }
    for (const e of state.entries) {
      this.frontKey = Math.min(this.frontKey, e.key - 1);
      this.backKey = Math.max(this.backKey, e.key + 1);
      const c = this.collections.get(e.collection);
      if (c && !c.removing) c.queue.push({ key: e.key, entry: e.entry });
      else this.store.deleteEntry(e.key);
    }
    for (const r of state.routes) this.collections.get(r.collection)?.routes.set(r.site, r.node);
    for (const r of state.ips) {
      const rec = this.ips.get(r.ip);
      if (rec) rec.sites.add(r.site);
      else this.ips.set(r.ip, { node: r.node, sites: new Set([r.site]) });
    }
    for (const d of state.dns) this.dns.set(d.host, { addrinfo: d.addrinfo, resolvedAt: d.resolvedAt, ttl: d.ttl, expires: d.expires });
  }

  start(): void {
    const every = this.opts.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
    const tick = (): void => {
      const reconnected = this.resendDue;
      this.resendDue = false;
      const maxMissed = this.opts.maxMissedKeepalives ?? DEFAULT_MAX_MISSED_KEEPALIVES;
      for (const n of [...this.nodes.values()]) {
        if (n.missed >= maxMissed && !this.busDown) {
          this.dropNode(n.address, `${n.missed} keep-alives unanswered`);
          continue;
        }
        if (n.missed > 0) this.opts.log?.warn({ node: n.id, missed: n.missed }, 'no CMD_UM_KEEPALIVE_ACK since the previous keep-alive');
        // the entries it may not have got: a keep-alive round unanswered, or our own link to NATS was broken (an
        // outage shorter than a round is answered in time, yet what the old nats-server held for the node is gone)
        if (n.missed > 0 || reconnected) this.resendHanded(n);
        n.missed++;
        n.handed.keepaliveSent();
        this.sendTo(n.address, { command: 'CMD_UM_KEEPALIVE' }, 1);
      }
      this.pump(); // also ends route waits that timed out
      this.keepaliveTimer = this.opts.clock.setTimeout(tick, every);
    };
    this.keepaliveTimer = this.opts.clock.setTimeout(tick, every);
  }

  stop(): void {
    if (this.keepaliveTimer) this.opts.clock.clearTimeout(this.keepaliveTimer);
  }

  /**
   * Our NATS connection came back: at the next keep-alive tick every node gets again what it has not vouched for.
   * The rounds missed while we were cut off say nothing about the nodes: they start again from zero.
   */
  busReconnected(): void {
    this.resendDue = true;
    this.busDown = false;
    for (const n of this.nodes.values()) n.missed = 0;
  }

  /** Our NATS connection broke: unanswered keep-alives are our outage, not the nodes', and drop nobody meanwhile. */
  busDisconnected(): void {
    this.busDown = true;
  }

  /** Entries handed out and not yet vouched for by their node, over all nodes (what a NATS outage could have lost). */
  get unconfirmedHandedOut(): number {
    let n = 0;
    for (const node of this.nodes.values()) n += node.handed.size;
    return n;
  }

  private resendHanded(n: Node): void {
    const again = n.handed.resend();
    if (again.length === 0) return;
    for (const h of again) this.sendTo(n.address, { command: 'CMD_UM_URI', dspecName: h.collection, entry: h.entry }, 0);
    this.opts.log?.info({ node: n.id, entries: again.length }, 'sent again the entries the node has not confirmed');
  }

  private handOut(n: Node, h: Handed): void {
    this.sendTo(n.address, { command: 'CMD_UM_URI', dspecName: h.collection, entry: h.entry }, 0);
    const dropped = n.handed.add(h);
    // the bound of the outbox: the oldest entry counts as delivered (what it was before keep-alive confirmation)
    if (dropped) this.retire(dropped);
  }

  /** A node vouched for the entry: it leaves the store (through the transport when it keeps a data directory). */
  private retire(h: Handed): void {
    if (this.opts.onHandedOut) this.opts.onHandedOut(h.key, h.collection, h.entry);
    else this.store.deleteEntry(h.key);
  }

  /** Collections known and not being removed, with their configuration. */
  collectionConfigs(): Map<string, FswcuDict> {
    return new Map([...this.collections].filter(([, c]) => !c.removing).map(([name, c]) => [name, c.dspec]));
  }

  nodeIds(): string[] {
    return [...this.nodes.values()].map((n) => n.id);
  }

  routeOf(collection: string, site: string): string | undefined {
    return this.collections.get(collection)?.routes.get(site);
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
    const out: Record<string, number> = {};
    for (const byNode of this.collections.get(collection)?.stats.values() ?? []) {
      for (const [k, v] of byNode) out[k] = (out[k] ?? 0) + v;
    }
    return out;
  }

  // ---- administration (MS-FSCADM side): configurations to every node scheduler

  addCollection(name: string, dspec: FswcuDict, startUris: string[] = []): void {
    const existing = this.collections.get(name);
    if (existing && !existing.removing) return this.updateCollection(name, dspec);
    const c: Collection = {
      dspec,
      epoch: 1,
      state: FSCMT_CONF_STATES.ACTIVE,
      queue: [],
      routes: new Map(),
      parked: new Map(),
      removing: false,
      stats: new Map(),
      routedBy: new Map(),
      awaitingRoutes: new Map(),
    };
    this.collections.set(name, c);
    this.saveCollection(name, c);
    for (const n of this.nodes.values()) this.sendTo(n.address, { command: 'CMD_ADM_CONF_ADD', dspecName: name, dspec, epoch: c.epoch }, 1);
    for (const uri of startUris) this.enqueue(name, c, startEntry(uri), false);
    this.pump();
  }

  updateCollection(name: string, dspec: FswcuDict): void {
    const c = this.collections.get(name);
    if (!c) return this.addCollection(name, dspec);
    c.dspec = dspec;
    c.epoch++;
    this.saveCollection(name, c);
    for (const n of this.nodes.values()) this.sendTo(n.address, { command: 'CMD_ADM_CONF_UPDATE', dspecName: name, dspec, epoch: c.epoch }, 1);
  }

  /** CMD_ADM_CONF_REMOVE to every node; the state goes when a node answers CMD_UM_DELETE_OK (3.2.5.14). */
  removeCollection(name: string): void {
    const c = this.collections.get(name);
    if (!c) return;
    c.removing = true;
    c.state = FSCMT_CONF_STATES.REMOVING;
    c.queue.length = 0;
    c.parked.clear();
    this.saveCollection(name, c);
    this.store.deleteEntries(name);
    for (const n of this.nodes.values()) this.sendTo(n.address, { command: 'CMD_ADM_CONF_REMOVE', dspecName: name }, 1);
  }

  suspend(name: string, state: number = FSCMT_CONF_STATES.SUSPENDED_BY_USER): void {
    const c = this.collections.get(name);
    if (!c) return;
    c.state = state;
    this.saveCollection(name, c);
    for (const n of this.nodes.values()) this.sendTo(n.address, { command: 'CMD_ADM_CONF_SUSPEND', dspecName: name, state }, 1);
  }

  resume(name: string): void {
    const c = this.collections.get(name);
    if (!c) return;
    c.state = FSCMT_CONF_STATES.ACTIVE;
    this.saveCollection(name, c);
    for (const n of this.nodes.values()) this.sendTo(n.address, { command: 'CMD_ADM_CONF_RESUME', dspecName: name }, 1);
    this.pump();
  }

  /** Sends an administrative message to every node (preempt, delete site / URIs, reprocess, quarantine...). */
  broadcast(message: FscmtNodeSchedulerMessage, priority: FscmtPriority = 1): void {
    for (const n of this.nodes.values()) this.sendTo(n.address, message, priority);
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
    if (msg.command === 'CMD_UM_INIT') return this.init(from, node, msg.nodeId);
    if (!node) return this.refuse(from, `${msg.command} before CMD_UM_INIT`);
    node.missed = node.missed > 0 && msg.command === 'CMD_UM_KEEPALIVE_ACK' ? 0 : node.missed;
    switch (msg.command) {
      case 'CMD_UM_KEEPALIVE':
        return this.sendTo(from, { command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
      case 'CMD_UM_KEEPALIVE_ACK':
        node.missed = 0;
        for (const h of node.handed.ackReceived()) this.retire(h);
        return;
      case 'CMD_UM_DNS_REQUEST':
        return this.dnsRequest(from, msg.site);
      case 'CMD_UM_URI':
      case 'CMD_UM_URI_URG': {
        const c = this.active(msg.dspecName);
        if (!c) return;
        // priority 1 and URG both mean "front of the queue" (2.2.1, 3.2.5.7)
        this.enqueue(msg.dspecName, c, msg.entry, msg.command === 'CMD_UM_URI_URG' || priority === 1);
        return this.pump();
      }
      case 'CMD_UM_STAT': {
        const c = this.collections.get(msg.dspecName);
        if (c && msg.stats instanceof FswcuDict) addStats(c.stats, node.id, msg.stats);
        return;
      }
      case 'CMD_UM_LOG':
        this.logLines.push({ node: node.id, file: msg.data.logFile, message: msg.data.message });
        this.opts.log?.info({ node: node.id, file: msg.data.logFile, collection: msg.dspecName }, msg.data.message);
        return;
      case 'CMD_UM_ADD_ROUTE': {
        // a node tells the routes it crawls by (after CMD_UM_ASK_ROUTE): adopt them unless the site is routed already
        const c = this.collections.get(msg.dspecName);
        if (!c) return;
        for (const r of msg.routes) {
          const existing = c.routes.get(r.routingAttribute);
          if (existing === undefined) {
            c.routes.set(r.routingAttribute, r.nodeId);
            this.store.putRoute(msg.dspecName, r.routingAttribute, r.nodeId);
            const owner = [...this.nodes.values()].find((n) => n.id === r.nodeId);
            if (owner) owner.sites++;
          } else if (existing !== r.nodeId) {
            this.opts.log?.warn({ collection: msg.dspecName, site: r.routingAttribute, claimedBy: r.nodeId, routedTo: existing }, 'conflicting route ignored');
          }
        }
        return;
      }
      case 'CMD_UM_LAST_ROUTE': {
        // 3.2.5.10: the node has told all its routes; routing of the collection resumes
        this.collections.get(msg.dspecName)?.awaitingRoutes.delete(node.id);
        return this.pump();
      }
      case 'CMD_UM_START_CRAWL_IP':
        return this.startCrawlIp(from, node, msg.dspecName, msg.data.ip, msg.data.site, msg.data.storeId);
      case 'CMD_UM_STOP_CRAWL_IP': {
        const rec = this.ips.get(msg.data.ip);
        if (rec && rec.node === node.id) {
          rec.sites.delete(msg.data.site);
          if (rec.sites.size === 0) this.ips.delete(msg.data.ip);
          this.store.deleteIp(msg.data.ip, msg.data.site);
        }
        return;
      }
      case 'CMD_UM_CONF_STATE': {
        const c = this.collections.get(msg.dspecName);
        return this.sendTo(from, { command: 'CMD_UM_CONF_STATE', dspecName: msg.dspecName, state: c?.state ?? FSCMT_CONF_STATES.REMOVING }, 1);
      }
      case 'CMD_UM_DELETE_OK': {
        const c = this.collections.get(msg.dspecName);
        if (c?.removing) {
          this.collections.delete(msg.dspecName);
          this.store.deleteCollection(msg.dspecName);
          this.opts.log?.info({ collection: msg.dspecName, node: node.id }, 'collection removed');
        }
        return;
      }
    }
  }

  /** The answer to a resolve(host) call: addrinfo or null, and its time to live in seconds. */
  dnsResolved(host: string, addrinfo: FscmtAddrinfoResult, ttl = DEFAULT_DNS_TTL_S): void {
    this.resolving.delete(host);
    const now = this.opts.clock.now();
    const entry = { addrinfo, resolvedAt: Math.floor(now / 1000), ttl, expires: now + ttl * 1000 };
    this.dns.set(host, entry);
    this.store.putDns({ host, ...entry });
    for (const [address, waiting] of this.dnsWaiters.get(host) ?? []) {
      for (let i = 0; i < waiting; i++) this.dnsReply(address, host, entry);
    }
    this.dnsWaiters.delete(host);
    for (const [, c] of this.collections) {
      const parked = c.parked.get(host);
      if (!parked) continue;
      c.parked.delete(host);
      c.queue.unshift(...parked);
    }
    this.pump();
  }

  private readonly dnsWaiters = new Map<string, Map<string, number>>();

  private init(from: string, node: Node | undefined, nodeId: string): void {
    // the same node on the same connection registering again (it lost track of us) is taken as a re-registration
    if (node && node.id !== nodeId) return this.refuse(from, `second CMD_UM_INIT on one connection (node ${node.id})`);
    for (const n of this.nodes.values()) if (n.id === nodeId && n.address !== from) return this.refuse(from, `node id ${nodeId} is already registered`);
    // its sites: the routes it holds already (restored from the store, or kept from before)
    const sites = [...this.collections.values()].reduce((n, c) => n + [...c.routes.values()].filter((owner) => owner === nodeId).length, 0);
    if (!node) this.nodes.set(from, { id: nodeId, address: from, missed: 0, sites, handed: new KeepaliveOutbox<Handed>() });
    this.opts.log?.info({ node: nodeId, address: from, again: node !== undefined }, 'node scheduler registered');
    // registering again means it lost track of us: what it had not vouched for may be lost too
    if (node) {
      node.missed = 0;
      this.resendHanded(node);
    }
    for (const [name, c] of this.collections) {
      if (c.removing) continue;
      this.sendTo(from, { command: 'CMD_ADM_CONF_ADD', dspecName: name, dspec: c.dspec, epoch: c.epoch }, 1);
      // the new node learns every route made so far...
      for (const [site, owner] of c.routes) this.sendRoute(from, name, owner, site);
      // ...and tells the ones it already crawls by (a node that outlived a restart of this scheduler has some);
      // routing of the collection waits for its CMD_UM_LAST_ROUTE so that no site gets a second node
      this.sendTo(from, { command: 'CMD_UM_ASK_ROUTE', dspecName: name }, 1);
      c.awaitingRoutes.set(nodeId, this.opts.clock.now() + ASK_ROUTE_WAIT_MS);
    }
    this.pump();
  }

  /** The transport saw the node's connection close (a TCP peer of the gateway): it is dropped at once. */
  peerGone(address: string, reason = 'connection closed'): void {
    this.dropNode(address, reason);
  }

  private refuse(from: string, reason: string): void {
    this.opts.log?.warn({ from, reason }, 'refused a node scheduler connection');
    this.opts.onRefused?.(from, reason);
  }

  /**
   * A node scheduler leaves (its connection closed, or it stopped answering): its routes and IP permissions go, and
   * its work comes back to the queue to be routed to live nodes: the entries it never vouched for, and per site it
   * owned the collection's start URIs on that site and the entry the site was first routed with. What it had
   * vouched for, and the links it found on its own sites, were in its memory alone: they are found again by
   * crawling the sites anew from those entries.
   */
  dropNode(address: string, reason = 'dropped'): void {
    const node = this.nodes.get(address);
    if (!node) return;
    this.nodes.delete(address);
    const unconfirmed = node.handed.takeAll();
    let sites = 0;
    let requeued = 0;
    for (const [name, c] of this.collections) {
      c.awaitingRoutes.delete(node.id);
      const lost = new Set<string>();
      for (const [site, owner] of c.routes) {
        if (owner !== node.id) continue;
        c.routes.delete(site);
        this.store.deleteRoute(name, site);
        lost.add(site);
      }
      sites += lost.size;
      if (c.removing || lost.size === 0) continue;
      // the requeued entries go to the front (the site was being crawled), each URI once, and none the node had
      // not vouched for (those come back below anyway)
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
      for (const e of [...again.values()].reverse()) this.enqueue(name, c, e, true);
      requeued += again.size;
    }
    for (const [ip, rec] of this.ips) {
      if (rec.node !== node.id) continue;
      this.ips.delete(ip);
      this.store.deleteIp(ip);
    }
    this.opts.log?.warn({ node: node.id, address, reason, sites, requeued, unconfirmed: unconfirmed.length }, 'node scheduler dropped: its sites go to the live nodes');
    if (unconfirmed.length > 0) this.requeue(unconfirmed);
    else this.pump();
  }

  private active(name: string): Collection | undefined {
    const c = this.collections.get(name);
    if (!c || c.removing) return undefined;
    return c;
  }

  private dnsRequest(from: string, host: string): void {
    const cached = this.dns.get(host);
    if (cached && cached.expires > this.opts.clock.now()) return this.dnsReply(from, host, cached);
    const waiters = this.dnsWaiters.get(host) ?? new Map<string, number>();
    waiters.set(from, (waiters.get(from) ?? 0) + 1);
    this.dnsWaiters.set(host, waiters);
    this.lookup(host);
  }

  private lookup(host: string): void {
    if (this.resolving.has(host)) return;
    this.resolving.add(host);
    this.opts.resolve(host);
  }

  private dnsReply(to: string, host: string, e: DnsEntry): void {
    this.sendTo(to, { command: 'CMD_UM_DNS_REPLY', dspecName: '', data: { hostname: host, addrinfo: e.addrinfo, resolvedAt: e.resolvedAt, ttl: e.ttl } }, 1);
  }

  private startCrawlIp(from: string, node: Node, collection: string, ip: string, site: string, storeId: number): void {
    const rec = this.ips.get(ip);
    const max = this.opts.maxSitesPerIp ?? MAX_SITES_PER_IP;
    let allowed: boolean;
    if (!rec) {
      this.ips.set(ip, { node: node.id, sites: new Set([site]) });
      this.store.putIp(ip, node.id, site);
      allowed = true;
    } else if (rec.node !== node.id) allowed = false;
    else if (rec.sites.has(site) || rec.sites.size < max) {
      if (!rec.sites.has(site)) this.store.putIp(ip, node.id, site);
      rec.sites.add(site);
      allowed = true;
    } else allowed = false;
    if (!allowed) this.opts.log?.info({ node: node.id, ip, site, owner: rec?.node }, 'crawl of an IP refused');
    this.sendTo(from, { command: 'CMD_UM_START_CRAWL_IP', dspecName: collection, data: { ip, site, storeId, allowed } }, 1);
  }

  /** Routes and hands out queued entries while there are node schedulers to take them (3.2.5.5). */
  private pump(): void {
    if (this.nodes.size === 0) return;
    if (!this.routing && this.nodes.size < (this.opts.minNodes ?? 1)) return;
    this.routing = true;
    const now = this.opts.clock.now();
    for (const [name, c] of this.collections) {
      if (c.removing || c.state !== FSCMT_CONF_STATES.ACTIVE) continue;
      for (const [id, deadline] of c.awaitingRoutes) {
        if (deadline > now) continue;
        c.awaitingRoutes.delete(id);
        this.opts.log?.warn({ collection: name, node: id }, 'no CMD_UM_LAST_ROUTE in time: routing resumes without it');
      }
      if (c.awaitingRoutes.size > 0) continue;
      while (c.queue.length > 0) {
        const queued = c.queue.shift() as Queued;
        const entry = queued.entry;
        const site = siteOf(entry);
        if (site === undefined) {
          this.opts.log?.warn({ collection: name, uri: entry.uri.uri }, 'dropped a crawl queue entry without a host');
          this.store.deleteEntry(queued.key);
          continue;
        }
        let owner = c.routes.get(site.site);
        if (owner === undefined) {
          const dns = this.dns.get(site.host);
          if (!dns || dns.expires <= this.opts.clock.now()) {
            const parked = c.parked.get(site.host) ?? [];
            parked.push(queued);
            c.parked.set(site.host, parked);
            this.lookup(site.host);
            continue;
          }
          owner = this.pickNode().id;
          c.routes.set(site.site, owner);
          c.routedBy.set(site.site, entry);
          this.store.putRoute(name, site.site, owner);
          for (const n of this.nodes.values()) {
            if (n.id === owner) n.sites++;
            this.sendRoute(n.address, name, owner, site.site);
          }
        }
        const to = [...this.nodes.values()].find((n) => n.id === owner);
        if (!to) {
          c.routes.delete(site.site);
          this.store.deleteRoute(name, site.site);
          c.queue.unshift(queued);
          continue;
        }
        this.handOut(to, { key: queued.key, collection: name, entry });
      }
    }
  }

  /**
   * Entries handed out whose messages may not have left (the bus could not confirm them): back to the front of the
   * queue under their keys (they are still in the store), to be routed and sent again.
   */
  requeue(items: Array<{ key: number; collection: string; entry: FscmtQueueEntry }>): void {
    for (const it of [...items].reverse()) {
      const c = this.active(it.collection);
      if (c) c.queue.unshift({ key: it.key, entry: it.entry });
      else this.store.deleteEntry(it.key);
    }
    this.pump();
  }

  private enqueue(name: string, c: Collection, entry: FscmtQueueEntry, front: boolean): void {
    const queued = { key: front ? this.frontKey-- : this.backKey++, entry };
    if (front) c.queue.unshift(queued);
    else c.queue.push(queued);
    this.store.putEntry({ key: queued.key, collection: name, entry });
  }

  private saveCollection(name: string, c: Collection): void {
    this.store.putCollection({ name, dspec: c.dspec, epoch: c.epoch, state: c.state, removing: c.removing });
  }

  private sendRoute(to: string, collection: string, owner: string, site: string): void {
    const host = hostOfSite(site);
    const dns = this.dns.get(host);
    const ttl = dns ? Math.max(0, Math.round((dns.expires - this.opts.clock.now()) / 1000)) : 0;
    this.sendTo(to, { command: 'CMD_UM_ADD_ROUTE', dspecName: collection, route: { nodeId: owner, routingAttribute: site, site, addrinfo: dns?.addrinfo ?? null, ttl } }, 1);
  }

  /**
   * The least-loaded node, among those that answered the previous keep-alive round when there are any (`missed` is 1
   * between a keep-alive and its answer): a node going quiet gets no new site while it may be dying.
   */
  private pickNode(): Node {
    let best: Node | undefined;
    const answering = (n: Node): boolean => n.missed <= 1;
    for (const n of this.nodes.values()) {
      if (!best || (answering(n) && !answering(best)) || (answering(n) === answering(best) && n.sites < best.sites)) best = n;
    }
    return best as Node;
  }

  private sendTo(to: string, message: FscmtNodeSchedulerMessage, priority: FscmtPriority): void {
    this.opts.send(to, buildFscmtNodeSchedulerMessage(message), priority);
  }
}

function startEntry(uri: string): FscmtQueueEntry {
  return {
    uri: fscmtParsedUri(uri),
    referrer: fscmtUnparsedUri(''),
    uriFlags: FSCMT_URI_FLAGS.URIF_STARTURI,
    frameFlags: 0,
    redirects: [],
    queueFlags: 0,
    refreshCycle: 0,
    extra: new FswcuDict(),
  };
}

/** The crawl site of an entry: host[:port] as in the URI (the routing unit), and the host to resolve. */
export function siteOf(entry: FscmtQueueEntry): { site: string; host: string } | undefined {
  try {
    const u = new URL(entry.uri.uri);
    if (!u.hostname) return undefined;
    return { site: u.host.toLowerCase(), host: u.hostname.toLowerCase() };
  } catch {
    return undefined;
  }
}

/** Adds a CMD_UM_STAT delta to the node's totals (numbers only; anything else in the dict is not a counter). */
function addStats(stats: Map<string, Map<string, number>>, nodeId: string, delta: FswcuDict): void {
  const totals = stats.get(nodeId) ?? new Map<string, number>();
  stats.set(nodeId, totals);
  for (const [k, v] of delta.entries) {
    const key = k instanceof Uint8Array ? new TextDecoder().decode(k) : typeof k === 'string' ? k : undefined;
    const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined;
    if (key === undefined || n === undefined) continue;
    totals.set(key, (totals.get(key) ?? 0) + n);
  }
}

function hostOfSite(site: string): string {
  const i = site.lastIndexOf(':');
  return i > 0 && !site.endsWith(']') ? site.slice(0, i) : site;
}
