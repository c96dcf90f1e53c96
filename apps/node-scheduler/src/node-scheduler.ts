/**
 * A node scheduler on the crawl bus (address ns/<node id>): the protocol machine, the crawler, a duplicate server
 * client on the same address, and a feeding client per collection for the pages it owns.
 *
 *   const ns = await startNodeScheduler(mw, { cluster: 'default', nodeId: 'n1', mns: 'main', dup: 'dup1' });
 */
import { crawlAddress, CrawlEndpoint, DuplicateServerClient, DuplicateServerTimeout } from '@esp/crawl-bus';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { buildFscmtDuplicateServerMessage, type FswcuDict } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { retry, systemClock, type Clock } from '@esp/timers';
import { Crawler, type CrawledPage } from './crawler';
import { pageDocument } from './page-document';
import { DuplicateServerFailover } from './duplicate-failover';
import { NodeSchedulerMachine } from './node-scheduler-machine';

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
  clock?: Clock;
  log?: Logger;
}

export interface NodeScheduler {
  readonly address: string;
  readonly machine: NodeSchedulerMachine;
  readonly crawler: Crawler;
  stop(): Promise<void>;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export async function startNodeScheduler(mw: Middleware, opts: NodeSchedulerOptions): Promise<NodeScheduler> {
  const log = opts.log;
  const mnsAddress = crawlAddress({ cluster: opts.cluster, role: 'mns', id: opts.mns });
  const dupAddress = opts.dup === undefined ? undefined : crawlAddress({ cluster: opts.cluster, role: 'dup', id: opts.dup });
  const replicaAddress = opts.dupReplica === undefined ? undefined : crawlAddress({ cluster: opts.cluster, role: 'dup', id: opts.dupReplica });
  const link: { endpoint?: CrawlEndpoint; dup?: DuplicateServerClient | DuplicateServerFailover; crawler?: Crawler } = {};
  const early: Array<[string, FswcuDict, 0 | 1]> = [];
  const feeders = new Map<string, Promise<FeedingClient>>();
  const feedingSuspended = new Set<string>();
  /** collection -> checksum -> URIs of this node's pages with that content that another URI owns. */
  const duplicates = new Map<string, Map<string, Set<string>>>();
  /** collection -> URI -> checksum of the pages this node owns (removes send PPDUP_REMOVE). */
  const owned = new Map<string, Map<string, Uint8Array>>();

  const feeder = (collection: string): Promise<FeedingClient> => {
    let f = feeders.get(collection);
    if (!f) {
      f = FeedingClient.open({
        mw,
        collection,
        log: log ?? mw.log,
        onOutcome: (id, outcome) => {
          if (outcome.kind !== 'failed') return;
          machine.feedFailed(collection);
          log?.warn({ collection, uri: id, error: outcome.error.name, description: outcome.error.description }, 'fed document failed in the feeding chain');
        },
      });
      feeders.set(collection, f);
      f.catch((err: Error) => {
        log?.error({ collection, err: err.message }, 'cannot open a feeding session');
        feeders.delete(collection);
      });
    }
    return f;
  };
  const feedDocs = async (collection: string, docs: FeedDocument[]): Promise<void> => {
    if (!opts.feed || docs.length === 0) return;
    const client = await feeder(collection);
    for (const d of docs) await client.feed(d);
  };

  const machine: NodeSchedulerMachine = new NodeSchedulerMachine({
    nodeId: opts.nodeId,
    mns: mnsAddress,
    clock: opts.clock ?? systemClock,
    ipKey: opts.ipKey,
    log,
    keepaliveMs: opts.keepaliveMs,
    statsMs: opts.statsMs,
    send: (to, dict, priority) => (link.endpoint ? link.endpoint.send(to, dict, priority) : early.push([to, dict, priority])),
    onWork: () => link.crawler?.wake(),
    onConfig: (collection, dspec) => {
      link.dup?.setConfig(collection, dspec).catch((err: Error) => log?.warn({ collection, err: err.message }, 'duplicate server did not take the configuration'));
    },
    onRemove: async (collection, uris) => {
      link.dup?.confRemove(collection);
      await feedDocs(collection, uris.map((id) => ({ id, remove: true }))).catch(() => undefined);
      duplicates.delete(collection);
      owned.delete(collection);
      link.dup?.confRemove2(collection);
    },
    onDelete: (collection, uris) => {
      const mine = owned.get(collection);
      for (const uri of uris) {
        const csum = mine?.get(uri);
        mine?.delete(uri);
        if (csum && link.dup) link.dup.remove(collection, uri, csum).catch((err: Error) => log?.warn({ uri, err: err.message }, 'PPDUP_REMOVE failed'));
      }
      void feedDocs(collection, uris.map((id) => ({ id, remove: true }))).catch((err: Error) => log?.warn({ err: err.message }, 'feeding removes failed'));
    },
    // reprocess: no crawl store keeps page bodies, so the pages are fetched again and fed again (3.1.5.14)
    onReprocess: (collection, uris) => machine.promote(collection, uris),
    onFeedingSuspend: (collection, suspended) => (suspended ? feedingSuspended.add(collection) : feedingSuspended.delete(collection)),
  });

  const endpoint = await CrawlEndpoint.start(mw.bus, {
    self: { cluster: opts.cluster, role: 'ns', id: opts.nodeId },
    log,
    onBatch: (batch) => {
      for (const m of batch) {
        if (link.dup && (m.from === dupAddress || m.from === replicaAddress)) link.dup.handle(m);
        else machine.handle(m.from, m.dict, m.priority);
      }
    },
  });
  link.endpoint = endpoint;
  const dupClient = (server: string): Promise<DuplicateServerClient> =>
    DuplicateServerClient.start(mw.bus, {
      self: { cluster: opts.cluster, role: 'ns', id: opts.nodeId },
      server,
      node: opts.nodeId,
      endpoint,
      timeoutMs: opts.dupTimeoutMs ?? 60_000,
      log,
      onPromote: (collection, csum) => {
        // 3.1.5.25: the owner is gone; recrawl this node's copies so that one of them becomes the owner
        const uris = duplicates.get(collection)?.get(hex(csum));
        if (!uris) return;
        duplicates.get(collection)?.delete(hex(csum));
        machine.promote(collection, [...uris]);
      },
    });
  if (dupAddress && replicaAddress) {
    link.dup = DuplicateServerFailover.start({
      primary: await dupClient(dupAddress),
      primaryAddress: dupAddress,
      replica: await dupClient(replicaAddress),
      replicaAddress,
      clock: opts.clock ?? systemClock,
      deadAfterMs: opts.dupDeadMs ?? 10_000,
      probe: () => endpoint.send(dupAddress, buildFscmtDuplicateServerMessage({ command: 'PPDUP_KEEPALIVE' }), 1),
      log,
    });
  } else if (dupAddress) link.dup = await dupClient(dupAddress);
  const crawler = new Crawler({
    machine,
    userAgent: opts.userAgent,
    concurrency: opts.concurrency,
    maxBodyBytes: opts.maxBodyBytes,
    log,
    // an add is idempotent (the same URI gets the same owner), so one lost on the way (a NATS restart) is sent again
    // (at once: the timeout was the wait), to whichever duplicate server is current; a few times at most, so that a
    // duplicate server that is gone fails the page instead of holding it
    checksum: (collection, uri, csum) =>
      retry(async () => (link.dup ? (await link.dup.add(collection, uri, csum)).ownUri : uri), {
        attempts: 5,
        initialMs: 0,
        maxMs: 0,
        retryable: (err) => err instanceof DuplicateServerTimeout,
        onRetry: (_err, attempt) => log?.warn({ collection, uri, attempt: attempt + 1 }, 'no answer from the duplicate server: PPDUP_ADD sent again'),
      }),
    feed: async (page: CrawledPage) => {
      const mine = owned.get(page.collection) ?? new Map<string, Uint8Array>();
      owned.set(page.collection, mine);
      mine.set(page.uri, page.checksum);
      if (!opts.feed || feedingSuspended.has(page.collection)) return false;
      await feedDocs(page.collection, [pageDocument(page, opts.nodeId)]);
      return true;
    },
    onDuplicate: (page) => {
      const byCsum = duplicates.get(page.collection) ?? new Map<string, Set<string>>();
      duplicates.set(page.collection, byCsum);
      const set = byCsum.get(hex(page.checksum)) ?? new Set<string>();
      set.add(page.uri);
      byCsum.set(hex(page.checksum), set);
    },
  });
  link.crawler = crawler;
  // partial feeding batches go out at least every 250 ms
  const flusher = setInterval(() => {
    for (const f of feeders.values()) void f.then((c) => c.flush()).catch(() => undefined);
  }, 250);
  flusher.unref();
  for (const [to, dict, priority] of early.splice(0)) endpoint.send(to, dict, priority);
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
      clearInterval(flusher);
      for (const f of feeders.values()) {
        const c = await f.catch(() => undefined);
        await c?.flush().catch(() => undefined);
        await c?.close().catch(() => undefined);
      }
      await link.dup?.stop();
      await endpoint.stop();
    },
  };
}
