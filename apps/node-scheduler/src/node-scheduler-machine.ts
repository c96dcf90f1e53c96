/**
 * The node scheduler of MS-FSCMT 3.1 as a state machine: messages from the multinode scheduler in, messages out
 * through `send`, and a crawl queue per site that the crawler (crawler.ts, the I/O edge) takes work from with
 * `nextFetch()` and reports back to with `fetched()`. Time from a Clock.
 *
 *   const m = new NodeSchedulerMachine({ nodeId: 'n1', mns, clock, send, ipKey: 'ip' });
 *   m.start();                               // CMD_UM_INIT, keep-alive, quarantine and statistics timers
 *   m.handle(from, dict, priority);           // CMD_ADM_CONF_ADD, CMD_UM_ADD_ROUTE, CMD_UM_URI, ...
 *   const work = m.nextFetch();               // { collection, site, entry } when a site may be fetched now
 *
 * A site is crawled only after CMD_UM_START_CRAWL_IP allowed its IP (asked once per site, with the IP from the
 * route's addrinfo or a CMD_UM_DNS_REQUEST); a refusal blocks the site for 30 minutes and puts its entries back at
 * the front. One request at a time per site, `delay` apart. Links to sites not routed to this node go to the
 * multinode scheduler; a site whose queue ran dry is released with CMD_UM_STOP_CRAWL_IP. A refresh (the command or
 * the collection's `refresh` interval) starts a crawl round: the known pages are fetched again (machine/recrawl.ts).
 *
 * What must survive a restart is written through `store` as it changes (store/node-store.ts): an entry is recorded
 * as queued when it joins a queue, and done only once its fetch's outcome is handled (a fed page's once its feed is
 * acknowledged, with `feedAcks`); `restore()` takes it back (machine/node-restore.ts).
 */
import {
  readFscmtNodeSchedulerMessage,
  type FscmtNodeSchedulerMessage,
  type FscmtPriority,
  type FscmtQueueEntry,
  type FswcuDict,
} from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Clock, TimerHandle } from '@esp/timers';
import { CollectionCommands } from './machine/collection-commands';
import { CollectionTable } from './machine/collection-table';
import { CrawlQueue } from './machine/crawl-queue';
import { PROGRESS_KEY, takeProgress, takeStatsDelta, type CrawlStats } from './machine/crawl-stats';
import type { Fetch, FetchOutcome } from './machine/fetch';
import { FetchReports } from './machine/fetch-reports';
import { FetchTurns } from './machine/fetch-turns';
import { MnsLink } from './machine/mns-link';
import { NodeRestore, type RestoreSummary } from './machine/node-restore';
import { Recrawl } from './machine/recrawl';
import { RouteTable } from './machine/route-table';
import { SiteCommands } from './machine/site-commands';
import { SitePermissions } from './machine/site-permissions';
import { siteOf } from './machine/sites';
import type { NodeStore, StoredNodeState } from './store/node-store';
import { NullNodeStore } from './store/null-node-store';

export type { CrawlStats } from './machine/crawl-stats';
export type { Fetch, FetchOutcome, PageFate } from './machine/fetch';
export { MAX_CRAWL_DELAY_MS } from './machine/fetch-turns';
export { entryFor } from './machine/queue-entries';
export { BLOCK_MS } from './machine/site-permissions';
export type { RestoreSummary } from './machine/node-restore';

export const QUARANTINE_TICK_MS = 5_000;
export const DEFAULT_KEEPALIVE_MS = 120_000;
export const DEFAULT_STATS_MS = 60_000;
/** How often the collections' `refresh` intervals are looked at. */
export const REFRESH_TICK_MS = 1_000;

export interface NodeSchedulerEvents {
  /** A collection was added / updated: the duplicate server gets its configuration. */
  onConfig?: (collection: string, dspec: FswcuDict) => void;
  /** A collection is being removed: PPDUP_CONF_REMOVE first, then the local state, then PPDUP_CONF_REMOVE2. */
  onRemove?: (collection: string, uris: string[]) => Promise<void> | void;
  /** Delete these URIs from the index (delete site / URIs; `site` when the whole site is deleted). */
  onDelete?: (collection: string, uris: string[], site?: string) => void;
  onReprocess?: (collection: string, uris: string[]) => void;
  /** A crawl round began (CMD_ADM_CONF_REFRESH or the `refresh` interval): the known pages are queued again. */
  onRound?: (collection: string) => void;
  onFeedingSuspend?: (collection: string, suspended: boolean) => void;
  /** Work may be available (the crawler wakes up). */
  onWork?: () => void;
  /** Documents of the collection in the feeding chain without their final outcome (counted in the progress). */
  feedsInFlight?: (collection: string) => number;
}

