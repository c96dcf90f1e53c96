/**
 * A Map in order of last write that keeps at most `max` entries, dropping the least recently written first: the
 * Item Log and Item Operation Sequence Log tables (MS-FSDPD 3.7.1) of the Status interface.
 *
 *   const log = new RecencyMap<string, LogEntry>(10_000);
 *   log.write('doc-1', entry);     // re-written keys move to the end; the oldest go once over 10,000
 *
 * Why an iterator kept across writes: V8's Map leaves a deleted entry as a hole until the table is rebuilt, and a new
 * iterator starts at the first slot, so `keys().next()` for every eviction walked over all the holes the evictions
 * before it had left, which once the item log was full cost more than the item processor's whole pipeline. A Map
 * iterator stays valid while the map changes and goes on where it stopped; every entry before it has
 * been deleted (it only moves on to evict), so its next key is the oldest entry.
 */
export class RecencyMap<K, V> extends Map<K, V> {
  private evictor: IterableIterator<K> | undefined;

  constructor(readonly max: number) {
    super();
  }

  /** Sets `key` as the most recent entry and drops the oldest ones beyond `max`. */
  write(key: K, value: V): void {
    this.delete(key); // re-inserted at the end: the order is the order of last write
    this.set(key, value);
    while (this.size > this.max) {
      this.evictor ??= this.keys();
      let oldest = this.evictor.next();
      if (oldest.done) {
        // an iterator that once reported done stays done: start again from the first entry
        this.evictor = this.keys();
        oldest = this.evictor.next();
        if (oldest.done) return;
      }
      this.delete(oldest.value);
    }
  }

  override clear(): void {
    super.clear();
    this.evictor = undefined;
  }
}
