/**
 * The node scheduler's feeding side: one feeding client per collection, opened on first use, its partial batches
 * flushed at least every `flushMs`, and the collections whose feeding the multinode scheduler suspended.
 *
 *   const feeders = new CollectionFeeders({ mw, enabled: true, log, onFailed: (c) => machine.feedFailed(c) });
 *   await feeders.feed('web', [{ id: uri, remove: true }]);
 */
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';

export interface CollectionFeedersOptions {
  mw: Middleware;
  /** Feed at all (off: every feed resolves at once, nothing is sent). */
  enabled: boolean;
  /** A fed document failed in the feeding chain. */
  onFailed: (collection: string) => void;
  /** A fed document (not a remove) reached its final outcome (completed or failed). */
  onOutcome?: (collection: string, uri: string) => void;
  /** Partial batches leave at least this often (default 250 ms). */
  flushMs?: number;
  log?: Logger;
}

export class CollectionFeeders {
  private readonly clients = new Map<string, Promise<FeedingClient>>();
  private readonly suspended = new Set<string>();
  /** "<collection> <id>" of removes sent and not finished: their outcomes are not those of fed pages */
  private readonly removes = new Set<string>();
  /** Per collection, documents handed to the feeding client without their final outcome yet. */
  private readonly unfinished = new Map<string, number>();
  private readonly flusher: NodeJS.Timeout;

  constructor(private readonly opts: CollectionFeedersOptions) {
    this.flusher = setInterval(() => {
      for (const c of this.clients.values()) void c.then((client) => client.flush()).catch(() => undefined);
    }, opts.flushMs ?? 250);
    this.flusher.unref();
  }

  /** Whether pages of this collection go to the feeding chain now. */
  feeding(collection: string): boolean {
    return this.opts.enabled && !this.suspended.has(collection);
  }

  setSuspended(collection: string, suspended: boolean): void {
    if (suspended) this.suspended.add(collection);
    else this.suspended.delete(collection);
  }

  async feed(collection: string, docs: FeedDocument[]): Promise<void> {
    if (!this.opts.enabled || docs.length === 0) return;
    const client = await this.client(collection);
    for (const d of docs) {
      if (d.remove) this.removes.add(`${collection} ${d.id}`);
      this.count(collection, 1);
      try {
        await client.feed(d);
      } catch (err) {
        this.count(collection, -1);
        throw err;
      }
    }
  }

  /** Documents of the collection fed and not yet completed or failed (a crawl is not done before they are). */
  inFlight(collection: string): number {
    return this.unfinished.get(collection) ?? 0;
  }

  private count(collection: string, n: number): void {
    this.unfinished.set(collection, Math.max(0, (this.unfinished.get(collection) ?? 0) + n));
  }

  /** Flushes and closes every session. */
  async close(): Promise<void> {
    clearInterval(this.flusher);
    for (const c of this.clients.values()) {
      const client = await c.catch(() => undefined);
      await client?.flush().catch(() => undefined);
      await client?.close().catch(() => undefined);
    }
  }

  private client(collection: string): Promise<FeedingClient> {
    const known = this.clients.get(collection);
    if (known) return known;
    const log = this.opts.log ?? this.opts.mw.log;
    const opened = FeedingClient.open({
      mw: this.opts.mw,
      collection,
      log,
      onOutcome: (id, outcome) => {
        this.count(collection, -1);
        if (!this.removes.delete(`${collection} ${id}`)) this.opts.onOutcome?.(collection, id);
        if (outcome.kind !== 'failed') return;
        this.opts.onFailed(collection);
        log.warn({ collection, uri: id, error: outcome.error.name, description: outcome.error.description }, 'fed document failed in the feeding chain');
      },
    });
    this.clients.set(collection, opened);
    // a session that cannot be opened is tried again by the next feed
    opened.catch((err: Error) => {
      log.error({ collection, err: err.message }, 'cannot open a feeding session');
      this.clients.delete(collection);
    });
    return opened;
  }
}
