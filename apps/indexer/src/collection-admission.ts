import { SystemResourceError } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { isCollectionName } from './collection-store';

export interface CollectionAdmissionOptions {
  /** Whether a collection is served now. */
  served: (collection: string) => boolean;
  /** Whether the configuration has it (the config server's get_collections); throws when that cannot be told. */
  configured: (collection: string) => Promise<boolean>;
  /** Opens (creates) the collection's database and serves it from then on. */
  open: (collection: string) => void;
  log: Logger;
}

/**
 * Collections added while the indexer runs (--config-service): a session opened on a collection the indexer does
 * not serve yet is let through when the config server lists the collection: its database is created then, and it is
 * served from then on (search included). Otherwise the dispatcher raises unknown_collection as before. One lookup per
 * collection at a time; a config server that does not answer gives system_resource_error (retry later).
 */
export class CollectionAdmission {
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly o: CollectionAdmissionOptions) {}

  /** Resolves once the collection is served, or when it is not to be (the caller then raises unknown_collection). */
  admit(collection: string): Promise<void> {
    if (this.o.served(collection) || !isCollectionName(collection)) return Promise.resolve();
    let p = this.pending.get(collection);
    if (!p) {
      p = this.lookUp(collection).finally(() => this.pending.delete(collection));
      this.pending.set(collection, p);
    }
    return p;
  }

  private async lookUp(collection: string): Promise<void> {
    let configured: boolean;
    try {
      configured = await this.o.configured(collection);
    } catch (err) {
      throw new SystemResourceError(`cannot tell whether collection "${collection}" exists: the config server does not answer (${(err as Error).message}); retry later`, { collection });
    }
    if (!configured || this.o.served(collection)) return;
    this.o.open(collection);
    this.o.log.info({ collection }, 'collection added by the config server: database opened');
  }
}
