import { SystemResourceError } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { systemClock, type Clock } from '@esp/timers';

/**
 * The collection holder of a content distributor: which collections `create_session` accepts (an unknown one
 * raises unknown_collection). Either a fixed list (--collections) or the config server (--config-service).
 */
export interface CollectionHolder {
  /**
   * True when the collection is configured. Throws SystemResourceError (retryable) when it cannot tell: the
   * collection is not among those last known and the config server does not answer.
   */
  has(collection: string): Promise<boolean>;
  /** The collections as last known, for messages and logs. */
  names(): string[];
}

export function fixedCollections(names: readonly string[]): CollectionHolder {
  const set = new Set(names);
  return { has: (c) => Promise.resolve(set.has(c)), names: () => [...set] };
}

export interface ConfigServiceCollectionsOptions {
  /** get_collections() of the config server at fds/configservice: the collection names. */
  fetch: () => Promise<string[]>;
  /** Collections accepted whatever the config server says (--collections given as well). */
  always?: readonly string[];
  /** A list older than this is asked for again before it answers (default 10 s): removals reach us that fast. */
  maxAgeMs?: number;
  clock?: Clock;
  log: Logger;
}

/**
 * The collection holder from the config server. A collection not in the list is looked up again at once (so a
 * collection added to the config server is accepted by the next create_session, without a restart and without
 * waiting for a poll); a known one is served from the list while it is younger than maxAgeMs. Lookups are shared:
 * a burst of create_session calls makes one get_collections call. When the config server does not answer, the last
 * list stays in force, and a collection outside it gets system_resource_error (retry later) rather than a final
 * unknown_collection.
 */
export class ConfigServiceCollections implements CollectionHolder {
  private known = new Set<string>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private readonly clock: Clock;

  constructor(private readonly o: ConfigServiceCollectionsOptions) {
    this.clock = o.clock ?? systemClock;
  }

  names(): string[] {
    return [...new Set([...(this.o.always ?? []), ...this.known])];
  }

  async has(collection: string): Promise<boolean> {
    if (this.o.always?.includes(collection)) return true;
    const fresh = this.clock.now() - this.fetchedAt < (this.o.maxAgeMs ?? 10_000);
    if (fresh && this.known.has(collection)) return true;
    try {
      await this.refresh();
    } catch (err) {
      if (this.known.has(collection)) {
        this.o.log.warn({ collection, err: (err as Error).message }, 'config server not answering; using the collections last known');
        return true;
      }
      throw new SystemResourceError(`cannot tell whether collection "${collection}" exists: the config server does not answer (${(err as Error).message}); retry later`, { collection });
    }
    return this.known.has(collection);
  }

  /** Asks the config server now (shared with a lookup already under way). */
  refresh(): Promise<void> {
    this.inFlight ??= this.o
      .fetch()
      .then((names) => {
        const next = new Set(names);
        const added = [...next].filter((n) => !this.known.has(n));
        const removed = [...this.known].filter((n) => !next.has(n));
        if (added.length || removed.length) this.o.log.info({ collections: [...next], added, removed }, 'collections from the config server');
        this.known = next;
        this.fetchedAt = this.clock.now();
      })
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }
}
