/**
 * What a node scheduler knows of page ownership, per collection: the checksum of each page it owns (removing one
 * tells the duplicate server, PPDUP_REMOVE) and, per checksum, its own pages that another URI owns (recrawled when
 * the duplicate server says that owner is gone, MS-FSCMT 3.1.5.25).
 *
 *   ownership.own('web', uri, csum);
 *   ownership.disown('web', uri); // the checksum to send PPDUP_REMOVE with, if the page was owned here
 *
 * Each change is written through the node's store (before the page is fed), and `restore` takes it back.
 */
import type { NodeStore, StoredPageChecksum } from './store/node-store';
import { NullNodeStore } from './store/null-node-store';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const siteOfUri = (uri: string): string | undefined => {
  try {
    return new URL(uri).host.toLowerCase();
  } catch {
    return undefined;
  }
};

export class PageOwnership {
  /** collection -> URI -> checksum of the pages this node owns. */
  private readonly owned = new Map<string, Map<string, Uint8Array>>();
  /** collection -> checksum (hex) -> URIs of this node's pages with that content that another URI owns. */
  private readonly duplicates = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly store: NodeStore = new NullNodeStore()) {}

  restore(owned: StoredPageChecksum[], duplicates: StoredPageChecksum[]): void {
    for (const p of owned) this.remember(p.collection, p.uri, p.csum);
    for (const p of duplicates) this.copy(p.collection, p.uri, p.csum);
  }

  own(collection: string, uri: string, csum: Uint8Array): void {
    this.store.own({ collection, uri, csum });
    this.remember(collection, uri, csum);
  }

  private remember(collection: string, uri: string, csum: Uint8Array): void {
    let mine = this.owned.get(collection);
    if (!mine) this.owned.set(collection, (mine = new Map()));
    mine.set(uri, csum);
  }

  /** Is the page owned here with this checksum? */
  ownsWith(collection: string, uri: string, csum: Uint8Array): boolean {
    const mine = this.owned.get(collection)?.get(uri);
    return mine !== undefined && Buffer.compare(mine, csum) === 0;
  }

  /** Forgets an owned page; its checksum, or undefined when this node did not own it. */
  disown(collection: string, uri: string): Uint8Array | undefined {
    const mine = this.owned.get(collection);
    const csum = mine?.get(uri);
    if (csum) this.store.disown(collection, uri);
    mine?.delete(uri);
    return csum;
  }

  /** A page of this node whose content another URI owns. */
  duplicate(collection: string, uri: string, csum: Uint8Array): void {
    this.store.duplicate({ collection, uri, csum });
    this.copy(collection, uri, csum);
  }

  private copy(collection: string, uri: string, csum: Uint8Array): void {
    let byCsum = this.duplicates.get(collection);
    if (!byCsum) this.duplicates.set(collection, (byCsum = new Map()));
    let uris = byCsum.get(hex(csum));
    if (!uris) byCsum.set(hex(csum), (uris = new Set()));
    uris.add(uri);
  }

  /** The owner of `csum` is gone: this node's copies, forgotten here (they are recrawled and one becomes the owner). */
  takeDuplicates(collection: string, csum: Uint8Array): string[] {
    const byCsum = this.duplicates.get(collection);
    const uris = byCsum?.get(hex(csum));
    byCsum?.delete(hex(csum));
    if (uris) this.store.duplicatesTaken(collection, csum);
    return uris ? [...uris] : [];
  }

  /** The site is deleted: its pages that another URI owns go with it (a promotion must not recrawl them). */
  forgetDuplicatesOn(collection: string, site: string): void {
    for (const uris of this.duplicates.get(collection)?.values() ?? []) {
      for (const u of uris) if (siteOfUri(u) === site) uris.delete(u);
    }
  }

  /** The collection is removed. */
  forget(collection: string): void {
    this.owned.delete(collection);
    this.duplicates.delete(collection);
  }
}
