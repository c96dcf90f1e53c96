/**
 * A node scheduler on the crawl bus (address ns/<node id>): the protocol machine, the crawler, a duplicate server
 * client on the same address, and a feeding client per collection for the pages it owns.
 *
 * The parts are built in the order they use each other: the endpoint (it can send before it listens), the machine,
 * what acts on the machine's events (page ownership, feeders, the duplicate server link, the crawler); then the
 * machine is connected to them, the endpoint starts listening, and the machine starts.
 *
 *   const ns = await startNodeScheduler(mw, { cluster: 'default', nodeId: 'n1', mns: 'main', dup: 'dup1' });
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
  const machine = new NodeSchedulerMachine({
    nodeId: opts.nodeId,
    mns: crawlAddress({ cluster: opts.cluster, role: 'mns', id: opts.mns }),
    clock,
    ipKey: opts.ipKey,
    log,
    keepaliveMs: opts.keepaliveMs,
    statsMs: opts.statsMs,
    send: (to, dict, priority) => endpoint.send(to, dict, priority),
  });
  const ownership = new PageOwnership();
  const feeders = new CollectionFeeders({ mw, enabled: opts.feed ?? false, log, onFailed: (collection) => machine.feedFailed(collection) });
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
    validators: opts.validators,
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
      await endpoint.stop();
    },
  };
}
