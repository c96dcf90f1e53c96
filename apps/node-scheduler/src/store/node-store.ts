/**
 * What a node scheduler must not forget across a restart (kill -9 included), per collection: its configuration, the
 * routes it was told, one record per URI it has seen (queued, done, or forwarded to the multinode scheduler for
 * routing), the pages it owns and its copies of pages owned elsewhere, the sitemaps it has read; and per origin
 * the robots.txt rules with their expiry. The machine writes through this interface as it changes;
 * `SqliteNodeStore` keeps it on disk, `NullNodeStore` keeps nothing (the node scheduler without `--data`: its
 * state lives in the machine's memory only), `MemoryNodeStore` keeps it in memory (the machine's specs restart a
 * machine on it).
 *
 *   const store = new SqliteNodeStore('.esp/ns', 'node1');
 *   machine.restore(store.load());         // after connect, before start
 *   store.whenDurable(() => endpoint.send(to, dict, priority)); // nothing leaves before what led to it is written
 *
 * The record per URI also carries what a later crawl of the URI needs of the previous one: its ETag and
 * Last-Modified date (page-validators.ts), and its depth (a crawl round fetches the known pages again).
 */
import type { FscmtQueueEntry, FswcuDict } from '@esp/codecs';

/** The states of a URI's record. */
export const URI_STATES = {
  /** in its site's queue: fetched after a restart */
  QUEUED: 0,
  /** fetched and its outcome handled (a fed page: its feed acknowledged), or dropped from the queue */
  DONE: 1,
  /** sent to the multinode scheduler for routing; not vouched for by a keep-alive answer yet (sent again) */
  FORWARDED: 2,
  /** sent to the multinode scheduler for routing, and vouched for */
  ROUTED: 3,
  /** taken by the crawler, its outcome not handled yet (a fed page: its feed not acknowledged): fetched again after a restart */
  IN_FLIGHT: 4,
} as const;

export interface StoredNodeCollection {
  name: string;
  dspec: FswcuDict;
  epoch: number;
}

export interface StoredRoute {
  collection: string;
  site: string;
  node: string;
}

/** A queued entry; `key` orders its site's queue (entries put in front get smaller keys). */
export interface StoredQueued {
  collection: string;
  site: string;
  key: number;
  entry: FscmtQueueEntry;
  /** taken by the crawler when the node stopped */
  inFlight: boolean;
}

export interface StoredDone {
  collection: string;
  site: string;
  uri: string;
  /** fed to the index (what delete site / URIs removes) */
  fed: boolean;
  /** its crawl depth when it was fetched; -1: dropped from its queue unfetched */
  depth: number;
}

/** ETag / Last-Modified of a page fetched, for a conditional GET on the next crawl round. */
export interface StoredValidators {
  collection: string;
  uri: string;
  etag: string | undefined;
  lastModified: string | undefined;
}

export interface StoredForwarded {
  collection: string;
  site: string;
  uri: string;
  depth: number;
  /** the entry, while it is not vouched for (it is sent again after a restart) */
  entry: FscmtQueueEntry | undefined;
}

export interface StoredPageChecksum {
  collection: string;
  uri: string;
  csum: Uint8Array;
}

/** robots.txt rules as written: the patterns are compiled again when read back. */
export interface StoredRobotsRules {
  allow: string[];
  disallow: string[];
  crawlDelayMs: number | undefined;
  sitemaps: string[];
}

export interface StoredRobots {
  origin: string;
  rules: StoredRobotsRules;
  /** wall-clock time (ms since the epoch) after which the rules are read again */
  expiresAt: number;
}

export interface StoredNodeState {
  collections: StoredNodeCollection[];
  routes: StoredRoute[];
  /** Sorted by key. */
  queued: StoredQueued[];
  done: StoredDone[];
  forwarded: StoredForwarded[];
  owned: StoredPageChecksum[];
  duplicates: StoredPageChecksum[];
  robots: StoredRobots[];
  sitemaps: Array<{ collection: string; origin: string }>;
  validators: StoredValidators[];
}

export interface NodeStore {
  load(): StoredNodeState;
  putCollection(c: StoredNodeCollection): void;
  /** Forgets the collection with everything kept for it. */
  deleteCollection(name: string): void;
  putRoute(r: StoredRoute): void;
  /** The entry joins its site's queue, at the front or the back. */
  queued(collection: string, site: string, entry: FscmtQueueEntry, front: boolean): void;
  /** The crawler took the queued URI. */
  taken(collection: string, uri: string): void;
  /** The URI was fetched at `depth` and its outcome handled, or dropped from the queue unfetched (depth -1). */
  done(collection: string, site: string, uri: string, fed: boolean, depth: number): void;
  /** The validators of a URI being fetched (both undefined: it has none). */
  putValidators(v: StoredValidators): void;
  /** The fed pages were deleted from the index. */
  unfed(collection: string, uris: string[]): void;
  forwarded(collection: string, site: string, entry: FscmtQueueEntry, depth: number): void;
  /** A keep-alive answer vouched for these forwarded links. */
  forwardsConfirmed(collection: string, uris: string[]): void;
  own(p: StoredPageChecksum): void;
  disown(collection: string, uri: string): void;
  duplicate(p: StoredPageChecksum): void;
  /** The owner of the checksum is gone: its copies here are recrawled. */
  duplicatesTaken(collection: string, csum: Uint8Array): void;
  putRobots(r: StoredRobots): void;
  sitemapsRead(collection: string, origin: string): void;
  /** Runs fn once what was written so far is on disk (at once when it is, or when nothing is kept on disk). */
  whenDurable(fn: () => void): void;
  close(): void;
}

export function emptyNodeState(): StoredNodeState {
  return { collections: [], routes: [], queued: [], done: [], forwarded: [], owned: [], duplicates: [], robots: [], sitemaps: [], validators: [] };
}
