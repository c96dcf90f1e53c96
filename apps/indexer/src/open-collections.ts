/**
 * The collections an indexer has open: per collection its database, document store, session journal and writer,
 * recovered from a stop between a batch's two phases before anything is served. Readers (the dispatcher, search)
 * see it as a map by name.
 *
 *   const collections = OpenCollections.open({ dataDir, names: ['default'], log });
 *   collections.add('news');                 // a collection the config server added
 *   await collections.idle(3000);            // every queued batch written, or false at the deadline
 *   collections.close();
 */
import type { Logger } from '@esp/logging';
import { DocumentStore, openCollectionDb } from './collection-store';
import { CollectionWriter } from './collection-writer';
import type { CollectionContext } from './indexing-dispatcher';
import { SessionJournal } from './session-journal';

export interface OpenCollectionsOptions {
  dataDir: string;
  /** Batches committed together at most (group commit). */
  maxBatchesPerCommit: number;
  log: Logger;
}

export class OpenCollections extends Map<string, CollectionContext> {
  private readonly holds = new Set<() => void>();

  private constructor(private readonly opts: OpenCollectionsOptions) {
    super();
  }

  /** Opens these collections; when one cannot be opened, those opened are closed and the error goes to the caller. */
  static open(opts: OpenCollectionsOptions, names: readonly string[]): OpenCollections {
    const collections = new OpenCollections(opts);
    try {
      for (const name of names) collections.add(name);
    } catch (err) {
      collections.close();
      throw err;
    }
    return collections;
  }

  add(name: string): void {
    const { dataDir, log } = this.opts;
    const db = openCollectionDb(dataDir, name);
    const docs = new DocumentStore(db);
    const journal = new SessionJournal(db);
    const writer = new CollectionWriter(name, db, docs, journal, log.child({ collection: name }), { maxBatchesPerCommit: this.opts.maxBatchesPerCommit, twoPhase: true });
    // a crash between a batch's two phases: its full-text entries are made and its statuses released before anything
    // is served or delivered
    const recovered = writer.recover();
    if (recovered.documents > 0 || recovered.statuses > 0) log.warn({ collection: name, ...recovered }, 'finished the full-text entries a stop left owed');
    this.set(name, { name, db, docs, journal, writer });
  }

  /** Holds every collection's commits until the returned release is called (or close): a disk that stalls, in tests. */
  holdWrites(): () => void {
    const releases = [...this.values()].map((c) => c.writer.hold());
    const release = (): void => {
      this.holds.delete(release);
      for (const r of releases) r();
    };
    this.holds.add(release);
    return release;
  }

  /** Releases the holds and waits until every queued batch is written; false when `timeoutMs` came first. */
  idle(timeoutMs: number): Promise<boolean> {
    for (const release of [...this.holds]) release();
    return Promise.race([
      Promise.all([...this.values()].map((c) => c.writer.idle())).then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), timeoutMs).unref()),
    ]);
  }

  /** Stops the writers and closes the databases. */
  close(): void {
    for (const c of this.values()) {
      c.writer.stop();
      c.db.close();
    }
  }
}
