/**
 * The indexer in one call: opens the collections' databases, brings back the sessions of the last run, serves the
 * session factory and the search interface on the bus and binds them in the name server.
 *
 *   const mw = await Middleware.connect({ name: 'indexer' });
 *   const indexer = await startIndexer({ mw, dataDir: '.esp/indexer', collections: ['default', 'news'] });
 *   // ... coreprocessing::session_factory at INDEXING_DISPATCHER_NAME, indexing::search at INDEX_SEARCH_NAME
 *   await indexer.close();   // stop taking calls, write what is queued, deliver what is owed (bounded), close files
 *   await mw.close();
 */
import { serveContentRelease } from '@esp/claim-check';
import {
  DEFAULT_CONTENT_BUCKET,
  coreSessionFactoryInterface,
  INDEX_SEARCH_NAME,
  INDEXING_DISPATCHER_NAME,
  INTERNAL_PORT_OFFSET,
  searchInterface,
  type Aor,
  type BatchSigner,
  type Implementation,
} from '@esp/interfaces';
import { DEFAULT_CALLBACK_RETRY } from '@esp/content-client';
import type { Logger } from '@esp/logging';
import { bindOrTakeOver, type Middleware, type ServerObject } from '@esp/middleware';
import { CollectionAdmission } from './collection-admission';
import { DEFAULT_BASE_PORT, DEFAULT_CALLBACK_GIVE_UP_MS, DEFAULT_QUEUE_BATCHES, DEFAULT_SESSION_IDLE_MS } from './cli';
import { isCollectionName } from './collection-store';
import { IndexingDispatcher } from './indexing-dispatcher';
import { OpenCollections } from './open-collections';
import { SearchService } from './search-service';

export const FACTORY_OBJECT_ID = 'indexing-dispatcher';
export const SEARCH_OBJECT_ID = 'indexing-search';

export interface IndexerOptions {
  /** The bus connection; the indexer activates its objects on it but does not close it. */
  mw: Middleware;
  /** Directory of the databases, one `<collection>.sqlite` each (created if missing). */
  dataDir: string;
  /** Collections served; create on any other raises unknown_collection. */
  collections: readonly string[];
  /** Installation base port (default 16000): every object's AOR carries base port + 390. */
  basePort?: number;
  /** Batches queued per session before process raises system_resource_error (default 64). */
  maxQueuedBatches?: number;
  /** Undelivered statuses per session at which process raises system_resource_error (default 1024). */
  maxPendingCallbacks?: number;
  /** Most batches in one transaction (default 32). */
  maxBatchesPerCommit?: number;
  /** Most open sessions (default 10 000). */
  maxSessions?: number;
  /** Deadline of each callback call (ms, default 10 000). */
  callbackTimeoutMs?: number;
  /** Backoff between callback attempts (ms, default 100 doubling to 5 000). */
  callbackRetryMinMs?: number;
  callbackRetryMaxMs?: number;
  /**
   * A session with no open, no batch written and no callback delivered for this long is forgotten, journal included
   * (ms, default 1 200 000: twice the distributors' default, so that they close theirs first; 0: never).
   */
  sessionIdleMs?: number;
  /** Statuses owed to a callback object nobody serves for this long are given up, logged and counted (ms, default 600 000; 0: never). */
  callbackGiveUpMs?: number;
  /** How long close(id) and indexer.close() wait for callbacks still owed (ms, default 3 000: inside a caller's 5 s deadline). */
  closeWaitMs?: number;
  /**
   * Collections added while running (the config server's, --config-service): asked when a session is opened on a
   * collection not served; true opens its database and serves it from then on. Default: none (unknown_collection).
   */
  configured?: (collection: string) => Promise<boolean>;
  /** The batch key's signer (ESP_BATCH_KEY_FILE): unpredictable session object ids, batches taken only with their token. */
  batchSigner?: BatchSigner;
  /**
   * The collections of the configuration (the config server's get_collections), opened at start beside
   * `collections`: a collection added in an earlier run (a crawl's) is searchable at once after a restart, before
   * anything is fed into it. When it fails, the indexer starts with `collections` and opens the others on first use.
   */
  configuredCollections?: () => Promise<string[]>;
  /** Bind the factory and search objects in the name server (default true). */
  bind?: boolean;
  logger?: Logger;
}

export interface Indexer {
  /** AOR of coreprocessing::session_factory (bound at INDEXING_DISPATCHER_NAME). */
  readonly factory: Aor;
  /** AOR of indexing::search (bound at INDEX_SEARCH_NAME). */
  readonly search: Aor;
  /** Port of every object of this indexer (base port + 390). */
  readonly port: number;
  readonly collections: readonly string[];
  /** Open sessions (closed ones still delivering callbacks included). */
  sessionIds(): number[];
  /** Sessions reaped (idle) and statuses given up (callback object gone) since start. */
  readonly counters: { readonly reaped: number; readonly callbacksGivenUp: number };
  /** Holds every collection's writes until the returned function is called (maintenance, tests). */
  holdWrites(): () => void;
  /** Stops taking calls, writes what is queued, waits (bounded) for callbacks owed, closes the databases. */
  close(): Promise<void>;
}

