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
 * multinode scheduler; a site whose queue ran dry is released with CMD_UM_STOP_CRAWL_IP.
 */
import {
  buildFscmtMultinodeSchedulerMessage,
  FSCMT_CONF_STATES,
  FSCMT_URI_FLAGS,
  fscmtParsedUri,
  fscmtUnparsedUri,
  FswcuDict,
  readFscmtNodeSchedulerMessage,
  type FscmtAddrinfoResult,
  type FscmtMultinodeSchedulerMessage,
  type FscmtNodeSchedulerMessage,
  type FscmtPriority,
  type FscmtQueueEntry,
  type FscmtRedirect,
} from '@esp/codecs';
import { crawlStartUris, KeepaliveOutbox } from '@esp/crawl-bus';
import type { Logger } from '@esp/logging';
import type { Clock, TimerHandle } from '@esp/timers';
import { crawlSettings, uriAllowed, type CrawlSettings } from './crawl-settings';
import { normalizeUri } from './url-normalize';

export const BLOCK_MS = 30 * 60_000;
export const QUARANTINE_TICK_MS = 5_000;
export const DEFAULT_KEEPALIVE_MS = 120_000;
export const DEFAULT_STATS_MS = 60_000;
export const MAX_CRAWL_DELAY_MS = 120_000;

type SiteState = 'new' | 'resolving' | 'asking' | 'active' | 'blocked';

interface Site {
  site: string;
  host: string;
  port: number;
  queue: FscmtQueueEntry[];
  state: SiteState;
  ip: string | undefined;
  blockedUntil: number;
  nextAt: number;
  /** A request to the site is in flight. */
  busy: boolean;
  /** Fetched pages whose processing (duplicate check, feeding, links) has not been reported yet. */
  processing: number;
  docs: number;
  /** URIs fetched and fed, for delete site / URIs. */
  fetched: Set<string>;
  /** robots.txt's Crawl-delay, when it asks for more than the configured delay (0: none) */
  crawlDelayMs: number;
}

interface Collection {
  name: string;
  dspec: FswcuDict;
  settings: CrawlSettings;
  epoch: number;
  state: number;
  feedingSuspended: boolean;
  sites: Map<string, Site>;
  /** Every URI ever queued here (each is fetched once). */
  seen: Set<string>;
  /**
   * Links handed to the multinode scheduler (each is sent once), by site, with their depth: when a site's route
   * moves to another node (its owner was dropped), they go to the new owner, for they may have died with the old one.
   */
  forwarded: Map<string, Map<string, number>>;
  quarantine: Map<string, number>;
  /** Totals since the collection was added (what this node logs). */
  stats: CrawlStats;
  /** The totals at the previous Statistics Timeout: CMD_UM_STAT carries the difference (3.1.6). */
  statsSent: CrawlStats;
}

/**
 * A collection's counters (sent in CMD_UM_STAT). Every 2xx answer read is `fetched`, and is then exactly one of
 * `fed` (handed to the feeding client), `duplicates` (another URI owns its content), `unfed` (owned, but feeding is
 * off or suspended), `excluded_type` (not a type the pipeline indexes), `excluded_size` (over the body bound) or
 * `noindex` (the page says noindex: meta robots or X-Robots-Tag).
 * `excluded` counts URIs never fetched (robots.txt, include / exclude rules). `feed_failed` counts documents the
 * feeding chain took and then failed (a processing error, document_too_large...): the feeding client's outcomes.
 */
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
}

const noStats = (): CrawlStats => ({ fetched: 0, fed: 0, duplicates: 0, unfed: 0, excluded_type: 0, excluded_size: 0, noindex: 0, excluded: 0, errors: 0, redirects: 0, feed_failed: 0 });

export interface Fetch {
  collection: string;
  site: string;
  entry: FscmtQueueEntry;
  depth: number;
  settings: CrawlSettings;
}

/** What became of a page read: handed to the feeding client, owned by another URI, or owned and not fed. */
export type PageFate = 'fed' | 'duplicate' | 'unfed';

export type FetchOutcome =
  | { kind: 'page'; links: string[]; fate: PageFate }
  /** read, but not a type the pipeline indexes (the reason says which and why) */
  | { kind: 'not_indexable'; reason: string }
  /** the body (decompressed) is over the crawler's bound */
  | { kind: 'too_large'; maxBytes: number }
  /** read, its links followed (unless nofollow), not fed: the page asks not to be indexed */
  | { kind: 'noindex' }
  | { kind: 'redirect'; location: string; status: number }
  | { kind: 'excluded' }
  /** not fetched yet (robots.txt unreachable): back to the front of the site's queue, the site paused `retryInMs` */
  | { kind: 'deferred'; retryInMs: number }
  | { kind: 'error'; reason: string };

