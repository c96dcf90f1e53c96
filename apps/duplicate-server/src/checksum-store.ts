/**
 * The checksum store of MS-FSCMT 3.3.1: per crawl collection, 16-byte checksum -> owner URI and node id, plus the
 * crawl configuration state. The duplicate server machine works against this interface; `SqliteChecksumStore`
 * keeps it on disk, `MemoryChecksumStore` serves the unit tests.
 */
export interface ChecksumOwner {
  uri: string;
  node: string;
}

export type CollectionState = 'active' | 'removing';

export interface StoredCollection {
  name: string;
  /** The crawl configuration dict of PPDUP_SET_CONFIG, as FSWCU bytes. */
  config: Uint8Array;
  state: CollectionState;
}

export interface ChecksumStore {
  collections(): StoredCollection[];
  /** Creates the collection's store if needed and records its configuration. */
  setConfig(name: string, config: Uint8Array): void;
  setState(name: string, state: CollectionState): void;
  /** Forgets the collection entirely (its checksums and configuration). */
  dropCollection(name: string): void;
  /** Deletes every checksum of the collection, keeping its configuration. */
  clearChecksums(name: string): void;
  get(name: string, csum: Uint8Array): ChecksumOwner | undefined;
  /** Adds or overwrites. */
  put(name: string, csum: Uint8Array, owner: ChecksumOwner): void;
  /**
   * Adds the checksum with this owner unless it is known: returns the existing owner, or undefined when this call
   * added it (one statement for a new checksum instead of a lookup and an insert).
   */
  claim(name: string, csum: Uint8Array, owner: ChecksumOwner): ChecksumOwner | undefined;
  delete(name: string, csum: Uint8Array): boolean;
  count(name: string): number;
  /** Where the collection's checksums live (PKT_DBNAME). */
  dbName(name: string): string;
  /** Runs fn as one atomic, durable unit (the group commit of a batch of messages). */
  transaction(fn: () => void): void;
  close(): void;
}

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** In memory, for unit tests of the state machine. */
export class MemoryChecksumStore implements ChecksumStore {
  private readonly cols = new Map<string, { config: Uint8Array; state: CollectionState; sums: Map<string, ChecksumOwner> }>();

  collections(): StoredCollection[] {
    return [...this.cols].map(([name, c]) => ({ name, config: c.config, state: c.state }));
  }
  setConfig(name: string, config: Uint8Array): void {
    const c = this.cols.get(name);
    if (c) c.config = config;
    else this.cols.set(name, { config, state: 'active', sums: new Map() });
  }
  setState(name: string, state: CollectionState): void {
    const c = this.cols.get(name);
    if (c) c.state = state;
  }
  dropCollection(name: string): void {
    this.cols.delete(name);
  }
  clearChecksums(name: string): void {
    this.cols.get(name)?.sums.clear();
  }
  get(name: string, csum: Uint8Array): ChecksumOwner | undefined {
    return this.cols.get(name)?.sums.get(hex(csum));
  }
  put(name: string, csum: Uint8Array, owner: ChecksumOwner): void {
    this.cols.get(name)?.sums.set(hex(csum), { ...owner });
  }
  claim(name: string, csum: Uint8Array, owner: ChecksumOwner): ChecksumOwner | undefined {
    const existing = this.get(name, csum);
    if (existing === undefined) this.put(name, csum, owner);
    return existing;
  }
  delete(name: string, csum: Uint8Array): boolean {
    return this.cols.get(name)?.sums.delete(hex(csum)) ?? false;
  }
  count(name: string): number {
    return this.cols.get(name)?.sums.size ?? 0;
  }
  dbName(name: string): string {
    return `memory:${name}`;
  }
  transaction(fn: () => void): void {
    fn();
  }
  close(): void {
    // nothing to release
  }
}
