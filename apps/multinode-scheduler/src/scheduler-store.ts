/**
 * What the multinode scheduler must not forget across a restart (kill -9 included): the collections it serves with
 * their epochs, the crawl queue entries not yet handed to a node scheduler, the site routes, the per-IP crawl
 * permissions, the counters the node schedulers reported (what `crawl status` shows) and (optionally useful) the
 * DNS cache. The machine writes through this interface as it changes;
 * `SqliteSchedulerStore` keeps it on disk, `NullSchedulerStore` keeps nothing (the scheduler without `--data`).
 *
 *   const store = new SqliteSchedulerStore('.esp/mns');
 *   machine.restore(store.load());            // before the configured collections are reconciled
 *   store.transaction(() => machine.handle(from, dict, priority));
 */
import type { FscmtAddrinfoResult, FscmtQueueEntry, FswcuDict } from '@esp/codecs';

export interface StoredSchedulerCollection {
  name: string;
  dspec: FswcuDict;
  epoch: number;
  state: number;
  removing: boolean;
}

/** A crawl queue entry; `key` orders the queue (entries put in front get smaller keys) and identifies it. */
export interface StoredEntry {
  key: number;
  collection: string;
  entry: FscmtQueueEntry;
}

export interface StoredDns {
  host: string;
  addrinfo: FscmtAddrinfoResult;
  resolvedAt: number;
  ttl: number;
  /** Absolute time (the scheduler's clock, ms) after which the answer is not used. */
  expires: number;
}

export interface StoredSchedulerState {
  collections: StoredSchedulerCollection[];
  /** Sorted by key. */
  entries: StoredEntry[];
  routes: Array<{ collection: string; site: string; node: string }>;
  ips: Array<{ ip: string; node: string; site: string }>;
  dns: StoredDns[];
  /** Per collection and node, the sums of the counters it reported (CMD_UM_STAT deltas). */
  stats: StoredStats[];
}

export interface StoredStats {
  collection: string;
  node: string;
  counters: Record<string, number>;
}

export interface SchedulerStore {
  load(): StoredSchedulerState;
  putCollection(c: StoredSchedulerCollection): void;
  /** Forgets the collection with its entries and routes. */
  deleteCollection(name: string): void;
  putEntry(e: StoredEntry): void;
  deleteEntry(key: number): void;
  deleteEntries(collection: string): void;
  putRoute(collection: string, site: string, node: string): void;
  deleteRoute(collection: string, site: string): void;
  putIp(ip: string, node: string, site: string): void;
  /** Without site: every site of the IP. */
  deleteIp(ip: string, site?: string): void;
  putDns(d: StoredDns): void;
  /** The node's counter sums for the collection, as they are now (replacing what was stored). */
  putStats(s: StoredStats): void;
  /** fn as one atomic unit: a batch of messages commits together (nested calls join the outer one). */
  transaction(fn: () => void): void;
  close(): void;
}

/** Keeps nothing: a scheduler without a data directory starts empty after a restart. */
export class NullSchedulerStore implements SchedulerStore {
  load(): StoredSchedulerState {
    return { collections: [], entries: [], routes: [], ips: [], dns: [], stats: [] };
  }
  putCollection(): void {
    // nothing kept
  }
  deleteCollection(): void {
    // nothing kept
  }
  putEntry(): void {
    // nothing kept
  }
  deleteEntry(): void {
    // nothing kept
  }
  deleteEntries(): void {
    // nothing kept
  }
  putRoute(): void {
    // nothing kept
  }
  deleteRoute(): void {
    // nothing kept
  }
  putIp(): void {
    // nothing kept
  }
  deleteIp(): void {
    // nothing kept
  }
  putDns(): void {
    // nothing kept
  }
  putStats(): void {
    // nothing kept
  }
  transaction(fn: () => void): void {
    fn();
  }
  close(): void {
    // nothing kept
  }
}