export interface NodeSchedulerEvents {
  /** A collection was added / updated: the duplicate server gets its configuration. */
  onConfig?: (collection: string, dspec: FswcuDict) => void;
  /** A collection is being removed: PPDUP_CONF_REMOVE first, then the local state, then PPDUP_CONF_REMOVE2. */
  onRemove?: (collection: string, uris: string[]) => Promise<void> | void;
  /** Delete these URIs from the index (delete site / URIs). */
  onDelete?: (collection: string, uris: string[]) => void;
  onReprocess?: (collection: string, uris: string[]) => void;
  onFeedingSuspend?: (collection: string, suspended: boolean) => void;
  /** Work may be available (the crawler wakes up). */
  onWork?: () => void;
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
}

export class NodeSchedulerMachine {
  private readonly collections = new Map<string, Collection>();
  /** collection -> site -> { node, addrinfo, expires } */
  private readonly routes = new Map<string, Map<string, { nodeId: string; addrinfo: FscmtAddrinfoResult; expires: number }>>();
  private readonly dns = new Map<string, { ips: string[]; expires: number }>();
  private readonly timers: TimerHandle[] = [];
  private mnsMissed = 0;
  /** The bus reconnected since the last keep-alive tick: what was in the dead server's buffers is gone. */
  private resendDue = false;
  /** Links forwarded to the multinode scheduler that it has not vouched for (sent again on registering anew). */
  private readonly outbox = new KeepaliveOutbox<{ collection: string; entry: FscmtQueueEntry }>();

  /** Empty until `connect`: the parts that act on the events are built after the machine, since they use it. */
  private events: NodeSchedulerEvents = {};
  private started = false;

  constructor(private readonly opts: NodeSchedulerMachineOptions) {}

  /** Gives the machine the parts that act on its events; once, before `start`. */
  connect(events: NodeSchedulerEvents): void {
    if (this.started) throw new Error('connect the node scheduler machine before starting it');
    this.events = events;
  }

  start(): void {
    this.started = true;
    this.toMns({ command: 'CMD_UM_INIT', nodeId: this.opts.nodeId, xmlrpc: this.opts.xmlrpc ?? { host: '127.0.0.1', port: 0 } });
    this.every(this.opts.keepaliveMs ?? DEFAULT_KEEPALIVE_MS, () => {
      if (this.mnsMissed > 0) this.opts.log?.warn({ missed: this.mnsMissed }, 'no CMD_UM_KEEPALIVE_ACK from the multinode scheduler');
      // no answer twice: the scheduler may have restarted and forgotten us (there is no connection to see drop)
      // a round unanswered: what went since the last confirmation may be lost (a scheduler or NATS restart); twice:
      // the scheduler may have restarted and forgotten us, so register again first
      // a reconnect of our own NATS connection loses what the old server still held either way, even when the next
      // keep-alive is answered (a short outage fits between two ticks): requests and answers lost then would leave a
      // site waiting for a permission for ever
      if (this.mnsMissed >= 1 || this.resendDue) this.sendAgain(this.mnsMissed >= 2);
      this.resendDue = false;
      this.mnsMissed++;
      this.toMns({ command: 'CMD_UM_KEEPALIVE' }, 1);
      this.outbox.keepaliveSent();
    });
    this.every(QUARANTINE_TICK_MS, () => this.quarantineTimeout());
    this.every(this.opts.statsMs ?? DEFAULT_STATS_MS, () => this.statistics());
  }

  /**
   * The NATS connection came back after a disconnect: at the next keep-alive tick send again what the multinode
   * scheduler may have missed (if it is not back yet either, that keep-alive goes unanswered and the round after
   * sends again, registering anew).
   */
  busReconnected(): void {
    this.resendDue = true;
  }

  stop(): void {
    for (const t of this.timers) this.opts.clock.clearTimeout(t);
  }

