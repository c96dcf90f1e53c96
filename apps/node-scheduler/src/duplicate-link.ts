/**
 * A node scheduler's link to its duplicate server: one server, a primary with a replica (duplicate-failover.ts),
 * or none (every page is its own owner). The link shares the node's crawl endpoint, so the node routes the
 * messages that come from the link's addresses to it.
 *
 *   const dup = await connectDuplicateServer(mw, endpoint, { cluster, nodeId, dup: 'dup1', onPromote, clock });
 *   const owner = await ownerOf(dup.link, 'web', uri, csum, log);
 */
import { buildFscmtDuplicateServerMessage, type FswcuDict } from '@esp/codecs';
import { crawlAddress, DuplicateServerClient, DuplicateServerTimeout, type CrawlEndpoint, type CrawlInbound } from '@esp/crawl-bus';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { retry, type Clock } from '@esp/timers';
import { DuplicateServerFailover } from './duplicate-failover';

export interface DuplicateLink {
  setConfig(collection: string, config: FswcuDict): Promise<void>;
  add(collection: string, uri: string, csum: Uint8Array): Promise<{ ownUri: string }>;
  remove(collection: string, uri: string, csum: Uint8Array): Promise<{ ownUri: string }>;
  confRemove(collection: string): void;
  confRemove2(collection: string): void;
  handle(m: CrawlInbound): boolean;
  stop(): Promise<void>;
}

/** No duplicate server: every page owns itself, and there is nothing to tell anyone. */
const noDuplicateServer: DuplicateLink = {
  setConfig: () => Promise.resolve(),
  add: (_collection, uri) => Promise.resolve({ ownUri: uri }),
  remove: (_collection, uri) => Promise.resolve({ ownUri: uri }),
  confRemove: () => undefined,
  confRemove2: () => undefined,
  handle: () => false,
  stop: () => Promise.resolve(),
};

export interface DuplicateServerOptions {
  cluster: string;
  nodeId: string;
  /** Id of the duplicate server (address dup/<id>). */
  dup?: string;
  /** Id of its replica, taken over when the primary is dead. */
  dupReplica?: string;
  /** The primary is dead when operations waited this long without a word from it (default 10 s). */
  dupDeadMs?: number;
  /** A checksum operation unanswered this long is sent again (default 60 s). */
  dupTimeoutMs?: number;
  /** The owner of a checksum is gone (MS-FSCMT 3.1.5.25). */
  onPromote: (collection: string, csum: Uint8Array) => void;
  clock: Clock;
  log?: Logger;
}

export interface DuplicateConnection {
  link: DuplicateLink;
  /** Messages from these addresses go to the link. */
  addresses: ReadonlySet<string>;
}

export async function connectDuplicateServer(mw: Middleware, endpoint: CrawlEndpoint, opts: DuplicateServerOptions): Promise<DuplicateConnection> {
  if (opts.dup === undefined) return { link: noDuplicateServer, addresses: new Set() };
  const self = { cluster: opts.cluster, role: 'ns' as const, id: opts.nodeId };
  const primaryAddress = crawlAddress({ cluster: opts.cluster, role: 'dup', id: opts.dup });
  const client = (server: string): Promise<DuplicateServerClient> =>
    DuplicateServerClient.start(mw.bus, { self, server, node: opts.nodeId, endpoint, timeoutMs: opts.dupTimeoutMs ?? 60_000, log: opts.log, onPromote: opts.onPromote });
  if (opts.dupReplica === undefined) return { link: await client(primaryAddress), addresses: new Set([primaryAddress]) };
  const replicaAddress = crawlAddress({ cluster: opts.cluster, role: 'dup', id: opts.dupReplica });
  const link = DuplicateServerFailover.start({
    primary: await client(primaryAddress),
    primaryAddress,
    replica: await client(replicaAddress),
    replicaAddress,
    clock: opts.clock,
    deadAfterMs: opts.dupDeadMs ?? 10_000,
    probe: () => endpoint.send(primaryAddress, buildFscmtDuplicateServerMessage({ command: 'PPDUP_KEEPALIVE' }), 1),
    log: opts.log,
  });
  return { link, addresses: new Set([primaryAddress, replicaAddress]) };
}

/** Unanswered adds sent again at most this often in all, so that a duplicate server that is gone fails the page. */
const ADD_ATTEMPTS = 5;

/**
 * The URI that owns a page's content. An add is idempotent (the same URI gets the same owner), so one lost on the way
 * (a NATS restart) is sent again at once: the client's own timeout was the wait. The first add goes out without the
 * retry loop (one per page; the loop and its closures only once one timed out).
 */
export async function ownerOf(link: DuplicateLink, collection: string, uri: string, csum: Uint8Array, log?: Logger): Promise<string> {
  try {
    return (await link.add(collection, uri, csum)).ownUri;
  } catch (err) {
    if (!(err instanceof DuplicateServerTimeout)) throw err;
    log?.warn({ collection, uri, attempt: 1 }, 'no answer from the duplicate server: PPDUP_ADD sent again');
  }
  return retry(async () => (await link.add(collection, uri, csum)).ownUri, {
    attempts: ADD_ATTEMPTS - 1,
    initialMs: 0,
    maxMs: 0,
    retryable: (err) => err instanceof DuplicateServerTimeout,
    onRetry: (_err, attempt) => log?.warn({ collection, uri, attempt: attempt + 2 }, 'no answer from the duplicate server: PPDUP_ADD sent again'),
  });
}
