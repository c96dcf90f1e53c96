/**
 * A node scheduler's state kept in memory, with the records of `SqliteNodeStore` (one per URI and collection): what
 * the machine's specs restart a machine on, a second machine loading what the first wrote, with no disk involved.
 */
import type { FscmtQueueEntry } from '@esp/codecs';
import { emptyNodeState, URI_STATES, type NodeStore, type StoredNodeCollection, type StoredNodeState, type StoredPageChecksum, type StoredRobots, type StoredRoute } from './node-store';

interface UriRecord {
  site: string;
  state: number;
  key: number;
  depth: number;
  entry: FscmtQueueEntry | undefined;
  fed: boolean;
  etag?: string;
  lastModified?: string;
}

interface CollectionRecords {
  config: StoredNodeCollection | undefined;
  routes: Map<string, string>;
  uris: Map<string, UriRecord>;
  owned: Map<string, Uint8Array>;
  /** checksum (hex) -> URIs */
  duplicates: Map<string, Map<string, Uint8Array>>;
  sitemaps: Set<string>;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export class MemoryNodeStore implements NodeStore {
  private readonly collections = new Map<string, CollectionRecords>();
  private readonly robots = new Map<string, StoredRobots>();
  private firstKey = 0;
  private lastKey = 0;

  load(): StoredNodeState {
    const state = emptyNodeState();
    for (const [name, c] of this.collections) {
      if (c.config) state.collections.push(c.config);
      for (const [site, node] of c.routes) state.routes.push({ collection: name, site, node });
      for (const [uri, r] of c.uris) {
        if (r.state === URI_STATES.QUEUED || r.state === URI_STATES.IN_FLIGHT)
          state.queued.push({ collection: name, site: r.site, key: r.key, entry: r.entry as FscmtQueueEntry, inFlight: r.state === URI_STATES.IN_FLIGHT });
        else if (r.state === URI_STATES.DONE) state.done.push({ collection: name, site: r.site, uri, fed: r.fed, depth: r.depth });
        else state.forwarded.push({ collection: name, site: r.site, uri, depth: r.depth, entry: r.state === URI_STATES.FORWARDED ? r.entry : undefined });
      }
      for (const [uri, r] of c.uris) if (r.etag !== undefined || r.lastModified !== undefined) state.validators.push({ collection: name, uri, etag: r.etag, lastModified: r.lastModified });
      for (const [uri, csum] of c.owned) state.owned.push({ collection: name, uri, csum });
      for (const uris of c.duplicates.values()) for (const [uri, csum] of uris) state.duplicates.push({ collection: name, uri, csum });
      for (const origin of c.sitemaps) state.sitemaps.push({ collection: name, origin });
    }
    state.queued.sort((a, b) => a.key - b.key);
    state.robots = [...this.robots.values()];
    return state;
  }

  putCollection(c: StoredNodeCollection): void {
    this.of(c.name).config = c;
  }

  deleteCollection(name: string): void {
    this.collections.delete(name);
  }

  putRoute(r: StoredRoute): void {
    this.of(r.collection).routes.set(r.site, r.node);
  }

  queued(collection: string, site: string, entry: FscmtQueueEntry, front: boolean): void {
    const key = front ? --this.firstKey : ++this.lastKey;
    const was = this.of(collection).uris.get(entry.uri.uri);
    this.of(collection).uris.set(entry.uri.uri, { site, state: URI_STATES.QUEUED, key, depth: 0, entry, fed: false, etag: was?.etag, lastModified: was?.lastModified });
  }

  taken(collection: string, uri: string): void {
    const r = this.collections.get(collection)?.uris.get(uri);
    if (r?.state === URI_STATES.QUEUED) r.state = URI_STATES.IN_FLIGHT;
  }

  done(collection: string, site: string, uri: string, fed: boolean, depth: number): void {
    const was = this.of(collection).uris.get(uri);
    this.of(collection).uris.set(uri, { site, state: URI_STATES.DONE, key: 0, depth, entry: undefined, fed, etag: was?.etag, lastModified: was?.lastModified });
  }

  putValidators(v: { collection: string; uri: string; etag: string | undefined; lastModified: string | undefined }): void {
    const r = this.collections.get(v.collection)?.uris.get(v.uri);
    if (!r) return;
    r.etag = v.etag;
    r.lastModified = v.lastModified;
  }

  unfed(collection: string, uris: string[]): void {
    const records = this.collections.get(collection)?.uris;
    for (const uri of uris) {
      const r = records?.get(uri);
      if (r) r.fed = false;
    }
  }

  forwarded(collection: string, site: string, entry: FscmtQueueEntry, depth: number): void {
    this.of(collection).uris.set(entry.uri.uri, { site, state: URI_STATES.FORWARDED, key: 0, depth, entry, fed: false });
  }

  forwardsConfirmed(collection: string, uris: string[]): void {
    const records = this.collections.get(collection)?.uris;
    for (const uri of uris) {
      const r = records?.get(uri);
      if (r?.state === URI_STATES.FORWARDED) {
        r.state = URI_STATES.ROUTED;
        r.entry = undefined;
      }
    }
  }

  own(p: StoredPageChecksum): void {
    this.of(p.collection).owned.set(p.uri, p.csum);
  }

  disown(collection: string, uri: string): void {
    this.collections.get(collection)?.owned.delete(uri);
  }

  duplicate(p: StoredPageChecksum): void {
    const byCsum = this.of(p.collection).duplicates;
    let uris = byCsum.get(hex(p.csum));
    if (!uris) byCsum.set(hex(p.csum), (uris = new Map()));
    uris.set(p.uri, p.csum);
  }

  duplicatesTaken(collection: string, csum: Uint8Array): void {
    this.collections.get(collection)?.duplicates.delete(hex(csum));
  }

  putRobots(r: StoredRobots): void {
    this.robots.set(r.origin, r);
  }

  sitemapsRead(collection: string, origin: string): void {
    this.of(collection).sitemaps.add(origin);
  }

  whenDurable(fn: () => void): void {
    fn();
  }

  close(): void {
    // nothing to release
  }

  private of(name: string): CollectionRecords {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = { config: undefined, routes: new Map(), uris: new Map(), owned: new Map(), duplicates: new Map(), sitemaps: new Set() }));
    return c;
  }
}