  /**
   * (CMD_UM_INIT again, when `init`), then whatever the scheduler may have lost: the links forwarded since its last
   * confirmed keep-alive, and the DNS and crawl-permission requests still unanswered (a site waiting for one would
   * wait for ever). Duplicates are harmless: the routed node drops a URI it has seen, and a permission already held
   * is granted again.
   */
  private sendAgain(init: boolean): void {
    if (init) this.toMns({ command: 'CMD_UM_INIT', nodeId: this.opts.nodeId, xmlrpc: this.opts.xmlrpc ?? { host: '127.0.0.1', port: 0 } }, 1);
    const again = this.outbox.resend();
    for (const { collection, entry } of again) this.toMns({ command: 'CMD_UM_URI', dspecName: collection, entry });
    let asked = 0;
    for (const c of this.collections.values()) {
      for (const s of c.sites.values()) {
        if (s.state === 'resolving') this.toMns({ command: 'CMD_UM_DNS_REQUEST', dspecName: c.name, site: s.host }, 1);
        else if (s.state === 'asking' && s.ip !== undefined) this.toMns({ command: 'CMD_UM_START_CRAWL_IP', dspecName: c.name, data: { ip: s.ip, site: s.site, storeId: 0 } }, 1);
        else continue;
        asked++;
      }
    }
    if (init || again.length > 0 || asked > 0) {
      this.opts.log?.info({ init, links: again.length, requests: asked, dropped: this.outbox.dropped }, 'sent again what the multinode scheduler may have missed');
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

  collectionNames(): string[] {
    return [...this.collections.keys()];
  }

  stats(collection: string): Collection['stats'] | undefined {
    return this.collections.get(collection)?.stats;
  }

  /** Sites with work queued or in flight, and whether any is still waiting for something. */
  get idle(): boolean {
    for (const c of this.collections.values()) for (const s of c.sites.values()) if (s.queue.length > 0 || s.busy || s.processing > 0) return false;
    return true;
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
        return this.toMns({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
      case 'CMD_UM_KEEPALIVE_ACK':
        this.mnsMissed = 0;
        this.outbox.ackReceived();
        return;
      case 'CMD_ADM_CONF_ADD': {
        // 3.1.5.10: an ADD for a collection held here is an UPDATE, when it brings a newer configuration; the same
        // epoch again is the scheduler re-registering us (or restarted), and must not recrawl the start URIs
        const held = this.collections.get(msg.dspecName);
        const update = held !== undefined && msg.epoch !== undefined && msg.epoch > held.epoch;
        if (this.configure(msg.dspecName, msg.dspec, msg.epoch) && update) this.requeueStartUris(msg.dspecName);
        return;
      }
      case 'CMD_ADM_CONF_UPDATE':
        // 3.1.5.11: an update of a collection not held here is ignored
        if (!this.collections.has(msg.dspecName)) return;
        if (this.configure(msg.dspecName, msg.dspec, msg.epoch)) this.requeueStartUris(msg.dspecName);
        return;
      case 'CMD_ADM_CONF_REMOVE':
        return void this.remove(msg.dspecName);
      case 'CMD_ADM_CONF_SUSPEND':
      case 'CMD_UM_CONF_STATE': {
        const c = this.collections.get(msg.dspecName);
        if (c) c.state = msg.state;
        if (c && msg.state === FSCMT_CONF_STATES.ACTIVE) this.events.onWork?.();
        return;
      }
      case 'CMD_ADM_CONF_RESUME': {
        const c = this.collections.get(msg.dspecName);
        if (c) c.state = FSCMT_CONF_STATES.ACTIVE;
        this.events.onWork?.();
        return;
      }
      case 'CMD_ADM_CONF_FEEDING_SUSPEND': {
        const c = this.collections.get(msg.dspecName);
        if (c) c.feedingSuspended = msg.data.suspend;
        this.events.onFeedingSuspend?.(msg.dspecName, msg.data.suspend);
        return;
      }
      case 'CMD_ADM_CONF_REFRESH':
        this.opts.log?.info({ collection: msg.dspecName, mask: msg.refresh.mask }, 'refresh requested (not implemented: nothing is recrawled)');
        return;
      case 'CMD_UM_ADD_ROUTE': {
        const r = msg.route;
        const table = this.routes.get(msg.dspecName) ?? new Map();
        this.routes.set(msg.dspecName, table);
        const before = table.get(r.site)?.nodeId;
        table.set(r.site, { nodeId: r.nodeId, addrinfo: r.addrinfo, expires: this.opts.clock.now() + r.ttl * 1000 });
        if (before !== undefined && before !== r.nodeId) this.routeMoved(msg.dspecName, r.site, before, r.nodeId);
        const ips = ipsOf(r.addrinfo);
        if (ips.length > 0 && r.ttl > 0) this.dns.set(hostOf(r.site), { ips, expires: this.opts.clock.now() + r.ttl * 1000 });
        return;
      }
      case 'CMD_UM_ASK_ROUTE': {
        const table = [...(this.routes.get(msg.dspecName) ?? new Map<string, { nodeId: string }>())];
        for (let i = 0; i < table.length; i += 256) {
          this.toMns({ command: 'CMD_UM_ADD_ROUTE', dspecName: msg.dspecName, routes: table.slice(i, i + 256).map(([site, r]) => ({ routingAttribute: site, nodeId: r.nodeId })) });
        }
        return this.toMns({ command: 'CMD_UM_LAST_ROUTE', dspecName: msg.dspecName });
      }
      case 'CMD_UM_URI':
      case 'CMD_UM_URI_URG':
        return this.enqueue(msg.dspecName, msg.entry, msg.command === 'CMD_UM_URI_URG' || priority === 1);
      case 'CMD_UM_DNS_REPLY': {
        const ips = ipsOf(msg.data.addrinfo);
        this.dns.set(msg.data.hostname, { ips, expires: this.opts.clock.now() + Math.max(1, msg.data.ttl) * 1000 });
        for (const c of this.collections.values()) {
          for (const s of c.sites.values()) if (s.state === 'resolving' && s.host === msg.data.hostname) this.askIp(c, s);
        }
        return;
      }
      case 'CMD_UM_START_CRAWL_IP':
        return this.grant(msg.dspecName, msg.data.site, msg.data.allowed);
      case 'CMD_ADM_PREEMPT_SITE': {
        const c = this.collections.get(msg.dspecName);
        const s = c?.sites.get(msg.data.site);
        if (!c || !s) return;
        // preempt: stop crawling the site now; with requeue its entries go back to the front
        if (!msg.data.requeue) s.queue.length = 0;
        this.release(c, s);
        return;
      }
      case 'CMD_UM_QUARANTINE_SITE':
      case 'CMD_UM_QUARANTINE_SITE_REQUEUE': {
        const c = this.collections.get(msg.dspecName);
        if (!c) return;
        c.quarantine.set(msg.data.site, this.opts.clock.now() + msg.data.seconds * 1000);
        const s = c.sites.get(msg.data.site);
        if (s && msg.command === 'CMD_UM_QUARANTINE_SITE') s.queue.length = 0;
        return;
      }
      case 'CMD_UM_DELETE_SITE': {
        const c = this.collections.get(msg.dspecName);
        const s = c?.sites.get(msg.site);
        if (!c || !s) return;
        const uris = [...s.fetched];
        s.queue.length = 0;
        s.fetched.clear();
        this.events.onDelete?.(c.name, uris);
        return;
      }
      case 'CMD_UM_DELETE_URIS': {
        const c = this.collections.get(msg.dspecName);
        if (!c) return;
        const gone: string[] = [];
        for (const [site, uris] of msg.data.urisBySite) {
          const s = c.sites.get(site);
          for (const u of uris) if (s?.fetched.delete(u)) gone.push(u);
        }
        this.events.onDelete?.(c.name, gone);
        return;
      }
      case 'CMD_UM_REPROCESS_SITE': {
        const c = this.collections.get(msg.dspecName);
        const s = c?.sites.get(msg.data.site);
        if (!c || !s) return;
        const uris = [...s.fetched].filter((u) => (msg.data.exactMatch ? u === msg.data.uriPrefix : u.startsWith(msg.data.uriPrefix)));
        this.events.onReprocess?.(c.name, uris);
        return;
      }
      default:
        // PPDUP_* answers travel between the duplicate server and its client, not through here
        return;
    }
  }

  // ---- crawl queue

  /** Applies a configuration; false when it was refused (nothing changed). */
  private configure(name: string, dspec: FswcuDict, epoch: number | undefined): boolean {
    let settings: CrawlSettings;
    try {
      settings = crawlSettings(dspec);
    } catch (err) {
      this.opts.log?.error({ collection: name, err: (err as Error).message }, 'crawl configuration refused');
      this.toMns({ command: 'CMD_UM_LOG', dspecName: name, data: { logFile: 'sc', message: `configuration refused: ${(err as Error).message}` } });
      return false;
    }
    const c = this.collections.get(name);
    if (c) {
      c.dspec = dspec;
      c.settings = settings;
      c.epoch = epoch ?? c.epoch + 1;
    } else {
      this.collections.set(name, {
        name,
        dspec,
        settings,
        epoch: epoch ?? 1,
        state: FSCMT_CONF_STATES.ACTIVE,
        feedingSuspended: false,
        sites: new Map(),
        seen: new Set(),
        forwarded: new Map(),
        quarantine: new Map(),
        stats: noStats(),
        statsSent: noStats(),
      });
    }
    this.events.onConfig?.(name, dspec);
    return true;
  }

  /**
   * 3.1.5.11: the start URIs of the updated configuration go back to the crawl queue. Those on sites routed here are
   * crawled again (they leave the seen set); those not routed at all go to the multinode scheduler, which routes
   * them (a start URI new in this configuration has no route yet; every node sends it, the routed node takes it
   * once); those routed to another node are that node's to requeue on its own update.
   */
  private requeueStartUris(name: string): void {
    const c = this.collections.get(name);
    if (!c) return;
    let here = 0;
    let forwarded = 0;
    for (const raw of crawlStartUris(c.dspec)) {
      const uri = normalizeUri(raw, c.settings.stripQuery);
      const where = uri === undefined ? undefined : siteOf(uri);
      if (uri === undefined || !where) continue;
      const owner = this.routes.get(name)?.get(where.site)?.nodeId;
      if (owner === this.opts.nodeId) {
        c.seen.delete(uri);
        this.enqueueNormalized(c, entryFor(uri, '', 0, [], FSCMT_URI_FLAGS.URIF_STARTURI), false);
        here++;
      } else if (owner === undefined) {
        c.forwarded.get(where.site)?.delete(uri);
        this.link(c, uri, '', 0, [], true);
        forwarded++;
      }
    }
    this.opts.log?.info({ collection: name, here, forwarded }, 'configuration updated: start URIs requeued');
  }

  private async remove(name: string): Promise<void> {
    const c = this.collections.get(name);
    if (!c) return;
    c.state = FSCMT_CONF_STATES.REMOVING;
    const uris = [...c.sites.values()].flatMap((s) => [...s.fetched]);
    for (const s of c.sites.values()) this.release(c, s);
    await this.events.onRemove?.(name, uris);
    this.collections.delete(name);
    this.routes.delete(name);
    this.toMns({ command: 'CMD_UM_DELETE_OK', dspecName: name });
  }

  /** A queue entry for this node (from the multinode scheduler, or a link found here), its URI normalised. */
  enqueue(collection: string, entry: FscmtQueueEntry, front = false): void {
    const c = this.collections.get(collection);
    if (!c || c.state === FSCMT_CONF_STATES.REMOVING) return;
    const uri = normalizeUri(entry.uri.uri, c.settings.stripQuery);
    if (uri === undefined) return;
    this.enqueueNormalized(c, uri === entry.uri.uri ? entry : { ...entry, uri: fscmtParsedUri(uri) }, front);
  }

  private enqueueNormalized(c: Collection, entry: FscmtQueueEntry, front: boolean): void {
    const uri = entry.uri.uri;
    if (c.seen.has(uri)) return;
    const where = siteOf(uri);
    if (!where) return;
    if (!uriAllowed(c.settings, uri)) {
      c.stats.excluded++;
      return;
    }
    c.seen.add(uri);
    let s = c.sites.get(where.site);
    if (!s) {
      s = { ...where, queue: [], state: 'new', ip: undefined, blockedUntil: 0, nextAt: 0, busy: false, processing: 0, docs: 0, fetched: new Set(), crawlDelayMs: 0 };
      c.sites.set(where.site, s);
    }
    if (front) s.queue.unshift(entry);
    else s.queue.push(entry);
    if (s.state === 'new') this.activate(c, s);
    this.events.onWork?.();
  }

  private activate(c: Collection, s: Site): void {
    const dns = this.dns.get(s.host);
    if (isIp(s.host)) return this.askIp(c, s, s.host);
    if (dns && dns.expires > this.opts.clock.now()) return this.askIp(c, s);
    s.state = 'resolving';
    this.toMns({ command: 'CMD_UM_DNS_REQUEST', dspecName: c.name, site: s.host }, 1);
  }

  private askIp(c: Collection, s: Site, ip?: string): void {
    const address = ip ?? this.dns.get(s.host)?.ips[0];
    if (address === undefined) {
      this.opts.log?.info({ collection: c.name, site: s.site }, 'site does not resolve: its entries are dropped');
      c.stats.errors += s.queue.length;
      s.queue.length = 0;
      s.state = 'new';
      return;
    }
    s.ip = this.opts.ipKey === 'ip-port' ? `${address}:${s.port}` : address;
    s.state = 'asking';
    this.toMns({ command: 'CMD_UM_START_CRAWL_IP', dspecName: c.name, data: { ip: s.ip, site: s.site, storeId: 0 } }, 1);
  }

  private grant(collection: string, site: string, allowed: boolean): void {
    const c = this.collections.get(collection);
    const s = c?.sites.get(site);
    if (!c || !s || s.state !== 'asking') return;
    if (allowed) {
      s.state = 'active';
      this.events.onWork?.();
    } else {
      // 2.2.3.22: not allowed blocks the site for 30 minutes; its entries stay queued, in front
      s.state = 'blocked';
      s.blockedUntil = this.opts.clock.now() + BLOCK_MS;
      this.opts.log?.info({ collection, site, ip: s.ip }, 'crawl of the site refused: blocked for 30 minutes');
    }
  }

  private release(c: Collection, s: Site): void {
    if (s.state === 'active' && s.ip !== undefined) this.toMns({ command: 'CMD_UM_STOP_CRAWL_IP', dspecName: c.name, data: { ip: s.ip, site: s.site } });
    s.state = 'new';
    if (s.queue.length > 0 && c.state !== FSCMT_CONF_STATES.REMOVING) this.activate(c, s);
  }

  /** The next fetch allowed now, or undefined; `nextWakeMs` says when to look again. */
  nextFetch(): Fetch | undefined {
    const now = this.opts.clock.now();
    for (const c of this.collections.values()) {
      if (c.state !== FSCMT_CONF_STATES.ACTIVE) continue;
      for (const s of c.sites.values()) {
        if (s.state === 'blocked' && s.blockedUntil <= now) this.activate(c, s);
        if (s.state !== 'active' || s.busy || s.nextAt > now || s.queue.length === 0) continue;
        if ((c.quarantine.get(s.site) ?? 0) > now) continue;
        if (s.docs >= c.settings.maxDocsPerSite) {
          c.stats.excluded += s.queue.length;
          s.queue.length = 0;
          this.release(c, s);
          continue;
        }
        const entry = s.queue.shift() as FscmtQueueEntry;
        s.busy = true;
        return { collection: c.name, site: s.site, entry, depth: depthOf(entry), settings: c.settings };
      }
    }
    return undefined;
  }

  /** Milliseconds until some site becomes fetchable (politeness, blocks, quarantine), or undefined. */
  nextWakeMs(): number | undefined {
    const now = this.opts.clock.now();
    let best: number | undefined;
    for (const c of this.collections.values()) {
      if (c.state !== FSCMT_CONF_STATES.ACTIVE) continue;
      for (const s of c.sites.values()) {
        if (s.queue.length === 0 || s.busy) continue;
        const at = s.state === 'active' ? Math.max(s.nextAt, c.quarantine.get(s.site) ?? 0) : s.state === 'blocked' ? s.blockedUntil : undefined;
        if (at !== undefined) best = Math.min(best ?? Infinity, Math.max(0, at - now));
      }
    }
    return best;
  }

  /**
   * The request to the site is over (the body is read): the site may be asked again `delay` from now, while this
   * page is still being checked, fed and mined for links. Politeness is about requests to the site, so the
   * processing does not hold the site up. Optional: fetched() implies it.
   */
  requestDone(f: Fetch): void {
    const c = this.collections.get(f.collection);
    const s = c?.sites.get(f.site);
    if (!c || !s || !s.busy) return;
    s.busy = false;
    s.processing++;
    s.nextAt = this.opts.clock.now() + Math.max(c.settings.delayMs, s.crawlDelayMs);
    this.events.onWork?.();
  }

  /**
   * The site's robots.txt asks for this many milliseconds between requests (Crawl-delay): it is the site's delay
   * when longer than the configured one, at most MAX_CRAWL_DELAY_MS (a robots.txt must not park a crawl for days).
   */
  crawlDelay(f: Fetch, ms: number): void {
    const s = this.collections.get(f.collection)?.sites.get(f.site);
    if (s) s.crawlDelayMs = Math.min(Math.max(0, ms), MAX_CRAWL_DELAY_MS);
  }

  /**
   * Links of a page just read, queued here or sent to the multinode scheduler at once, before the page's duplicate
   * check and feeding: a site whose queue holds only the links of the page in processing would otherwise wait for
   * the duplicate server's round trip before its next request (pass them to `fetched` instead if not known early).
   * They are taken as normalised already (normalizeUrl with the collection's stripQuery): the link extractor does it.
   */
  linksFound(f: Fetch, links: string[]): void {
    const c = this.collections.get(f.collection);
    if (!c || !c.sites.has(f.site)) return;
    // the crawler's link extraction normalised them with the collection's settings already
    if (f.depth < c.settings.maxDepth) for (const link of links) this.link(c, link, f.entry.uri.uri, f.depth + 1, [], true);
    this.events.onWork?.();
  }

  /** The crawler reads the site's sitemaps: the site is not released meanwhile. */
  sitemapsStarted(f: Fetch): void {
    const s = this.collections.get(f.collection)?.sites.get(f.site);
    if (s) s.processing++;
  }

  /** The site's sitemaps listed these URIs: start URIs of the crawl (depth 0), queued or routed as links are. */
  sitemapsRead(f: Fetch, referrer: string, uris: string[]): void {
    const c = this.collections.get(f.collection);
    const s = c?.sites.get(f.site);
    if (!c || !s) return;
    s.processing = Math.max(0, s.processing - 1);
    for (const uri of uris) this.link(c, uri, referrer, 0, []);
    if (s.queue.length === 0 && !s.busy && s.processing === 0) this.release(c, s);
    this.events.onWork?.();
  }

  /** The crawler reports a fetch: links are queued here or sent to the multinode scheduler. */
  fetched(f: Fetch, outcome: FetchOutcome): void {
    const c = this.collections.get(f.collection);
    const s = c?.sites.get(f.site);
    if (!c || !s) return;
    if (s.busy && (outcome.kind === 'excluded' || outcome.kind === 'deferred')) {
      // refused or put off by robots.txt before any request: the site was not asked, so no politeness delay
      s.busy = false;
      s.processing++;
    } else if (s.busy) this.requestDone(f);
    s.processing = Math.max(0, s.processing - 1);
    switch (outcome.kind) {
      case 'page':
        s.docs++;
        c.stats.fetched++;
        if (outcome.fate === 'fed') {
          c.stats.fed++;
          s.fetched.add(f.entry.uri.uri);
        } else if (outcome.fate === 'duplicate') c.stats.duplicates++;
        else c.stats.unfed++;
        if (f.depth < c.settings.maxDepth) for (const link of outcome.links) this.link(c, link, f.entry.uri.uri, f.depth + 1, []);
        break;
      case 'redirect':
        c.stats.redirects++;
        // the target carries the redirect trail (2.2.2.2) and keeps the depth of the page that redirected
        this.link(c, outcome.location, f.entry.referrer.uri, f.depth, [
          ...f.entry.redirects,
          { uri: f.entry.uri.uri, kind: outcome.status === 301 ? FSCMT_URI_FLAGS.URIF_REDIRECT_301 : FSCMT_URI_FLAGS.URIF_REDIRECT_302 },
        ]);
        break;
      case 'not_indexable':
        c.stats.fetched++;
        c.stats.excluded_type++;
        break;
      case 'noindex':
        c.stats.fetched++;
        c.stats.noindex++;
        break;
      case 'too_large':
        c.stats.fetched++;
        c.stats.excluded_size++;
        this.opts.log?.info({ collection: c.name, uri: f.entry.uri.uri, maxBytes: outcome.maxBytes }, 'page excluded: larger than the body bound');
        break;
      case 'excluded':
        c.stats.excluded++;
        break;
      case 'deferred':
        s.queue.unshift(f.entry);
        s.nextAt = Math.max(s.nextAt, this.opts.clock.now() + outcome.retryInMs);
        break;
      case 'error':
        c.stats.errors++;
        this.opts.log?.info({ collection: c.name, uri: f.entry.uri.uri, reason: outcome.reason }, 'fetch failed');
        break;
    }
    if (s.queue.length === 0 && !s.busy && s.processing === 0) this.release(c, s);
    this.events.onWork?.();
  }

  /** The feeding chain failed a document of the collection after it was fed (the feeding client's outcome). */
  feedFailed(collection: string): void {
    const c = this.collections.get(collection);
    if (c) c.stats.feed_failed++;
  }

  /** Recrawl these URIs at the front of their sites' queues (promote requests 3.1.5.25, reprocess 3.1.5.14). */
  promote(collection: string, uris: string[]): void {
    const c = this.collections.get(collection);
    if (!c) return;
    for (const uri of uris) {
      c.seen.delete(uri);
      this.enqueue(collection, entryFor(uri, '', 0, [], FSCMT_URI_FLAGS.URIF_PROMOTE), true);
    }
  }

  private link(c: Collection, raw: string, referrer: string, depth: number, redirects: FscmtRedirect[], normalized = false): void {
    // most links of a page were seen before (menus, cross links): answer those with a set lookup, before any parsing
    if (c.seen.has(raw)) return;
    // one spelling per page before the seen check, so that a page linked in two spellings is fetched once
    const uri = normalized ? raw : normalizeUri(raw, c.settings.stripQuery);
    if (uri === undefined || (uri !== raw && c.seen.has(uri))) return;
    const where = siteOf(uri);
    if (!where) return;
    const route = this.routes.get(c.name)?.get(where.site);
    if (route?.nodeId === this.opts.nodeId) return this.enqueueNormalized(c, entryFor(uri, referrer, depth, redirects, redirects.at(-1)?.kind ?? 0), false);
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
    this.toMns({ command: 'CMD_UM_URI', dspecName: c.name, entry });
    this.outbox.add({ collection: c.name, entry });
  }

  /**
   * A site's route moved from one node to another: the multinode scheduler dropped the old owner (dead, or gone and
   * back). What was sent to the old owner may have died with it, so the links this node forwarded to the site are
   * handed to the new owner: queued here when that is us (a URI seen here is not fetched twice), sent to the
   * multinode scheduler again otherwise. A site that moved away from us is no longer crawled here: what its queue
   * holds goes to the new owner too (a fetch under way finishes).
   */
  private routeMoved(collection: string, site: string, from: string, to: string): void {
    const c = this.collections.get(collection);
    if (!c || c.state === FSCMT_CONF_STATES.REMOVING) return;
    const links = c.forwarded.get(site) ?? new Map<string, number>();
    const queued = from === this.opts.nodeId ? (c.sites.get(site)?.queue.splice(0) ?? []) : [];
    if (links.size === 0 && queued.length === 0) return;
    if (to === this.opts.nodeId) {
      c.forwarded.delete(site);
      for (const [uri, depth] of links) this.enqueueNormalized(c, entryFor(uri, '', depth, []), false);
    } else {
      for (const [uri, depth] of links) this.forward(c, entryFor(uri, '', depth, []));
      for (const entry of queued) {
        c.seen.delete(entry.uri.uri);
        this.forward(c, entry);
      }
    }
    this.opts.log?.info({ collection, site, from, to, links: links.size, queued: queued.length }, 'a site moved to another node: its links follow it');
  }

  private forward(c: Collection, entry: FscmtQueueEntry): void {
    this.toMns({ command: 'CMD_UM_URI', dspecName: c.name, entry });
    this.outbox.add({ collection: c.name, entry });
  }

  private quarantineTimeout(): void {
    const now = this.opts.clock.now();
    for (const c of this.collections.values()) {
      for (const [site, until] of c.quarantine) if (until <= now) c.quarantine.delete(site);
    }
    this.events.onWork?.();
  }

  /** 3.1.6: each CMD_UM_STAT carries the counters' change since the previous one, not the totals. */
  private statistics(): void {
    for (const c of this.collections.values()) {
      const delta = Object.entries(c.stats).map(([k, v]) => [new TextEncoder().encode(k), v - c.statsSent[k as keyof CrawlStats]] as [Uint8Array, number]);
      c.statsSent = { ...c.stats };
      this.toMns({ command: 'CMD_UM_STAT', dspecName: c.name, stats: new FswcuDict(delta) });
    }
  }

  private toMns(message: FscmtMultinodeSchedulerMessage, priority: FscmtPriority = 0): void {
    this.opts.send(this.opts.mns, buildFscmtMultinodeSchedulerMessage(message), priority);
  }
}

const DEPTH_KEY = new TextEncoder().encode('depth');

export function entryFor(uri: string, referrer: string, depth: number, redirects: FscmtRedirect[], uriFlags = 0): FscmtQueueEntry {
  return {
    uri: fscmtParsedUri(uri),
    referrer: fscmtUnparsedUri(referrer),
    uriFlags,
    frameFlags: 0,
    redirects,
    queueFlags: 0,
    refreshCycle: 0,
    extra: new FswcuDict([[DEPTH_KEY, depth]]),
  };
}

function depthOf(entry: FscmtQueueEntry): number {
  const d = entry.extra.getText('depth');
  return typeof d === 'number' ? d : 0;
}

function siteOf(uri: string): { site: string; host: string; port: number } | undefined {
  try {
    const u = new URL(uri);
    if (!u.hostname) return undefined;
    return { site: u.host.toLowerCase(), host: u.hostname.toLowerCase(), port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return undefined;
  }
}

function hostOf(site: string): string {
  const i = site.lastIndexOf(':');
  return i > 0 && !site.endsWith(']') ? site.slice(0, i) : site;
}

function isIp(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.startsWith('[');
}

function ipsOf(a: FscmtAddrinfoResult): string[] {
  if (a === null) return [];
  return (Array.isArray(a) ? a : [a]).map((x) => x.address.host);
}
