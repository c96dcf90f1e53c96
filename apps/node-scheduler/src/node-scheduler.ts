/**
 * A node scheduler on the crawl bus (address ns/<node id>): the protocol machine, the crawler, a duplicate server
 * client on the same address, and a feeding client per collection for the pages it owns.
 *
 * The parts are built in the order they use each other: the endpoint (it can send before it listens), the machine,
 * what acts on the machine's events (page ownership, feeders, the duplicate server link, the crawler); then the
 * machine is connected to them, the endpoint starts listening, and the machine starts.
 *
 *   const ns = await startNodeScheduler(mw, { cluster: 'default', nodeId: 'n1', mns: 'main', dup: 'dup1', dataDir: '.esp/ns' });
 *
 * With a data directory the crawl state lives in SQLite (store/sqlite-node-store.ts) and survives kill -9: what the
 * machine sends waits for the commit of what led to it (a CMD_UM_KEEPALIVE_ACK thus vouches only for entries on
 * disk), a fed page is done only once the feeding chain gave its outcome, and a restart with the same id and
 * directory resumes the crawl where it was, fetching again only what was in flight.
 */
import { crawlAddress, CrawlEndpoint } from '@esp/crawl-bus';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { systemClock, type Clock } from '@esp/timers';
import { CollectionFeeders } from './collection-feeders';
import { Crawler } from './crawler';
import { connectDuplicateServer, ownerOf } from './duplicate-link';
import { NodeSchedulerMachine } from './node-scheduler-machine';
import { pageDocument } from './page-document';
import { PageOwnership } from './page-ownership';
import type { NodeStore } from './store/node-store';
import { NullNodeStore } from './store/null-node-store';
import { robotsRulesOf, storedRobotsRules } from './store/stored-robots';
import { SqliteNodeStore } from './store/sqlite-node-store';
import { StoredPageValidators } from './store/stored-page-validators';
import type { PageValidators } from './page-validators';
import type { PageArchive } from './warc-writer';

/** How long a message to a peer may wait for others to the same peer (CrawlEndpoint lingerMs). */
const LINGER_MS = 2;

export interface NodeSchedulerOptions {
  cluster: string;
  nodeId: string;
  /** Id of the multinode scheduler (address mns/<id>). */
  mns: string;
  /** Id of the duplicate server (address dup/<id>); without one every page is its own owner. */
  dup?: string;
  /** Id of the duplicate server's replica: taken over when the primary is dead (duplicate-failover.ts). */
  dupReplica?: string;
  /** The primary is dead when operations waited this long without a word from it (default 10 s). */
  dupDeadMs?: number;
  /** A checksum operation unanswered this long is sent again (default 60 s; a message lost in a NATS restart). */
  dupTimeoutMs?: number;
  /** Feed owned pages into the feeding chain (a collection of the same name must exist there). */
  feed?: boolean;
  ipKey?: 'ip' | 'ip-port';
  userAgent?: string;
  concurrency?: number;
  /** A page's body at most, decompressed (default 10 MiB): larger pages are not fed (stats excluded_size). */
  maxBodyBytes?: number;
  keepaliveMs?: number;
  statsMs?: number;
  /** Keep the crawl state here (SQLite, <dir>/node-<id>.sqlite) and take it back at start; without it, memory only. */
  dataDir?: string;
  /** ETag / Last-Modified per page for conditional recrawls (default: in memory) */
  validators?: PageValidators;
  /** Where every page read is archived (a WARC writer) */
  archive?: PageArchive;
  clock?: Clock;
  log?: Logger;
}

export interface NodeScheduler {
  readonly address: string;
  readonly machine: NodeSchedulerMachine;
  readonly crawler: Crawler;
  stop(): Promise<void>;
}

