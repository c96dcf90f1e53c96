/**
 * ETag / Last-Modified per page kept in the node's store: read from memory (every request asks), written through to
 * the page's record, so a crawl round after a restart still asks conditionally.
 *
 *   const validators = new StoredPageValidators(store, stored.validators);
 */
import { MemoryPageValidators, type PageValidators, type Validators } from '../page-validators';
import type { NodeStore, StoredValidators } from './node-store';

export class StoredPageValidators implements PageValidators {
  private readonly memory = new MemoryPageValidators();

  constructor(
    private readonly store: NodeStore,
    restored: StoredValidators[] = [],
  ) {
    for (const v of restored) this.memory.set(v.collection, v.uri, { etag: v.etag, lastModified: v.lastModified });
  }

  get(collection: string, uri: string): Validators | undefined {
    return this.memory.get(collection, uri);
  }

  set(collection: string, uri: string, v: Validators): void {
    const before = this.memory.get(collection, uri);
    this.memory.set(collection, uri, v);
    const now = this.memory.get(collection, uri);
    if (before?.etag !== now?.etag || before?.lastModified !== now?.lastModified) this.store.putValidators({ collection, uri, etag: now?.etag, lastModified: now?.lastModified });
  }

  delete(collection: string, uri: string): void {
    if (!this.memory.get(collection, uri)) return;
    this.memory.delete(collection, uri);
    this.store.putValidators({ collection, uri, etag: undefined, lastModified: undefined });
  }

  /** The collection is removed: its records go with it (NodeStore.deleteCollection). */
  forgetCollection(collection: string): void {
    this.memory.forgetCollection(collection);
  }
}