export interface NodeSchedulerMachineOptions {
  nodeId: string;
  /** The multinode scheduler's address. */
  mns: string;
  clock: Clock;
  send: (to: string, dict: FswcuDict, priority: FscmtPriority) => void;
  /** 'ip' (the spec): crawl permission per IP. 'ip-port': per IP and port, for several sites on one loopback IP. */
  ipKey?: 'ip' | 'ip-port';
  log?: Logger;
  keepaliveMs?: number;
  statsMs?: number;
  xmlrpc?: { host: string; port: number };
  /** Where what must survive a restart is written (default: nowhere). */
  store?: NodeStore;
  /** A fed page is recorded done only when `feedDone` says its feed was acknowledged (else when it was handed over). */
  feedAcks?: boolean;
}

/** Composes the parts under ./machine: each owns its state; this class dispatches messages and crawler calls to them. */
export class NodeSchedulerMachine {
  private readonly mns: MnsLink;
  private readonly collections: CollectionTable;
  private readonly routes: RouteTable;
  private readonly permissions: SitePermissions;
  private readonly queue: CrawlQueue;
  private readonly turns: FetchTurns;
  private readonly reports: FetchReports;
  private readonly siteCommands: SiteCommands;
  private readonly collectionCommands: CollectionCommands;
  private readonly restorer: NodeRestore;
  private readonly store: NodeStore;
  private readonly recrawl: Recrawl;
  private readonly timers: TimerHandle[] = [];

  /** Empty until `connect`: the parts that act on the events are built after the machine, since they use it. */
  private events: NodeSchedulerEvents = {};
  private started = false;

  constructor(private readonly opts: NodeSchedulerMachineOptions) {
    const { clock, log, nodeId } = opts;
    const store = (this.store = opts.store ?? new NullNodeStore());
    // the events are read when they fire: `connect` sets them after the parts are built
    const work = (): void => this.events.onWork?.();
    const mns = (this.mns = new MnsLink({ nodeId, mns: opts.mns, send: opts.send, xmlrpc: opts.xmlrpc, resendRequests: () => this.permissions.resendPending(), store, log }));
    const collections = (this.collections = new CollectionTable({ mns, onConfig: (name, dspec) => this.events.onConfig?.(name, dspec), now: () => clock.now(), store, log }));
    const routes = (this.routes = new RouteTable(clock));
    const permissions = (this.permissions = new SitePermissions({ clock, mns, routes, collections, ipKey: opts.ipKey, work, log }));
    const queue = (this.queue = new CrawlQueue({ nodeId, collections, routes, mns, permissions, work, log }));
    const turns = (this.turns = new FetchTurns({ clock, collections, permissions, work }));
    const onDelete = (collection: string, uris: string[], site?: string): void => {
      store.unfed(collection, uris);
      this.events.onDelete?.(collection, uris, site);
    };
    this.reports = new FetchReports({ clock, collections, queue, turns, permissions, onDelete, work, log });
    const recrawl = (this.recrawl = new Recrawl({ nodeId, clock, collections, queue, routes, onRound: (name) => this.events.onRound?.(name), onDelete, log }));
    this.restorer = new NodeRestore({ nodeId, collections, routes, mns, permissions, log });
    this.collectionCommands = new CollectionCommands({
      collections,
      queue,
      permissions,
      routes,
      mns,
      work,
      onFeedingSuspend: (collection, suspended) => this.events.onFeedingSuspend?.(collection, suspended),
      onRemove: (collection, uris) => this.events.onRemove?.(collection, uris),
      refresh: (collection, mask, subcollection) => recrawl.refresh(collection, mask, subcollection),
      log,
    });
    this.siteCommands = new SiteCommands({
      clock,
      collections,
      permissions,
      onDelete,
      onReprocess: (collection, uris) => this.events.onReprocess?.(collection, uris),
    });
  }

  /** Gives the machine the parts that act on its events; once, before `start`. */
  connect(events: NodeSchedulerEvents): void {
    if (this.started) throw new Error('connect the node scheduler machine before starting it');
    this.events = events;
  }

  /** Takes back what the store kept (after `connect`, before `start`). */
  restore(state: StoredNodeState): RestoreSummary {
    if (this.started) throw new Error('restore the node scheduler machine before starting it');
    return this.restorer.restore(state);
  }

