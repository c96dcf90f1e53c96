/**
 * The checksum store on disk: one SQLite file per crawl collection, `<dir>/<collection>.dup.sqlite` (its path is
 * the PKT_DBNAME the server sends its replica), holding the checksums and the collection's configuration.
 *
 * SQLite through better-sqlite3 (already a dependency of the indexer): atomic group commits, no server to run, and
 * WAL mode so a commit is one append. `synchronous=NORMAL` by default: a committed batch survives the process being
 * killed (SIGKILL included), which is what "acknowledged" promises here; `sync: 'full'` also survives a power cut, at
 * the price of an fsync per batch.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ChecksumOwner, ChecksumStore, CollectionState, StoredCollection } from './checksum-store';

const SUFFIX = '.dup.sqlite';

interface Open {
  db: Database.Database;
  path: string;
  get: Database.Statement<[Buffer], { uri: string; node: string }>;
  put: Database.Statement<[Buffer, string, string]>;
  insertNew: Database.Statement<[Buffer, string, string]>;
  del: Database.Statement<[Buffer]>;
}

export interface SqliteChecksumStoreOptions {
  sync?: 'normal' | 'full';
}

export class SqliteChecksumStore implements ChecksumStore {
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly dir: string,
    private readonly options: SqliteChecksumStoreOptions = {},
  ) {
    mkdirSync(dir, { recursive: true });
    for (const file of readdirSync(dir)) {
      if (file.endsWith(SUFFIX)) this.db(decodeName(file.slice(0, -SUFFIX.length)));
    }
  }

  collections(): StoredCollection[] {
    const out: StoredCollection[] = [];
    for (const [name, o] of this.open) {
      const row = o.db.prepare('SELECT config, state FROM config WHERE id = 1').get() as { config: Buffer; state: CollectionState } | undefined;
      if (row) out.push({ name, config: new Uint8Array(row.config), state: row.state });
    }
    return out;
  }

  setConfig(name: string, config: Uint8Array): void {
    this.writable(name)
      .db.prepare("INSERT INTO config (id, config, state) VALUES (1, ?, 'active') ON CONFLICT(id) DO UPDATE SET config = excluded.config")
      .run(Buffer.from(config));
  }

  setState(name: string, state: CollectionState): void {
    if (this.open.has(name)) this.writable(name).db.prepare('UPDATE config SET state = ? WHERE id = 1').run(state);
  }

  dropCollection(name: string): void {
    const o = this.open.get(name);
    if (!o) return;
    o.db.close();
    this.open.delete(name);
    for (const ext of ['', '-wal', '-shm']) rmSync(o.path + ext, { force: true });
  }

  clearChecksums(name: string): void {
    if (this.open.has(name)) this.writable(name).db.prepare('DELETE FROM checksums').run();
  }

  get(name: string, csum: Uint8Array): ChecksumOwner | undefined {
    return this.open.get(name)?.get.get(buf(csum));
  }

  put(name: string, csum: Uint8Array, owner: ChecksumOwner): void {
    this.writable(name).put.run(buf(csum), owner.uri, owner.node);
  }

  claim(name: string, csum: Uint8Array, owner: ChecksumOwner): ChecksumOwner | undefined {
    const o = this.writable(name);
    const key = buf(csum);
    // most checks are new content: try the insert first, look the owner up only when it was already there
    if (o.insertNew.run(key, owner.uri, owner.node).changes > 0) return undefined;
    return o.get.get(key);
  }

  delete(name: string, csum: Uint8Array): boolean {
    return this.open.has(name) ? this.writable(name).del.run(buf(csum)).changes > 0 : false;
  }

  count(name: string): number {
    const o = this.open.get(name);
    return o ? (o.db.prepare('SELECT count(*) AS n FROM checksums').get() as { n: number }).n : 0;
  }

  dbName(name: string): string {
    return join(this.dir, encodeName(name) + SUFFIX);
  }

  /**
   * fn as one unit: each collection file it writes to gets one transaction (begun at its first write), and all of
   * them commit at the end (a batch of messages can touch several collections).
   */
  transaction(fn: () => void): void {
    if (this.begun !== undefined) return fn();
    const begun = (this.begun = new Set<Open>());
    try {
      fn();
      for (const o of begun) if (o.db.open && o.db.inTransaction) o.db.exec('COMMIT');
    } catch (err) {
      for (const o of begun) if (o.db.open && o.db.inTransaction) o.db.exec('ROLLBACK');
      throw err;
    } finally {
      this.begun = undefined;
    }
  }

  close(): void {
    for (const o of this.open.values()) o.db.close();
    this.open.clear();
  }

  /** Files written in the current transaction() call. */
  private begun: Set<Open> | undefined;

  private writable(name: string): Open {
    const o = this.db(name);
    if (this.begun !== undefined && !this.begun.has(o)) {
      o.db.exec('BEGIN IMMEDIATE');
      this.begun.add(o);
    }
    return o;
  }

  private db(name: string): Open {
    let o = this.open.get(name);
    if (o) return o;
    const path = this.dbName(name);
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${this.options.sync === 'full' ? 'FULL' : 'NORMAL'}`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS checksums (csum BLOB PRIMARY KEY, uri TEXT NOT NULL, node TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS config (id INTEGER PRIMARY KEY CHECK (id = 1), config BLOB NOT NULL, state TEXT NOT NULL);
    `);
    o = {
      db,
      path,
      get: db.prepare('SELECT uri, node FROM checksums WHERE csum = ?'),
      put: db.prepare('INSERT INTO checksums (csum, uri, node) VALUES (?, ?, ?) ON CONFLICT(csum) DO UPDATE SET uri = excluded.uri, node = excluded.node'),
      del: db.prepare('DELETE FROM checksums WHERE csum = ?'),
      insertNew: db.prepare('INSERT INTO checksums (csum, uri, node) VALUES (?, ?, ?) ON CONFLICT(csum) DO NOTHING'),
    };
    this.open.set(name, o);
    return o;
  }
}

function buf(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** A collection name as a file name: anything but [A-Za-z0-9_-] as %XX, so any name maps to one safe file. */
function encodeName(name: string): string {
  return name.length === 0 ? '%' : name.replace(/[^A-Za-z0-9_-]/g, (c) => Array.from(Buffer.from(c), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

function decodeName(file: string): string {
  return file === '%' ? '' : decodeURIComponent(file);
}