export async function startIndexer(opts: IndexerOptions): Promise<Indexer> {
  const { mw } = opts;
  const log = opts.logger ?? mw.log;
  const names = [...new Set(opts.collections)];
  if (names.length === 0) throw new Error('startIndexer: no collection to serve');
  const bad = names.find((c) => !isCollectionName(c));
  if (bad !== undefined) throw new Error(`startIndexer: ${JSON.stringify(bad)} is not a valid collection name`);
  const port = (opts.basePort ?? DEFAULT_BASE_PORT) + INTERNAL_PORT_OFFSET;

  if (opts.configuredCollections) {
    try {
      for (const c of await opts.configuredCollections()) if (isCollectionName(c) && !names.includes(c)) names.push(c);
    } catch (err) {
      log.warn({ err: (err as Error).message }, "cannot list the configuration's collections: the others are opened when first used");
    }
  }
  const collections = OpenCollections.open({ dataDir: opts.dataDir, maxBatchesPerCommit: opts.maxBatchesPerCommit ?? 32, log }, names);
  const configured = opts.configured;
  const admission = configured && new CollectionAdmission({ served: (c) => collections.has(c), configured, open: (name) => collections.add(name), log });

  const closeWaitMs = opts.closeWaitMs ?? 3_000;
  const dispatcher = new IndexingDispatcher(collections, {
    mw,
    port,
    limits: { maxQueuedBatches: opts.maxQueuedBatches ?? DEFAULT_QUEUE_BATCHES, maxPendingCallbacks: opts.maxPendingCallbacks ?? 1024 },
    maxSessions: opts.maxSessions ?? 10_000,
    retry: { initialMs: opts.callbackRetryMinMs ?? DEFAULT_CALLBACK_RETRY.initialMs, maxMs: opts.callbackRetryMaxMs ?? DEFAULT_CALLBACK_RETRY.maxMs },
    callbackTimeoutMs: opts.callbackTimeoutMs ?? 10_000,
    closeWaitMs,
    idleMs: opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    callbackGiveUpMs: opts.callbackGiveUpMs ?? DEFAULT_CALLBACK_GIVE_UP_MS,
    batchSigner: opts.batchSigner,
    log,
  });

  const objects: ServerObject<never>[] = [];
  let stopRelease: (() => Promise<void>) | undefined;
  try {
    await dispatcher.restore();
    // feed clients may only add content: they ask here to have theirs deleted at its final status (docs/claim-check.md)
    stopRelease = await serveContentRelease(mw, { buckets: [DEFAULT_CONTENT_BUCKET], log });
    // with a config server, a collection added there is opened before the dispatcher looks for it
    const factory: Implementation<typeof coreSessionFactoryInterface> = admission
      ? {
          create: async (id, collection, callback) => (await admission.admit(collection), dispatcher.create(id, collection, callback)),
          recreate: async (id, collection, callback) => (await admission.admit(collection), dispatcher.recreate(id, collection, callback)),
          close: (id) => dispatcher.close(id),
        }
      : dispatcher;
    const factoryObj = await mw.activate(coreSessionFactoryInterface, factory, { object_id: FACTORY_OBJECT_ID, port, name: INDEXING_DISPATCHER_NAME });
    objects.push(factoryObj as unknown as ServerObject<never>);
    // a search of a collection added there (not fed yet) opens it too: no hits rather than unknown_collection
    const searcher = new SearchService(collections);
    const search: Implementation<typeof searchInterface> = admission
      ? {
          get: async (collection, id) => (await admission.admit(collection), searcher.get(collection, id)),
          search: async (collection, query, limit, offset) => (await admission.admit(collection), searcher.search(collection, query, limit, offset)),
          count: async (collection) => (await admission.admit(collection), searcher.count(collection)),
        }
      : searcher;
    const searchObj = await mw.activate(searchInterface, search, { object_id: SEARCH_OBJECT_ID, port, name: INDEX_SEARCH_NAME });
    objects.push(searchObj as unknown as ServerObject<never>);
    if (opts.bind ?? true) {
      // a binding left by an indexer that died (on another host, or under another object id) is taken over
      const bindOpts = { attempts: 4, holderHint: 'is another indexer running?' };
      await bindOrTakeOver(mw, coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME, factoryObj.aor, bindOpts);
      await bindOrTakeOver(mw, searchInterface, INDEX_SEARCH_NAME, searchObj.aor, bindOpts);
    }
  } catch (err) {
    await stopRelease?.();
    await dispatcher.shutdown();
    for (const o of objects) await mw.deactivate(o);
    await Promise.all([...dispatcher.sessions.values()].map((s) => s.sender.stop()));
    collections.close();
    throw err;
  }

  let closing: Promise<void> | undefined;
  const [factoryObj, searchObj] = objects as [ServerObject<never>, ServerObject<never>];
  return {
    factory: factoryObj.aor,
    search: searchObj.aor,
    port,
    get collections() {
      return [...collections.keys()];
    },
    sessionIds: () => [...dispatcher.sessions.keys()],
    counters: dispatcher.counters,
    holdWrites: () => collections.holdWrites(),
    close() {
      closing ??= (async () => {
        await stopRelease?.();
        await dispatcher.shutdown();
        for (const o of objects) await mw.deactivate(o);
        if (!(await collections.idle(closeWaitMs))) log.error('closing with batches not written (the disk keeps failing)');
        const senders = [...dispatcher.sessions.values()].map((s) => s.sender);
        const delivered = await Promise.all(senders.map((s) => s.idle(closeWaitMs)));
        const owed = senders.reduce((n, s) => n + s.backlog, 0);
        if (delivered.includes(false)) log.warn({ callbacks_owed: owed }, 'closing with callbacks not delivered: they stay in the outbox for the next start');
        // a call still in flight (a slow client) may finish within the deadline; its acknowledgement is then kept
        await Promise.race([Promise.all(senders.map((s) => s.stop())), new Promise((r) => setTimeout(r, closeWaitMs).unref())]);
        collections.close();
        log.info({ sessions: dispatcher.sessions.size }, 'indexer closed');
      })();
      return closing;
    },
  };
}