export async function startNodeScheduler(mw: Middleware, opts: NodeSchedulerOptions): Promise<NodeScheduler> {
  const log = opts.log;
  const clock = opts.clock ?? systemClock;
  const self = { cluster: opts.cluster, role: 'ns' as const, id: opts.nodeId };
  // a checksum message per page, pages a millisecond or two apart: a few of them travel in one NATS message
  const endpoint = await CrawlEndpoint.start(mw.bus, { self, log, lingerMs: LINGER_MS });
  const store: NodeStore = opts.dataDir ? new SqliteNodeStore(opts.dataDir, opts.nodeId) : new NullNodeStore();
  const stored = store.load();
  const feed = opts.feed ?? false;
  const machine = new NodeSchedulerMachine({
    nodeId: opts.nodeId,
    mns: crawlAddress({ cluster: opts.cluster, role: 'mns', id: opts.mns }),
    clock,
    ipKey: opts.ipKey,
    log,
    keepaliveMs: opts.keepaliveMs,
    statsMs: opts.statsMs,
    // nothing leaves before what led to it is on disk
    send: (to, dict, priority) => store.whenDurable(() => endpoint.send(to, dict, priority)),
    store,
    feedAcks: feed,
  });
  const ownership = new PageOwnership(store);
  ownership.restore(stored.owned, stored.duplicates);
  const feeders = new CollectionFeeders({
    mw,
    enabled: feed,
    log,
    onFailed: (collection) => machine.feedFailed(collection),
    onOutcome: (collection, uri) => machine.feedDone(collection, uri),
  });
  const dup = await connectDuplicateServer(mw, endpoint, {
    ...opts,
    clock,
    // MS-FSCMT 3.1.5.25: the owner is gone; recrawl this node's copies so that one of them becomes the owner
    onPromote: (collection, csum) => {
      const uris = ownership.takeDuplicates(collection, csum);
      if (uris.length > 0) machine.promote(collection, uris);
    },
  });
  const crawler = new Crawler({
    machine,
    userAgent: opts.userAgent,
    concurrency: opts.concurrency,
    maxBodyBytes: opts.maxBodyBytes,
    validators: opts.validators ?? (opts.dataDir ? new StoredPageValidators(store, stored.validators) : undefined),
    archive: opts.archive,
    log,
    checksum: (collection, uri, csum) => ownerOf(dup.link, collection, uri, csum, log),
    sameContent: (collection, uri, csum) => ownership.ownsWith(collection, uri, csum),
    feed: async (page) => {
      // a page fed again with new content: its old content is no longer owned here (its copies elsewhere get promoted)
      const before = ownership.disown(page.collection, page.uri);
      if (before && Buffer.compare(before, page.checksum) !== 0) dup.link.remove(page.collection, page.uri, before).catch((err: Error) => log?.warn({ uri: page.uri, err: err.message }, 'PPDUP_REMOVE failed'));
      ownership.own(page.collection, page.uri, page.checksum);
      if (!feeders.feeding(page.collection)) return false;
      await feeders.feed(page.collection, [pageDocument(page, opts.nodeId)]);
      return true;
    },
    onDuplicate: (page) => ownership.duplicate(page.collection, page.uri, page.checksum),
    durable: opts.dataDir ? () => new Promise<void>((resolve) => store.whenDurable(resolve)) : undefined,
    memory: {
      robots: stored.robots.map((r) => ({ origin: r.origin, rules: robotsRulesOf(r.rules), expiresAt: r.expiresAt })),
      sitemaps: stored.sitemaps.map((s) => `${s.collection} ${s.origin}`),
      robotsRead: (origin, rules, expiresAt) => store.putRobots({ origin, rules: storedRobotsRules(rules), expiresAt }),
      sitemapsRead: (collection, origin) => store.sitemapsRead(collection, origin),
    },
  });
  const removes = (uris: string[]) => uris.map((id) => ({ id, remove: true }));

  machine.connect({
    onWork: () => crawler.wake(),
    feedsInFlight: (collection) => feeders.inFlight(collection),
    onConfig: (collection, dspec) => {
      dup.link.setConfig(collection, dspec).catch((err: Error) => log?.warn({ collection, err: err.message }, 'duplicate server did not take the configuration'));
    },
    onRemove: async (collection, uris) => {
      dup.link.confRemove(collection);
      await feeders.feed(collection, removes(uris)).catch(() => undefined);
      ownership.forget(collection);
      crawler.validators.forgetCollection(collection);
      dup.link.confRemove2(collection);
    },
    onDelete: (collection, uris, site) => {
      if (site !== undefined) ownership.forgetDuplicatesOn(collection, site);
      for (const uri of uris) {
        const csum = ownership.disown(collection, uri);
        if (csum) dup.link.remove(collection, uri, csum).catch((err: Error) => log?.warn({ uri, err: err.message }, 'PPDUP_REMOVE failed'));
      }
      void feeders.feed(collection, removes(uris)).catch((err: Error) => log?.warn({ err: err.message }, 'feeding removes failed'));
    },
    // reprocess: no crawl store keeps page bodies, so the pages are fetched again and fed again (3.1.5.14)
    onReprocess: (collection, uris) => machine.promote(collection, uris),
    onRound: (collection) => crawler.roundStarted(collection),
    onFeedingSuspend: (collection, suspended) => feeders.setSuspended(collection, suspended),
  });
  const restored = machine.restore(stored);
  if (opts.dataDir) {
    // the URIs in flight at the stop are fetched again (a few: at most the crawler's concurrency and the feeds unacknowledged)
    const { inFlight, ...counts } = restored;
    log?.info({ dataDir: opts.dataDir, ...counts, robots: stored.robots.length, owned: stored.owned.length, inFlight: inFlight.length, inFlightUris: inFlight.slice(0, 500) }, 'state restored');
  }
  await endpoint.listen((batch) => {
    for (const m of batch) {
      if (m.from !== undefined && dup.addresses.has(m.from)) dup.link.handle(m);
      else machine.handle(m.from, m.dict, m.priority);
    }
  });
  machine.start();
  const offConnection = mw.bus.onConnectionChange((change) => {
    if (change === 'reconnect') machine.busReconnected();
  });

  return {
    address: endpoint.address,
    machine,
    crawler,
    async stop() {
      offConnection();
      crawler.stop();
      machine.stop();
      await feeders.close();
      await dup.link.stop();
      // what is written goes to disk, and what waited for it leaves, before the endpoint stops
      store.close();
      await endpoint.stop();
    },
  };
}