  start(): void {
    this.started = true;
    this.mns.init();
    this.restorer.registered();
    this.every(this.opts.keepaliveMs ?? DEFAULT_KEEPALIVE_MS, () => this.mns.keepaliveRound());
    this.every(QUARANTINE_TICK_MS, () => this.quarantineTimeout());
    this.every(REFRESH_TICK_MS, () => this.recrawl.due());
    this.every(this.opts.statsMs ?? DEFAULT_STATS_MS, () => this.statistics());
  }

  /**
   * The NATS connection came back after a disconnect: at the next keep-alive tick send again what the multinode
   * scheduler may have missed (if it is not back yet either, that keep-alive goes unanswered and the round after
   * sends again, registering anew).
   */
  busReconnected(): void {
    this.mns.busReconnected();
  }

  stop(): void {
    for (const t of this.timers) this.opts.clock.clearTimeout(t);
  }

  collectionNames(): string[] {
    return this.collections.names();
  }

  stats(collection: string): CrawlStats | undefined {
    return this.collections.get(collection)?.stats;
  }

  /** Sites with work queued or in flight, and whether any is still waiting for something. */
  get idle(): boolean {
    return this.collections.idle;
  }

  handle(from: string | undefined, dict: FswcuDict, priority: FscmtPriority = 0): void {
    let msg: FscmtNodeSchedulerMessage;
    try {
      msg = readFscmtNodeSchedulerMessage(dict);
    } catch (err) {
      this.opts.log?.warn({ from, err: (err as Error).message }, 'ignored a malformed message');
      return;
    }
    if (from !== this.opts.mns) {
      this.opts.log?.debug({ from, command: msg.command }, 'ignored a message that is not from the multinode scheduler');
      return;
    }
    switch (msg.command) {
      case 'CMD_UM_KEEPALIVE':
        return this.mns.send({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
      case 'CMD_UM_KEEPALIVE_ACK':
        return this.mns.acked();
      case 'CMD_ADM_CONF_ADD':
      case 'CMD_ADM_CONF_UPDATE':
      case 'CMD_ADM_CONF_REMOVE':
        if (msg.command === 'CMD_ADM_CONF_REMOVE' && this.collections.has(msg.dspecName)) this.store.deleteCollection(msg.dspecName);
        return this.collectionCommands.handle(msg);
      case 'CMD_ADM_CONF_SUSPEND':
      case 'CMD_UM_CONF_STATE':
      case 'CMD_ADM_CONF_RESUME':
      case 'CMD_ADM_CONF_FEEDING_SUSPEND':
      case 'CMD_ADM_CONF_REFRESH':
        return this.collectionCommands.handle(msg);
      case 'CMD_UM_ADD_ROUTE': {
        const r = msg.route;
        const before = this.routes.add(msg.dspecName, r);
        if (this.collections.has(msg.dspecName)) this.store.putRoute({ collection: msg.dspecName, site: r.site, node: r.nodeId });
        if (before !== undefined && before !== r.nodeId) this.queue.routeMoved(msg.dspecName, r.site, before, r.nodeId);
        this.routes.learnFromRoute(r.site, r.addrinfo, r.ttl);
        return;
      }
      case 'CMD_UM_ASK_ROUTE':
        for (const routes of this.routes.batches(msg.dspecName)) this.mns.send({ command: 'CMD_UM_ADD_ROUTE', dspecName: msg.dspecName, routes });
        this.mns.send({ command: 'CMD_UM_LAST_ROUTE', dspecName: msg.dspecName });
        return this.restorer.routesKnown(msg.dspecName);
      case 'CMD_UM_URI':
      case 'CMD_UM_URI_URG':
        return this.queue.enqueue(msg.dspecName, msg.entry, msg.command === 'CMD_UM_URI_URG' || priority === 1);
      case 'CMD_UM_DNS_REPLY':
        this.routes.learnFromReply(msg.data.hostname, msg.data.addrinfo, msg.data.ttl);
        return this.permissions.resolved(msg.data.hostname);
      case 'CMD_UM_START_CRAWL_IP': {
        const c = this.collections.get(msg.dspecName);
        const s = c?.sites.get(msg.data.site);
        if (c && s) this.permissions.grant(c, s, msg.data.allowed);
        return;
      }
      case 'CMD_ADM_PREEMPT_SITE':
      case 'CMD_UM_QUARANTINE_SITE':
      case 'CMD_UM_QUARANTINE_SITE_REQUEUE':
      case 'CMD_UM_DELETE_SITE':
      case 'CMD_UM_DELETE_URIS':
      case 'CMD_UM_REPROCESS_SITE':
        return this.siteCommands.handle(msg);
      default:
        // PPDUP_* answers travel between the duplicate server and its client, not through here
        return;
    }
  }

  // ---- the crawler's side (crawler.ts): work out, reports back

  /** A queue entry for this node (from the multinode scheduler, or a link found here), its URI normalised. */
  enqueue(collection: string, entry: FscmtQueueEntry, front = false): void {
    this.queue.enqueue(collection, entry, front);
  }

  /** The next fetch allowed now, or undefined; `nextWakeMs` says when to look again. */
  nextFetch(): Fetch | undefined {
    const f = this.turns.nextFetch();
    if (f) this.store.taken(f.collection, f.entry.uri.uri);
    return f;
  }

  /** Milliseconds until some site becomes fetchable (politeness, blocks, quarantine), or undefined. */
  nextWakeMs(): number | undefined {
    return this.turns.nextWakeMs();
  }

  /** The request to the site is over (the body is read): see FetchTurns.requestDone. Optional: fetched() implies it. */
  requestDone(f: Fetch): void {
    this.turns.requestDone(f);
  }

  /** The site's robots.txt asks for this many milliseconds between requests (Crawl-delay), MAX_CRAWL_DELAY_MS at most. */
  crawlDelay(f: Fetch, ms: number): void {
    this.turns.crawlDelay(f, ms);
  }

  /** Links of a page just read, queued or sent on before the page's duplicate check and feeding (already normalised). */
  linksFound(f: Fetch, links: string[]): void {
    this.reports.linksFound(f, links);
  }

  /** The crawler reads the site's sitemaps: the site is not released meanwhile. */
  sitemapsStarted(f: Fetch): void {
    this.reports.sitemapsStarted(f);
  }

  /** The site's sitemaps listed these URIs: start URIs of the crawl (depth 0), queued or routed as links are. */
  sitemapsRead(f: Fetch, referrer: string, uris: string[]): void {
    this.reports.sitemapsRead(f, referrer, uris);
  }

  /** The crawler reports a fetch: links are queued here or sent to the multinode scheduler. */
  fetched(f: Fetch, outcome: FetchOutcome): void {
    this.reports.fetched(f, outcome);
    if (!this.collections.has(f.collection)) return;
    // put off: back in front; fed, with acknowledgements: done when feedDone says so
    if (outcome.kind === 'deferred') return this.store.queued(f.collection, f.site, f.entry, true);
    const fed = outcome.kind === 'page' && outcome.fate === 'fed';
    if (!fed || !this.opts.feedAcks) this.store.done(f.collection, f.site, f.entry.uri.uri, fed, f.depth);
  }

  /** The feeding chain acknowledged a fed page (its final outcome, completed or failed): it is done. */
  feedDone(collection: string, uri: string): void {
    const where = siteOf(uri);
    const c = this.collections.get(collection);
    if (this.opts.feedAcks && where && c) this.store.done(collection, where.site, uri, true, c.known.get(uri) ?? 0);
  }

  /** The feeding chain failed a document of the collection after it was fed (the feeding client's outcome). */
  feedFailed(collection: string): void {
    this.reports.feedFailed(collection);
  }

  /** Recrawl these URIs at the front of their sites' queues (promote requests 3.1.5.25, reprocess 3.1.5.14). */
  promote(collection: string, uris: string[]): void {
    this.queue.promote(collection, uris);
  }

  private quarantineTimeout(): void {
    this.collections.endQuarantines(this.opts.clock.now());
    this.events.onWork?.();
  }

  /**
   * 3.1.6: each CMD_UM_STAT carries the counters' change since the previous one, not the totals; beside them (under
   * PROGRESS_KEY) what is queued and in flight now, which tells the multinode scheduler when the crawl is done.
   */
  private statistics(): void {
    for (const c of this.collections.values()) {
      const stats = takeStatsDelta(c);
      stats.entries.push([new TextEncoder().encode(PROGRESS_KEY), takeProgress(c, this.events.feedsInFlight?.(c.name) ?? 0, this.opts.clock.now())]);
      this.mns.send({ command: 'CMD_UM_STAT', dspecName: c.name, stats });
    }
  }

  private every(ms: number, fn: () => void): void {
    const i = this.timers.length;
    const tick = (): void => {
      fn();
      this.timers[i] = this.opts.clock.setTimeout(tick, ms);
    };
    this.timers.push(this.opts.clock.setTimeout(tick, ms));
  }
}
