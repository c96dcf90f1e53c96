/**
 * The multinode scheduler's state on disk: one SQLite file, `<dir>/scheduler.sqlite`, in WAL mode (as the
 * duplicate server keeps its checksums). The scheduler runs each batch of messages in one transaction and its
 * answers leave only after the commit, so whatever a node scheduler was answered survives kill -9
 * (`synchronous=NORMAL`; `sync: 'full'` also survives a power cut, at an fsync per batch).
 *
 * Queue entries are kept as the FSWCU bytes of the CMD_UM_URI message that carries them (the codec is the
 * spec's, so the entry comes back exactly as it was received); configurations as FSWCU bytes of the dict.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildFscmtNodeSchedulerMessage, decodeFswcu, encodeFswcu, FswcuDict, readFscmtNodeSchedulerMessage, type FscmtAddrinfoResult } from '@esp/codecs';
import type { SchedulerStore, StoredDns, StoredEntry, StoredSchedulerCollection, StoredSchedulerState, StoredStats } from './scheduler-store';

export interface SqliteSchedulerStoreOptions {
  sync?: 'normal' | 'full';
}

/** The stored bytes of a queue entry or configuration did not decode (a damaged file). */
export class SchedulerStoreCorruptError extends Error {
  override readonly name = 'SchedulerStoreCorruptError';
}

export class SqliteSchedulerStore implements SchedulerStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly stmts: ReturnType<typeof prepare>;
  private depth = 0;

  constructor(dir: string, options: SqliteSchedulerStoreOptions = {}) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, 'scheduler.sqlite');
    this.db = new Database(this.path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.sync === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS collections (name TEXT PRIMARY KEY, dspec BLOB NOT NULL, epoch INTEGER NOT NULL, state INTEGER NOT NULL, removing INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS entries (key INTEGER PRIMARY KEY, collection TEXT NOT NULL, message BLOB NOT NULL);
      CREATE INDEX IF NOT EXISTS entries_by_collection ON entries (collection);
      CREATE TABLE IF NOT EXISTS routes (collection TEXT NOT NULL, site TEXT NOT NULL, node TEXT NOT NULL, PRIMARY KEY (collection, site)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS ips (ip TEXT NOT NULL, site TEXT NOT NULL, node TEXT NOT NULL, PRIMARY KEY (ip, site)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS dns (host TEXT PRIMARY KEY, addrinfo TEXT NOT NULL, resolved_at INTEGER NOT NULL, ttl INTEGER NOT NULL, expires INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS stats (collection TEXT NOT NULL, node TEXT NOT NULL, counters TEXT NOT NULL, PRIMARY KEY (collection, node)) WITHOUT ROWID;
    `);
    this.stmts = prepare(this.db);
  }

  load(): StoredSchedulerState {
    const collections = (this.db.prepare('SELECT name, dspec, epoch, state, removing FROM collections').all() as Array<{ name: string; dspec: Buffer; epoch: number; state: number; removing: number }>).map(
      (r): StoredSchedulerCollection => ({ name: r.name, dspec: decodeDict(r.dspec), epoch: r.epoch, state: r.state, removing: r.removing !== 0 }),
    );
    const entries = (this.db.prepare('SELECT key, collection, message FROM entries ORDER BY key').all() as Array<{ key: number; collection: string; message: Buffer }>).map((r): StoredEntry => {
      const msg = readFscmtNodeSchedulerMessage(decodeDict(r.message));
      if (msg.command !== 'CMD_UM_URI') throw new SchedulerStoreCorruptError(`stored queue entry ${r.key} is a ${msg.command}`);
      return { key: r.key, collection: r.collection, entry: msg.entry };
    });
    const routes = this.db.prepare('SELECT collection, site, node FROM routes').all() as StoredSchedulerState['routes'];
    const ips = this.db.prepare('SELECT ip, node, site FROM ips').all() as StoredSchedulerState['ips'];
    const dns = (this.db.prepare('SELECT host, addrinfo, resolved_at, ttl, expires FROM dns').all() as Array<{ host: string; addrinfo: string; resolved_at: number; ttl: number; expires: number }>).map(
      (r): StoredDns => ({ host: r.host, addrinfo: JSON.parse(r.addrinfo) as FscmtAddrinfoResult, resolvedAt: r.resolved_at, ttl: r.ttl, expires: r.expires }),
    );
    const stats = (this.db.prepare('SELECT collection, node, counters FROM stats').all() as Array<{ collection: string; node: string; counters: string }>).map(
      (r): StoredStats => ({ collection: r.collection, node: r.node, counters: JSON.parse(r.counters) as Record<string, number> }),
    );
    return { collections, entries, routes, ips, dns, stats };
  }

  putCollection(c: StoredSchedulerCollection): void {
    this.write(() => this.stmts.putCollection.run(c.name, Buffer.from(encodeFswcu(c.dspec)), c.epoch, c.state, c.removing ? 1 : 0));
  }

  deleteCollection(name: string): void {
    this.write(() => {
      this.stmts.deleteCollection.run(name);
      this.stmts.deleteEntries.run(name);
      this.stmts.deleteRoutes.run(name);
      this.stmts.deleteStats.run(name);
    });
  }

  putEntry(e: StoredEntry): void {
    const message = encodeFswcu(buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_URI', dspecName: e.collection, entry: e.entry }));
    this.write(() => this.stmts.putEntry.run(e.key, e.collection, Buffer.from(message)));
  }

  deleteEntry(key: number): void {
    this.write(() => this.stmts.deleteEntry.run(key));
  }

  deleteEntries(collection: string): void {
    this.write(() => this.stmts.deleteEntries.run(collection));
  }

  putRoute(collection: string, site: string, node: string): void {
    this.write(() => this.stmts.putRoute.run(collection, site, node));
  }

  deleteRoute(collection: string, site: string): void {
    this.write(() => this.stmts.deleteRoute.run(collection, site));
  }

  putIp(ip: string, node: string, site: string): void {
    this.write(() => this.stmts.putIp.run(ip, site, node));
  }

  deleteIp(ip: string, site?: string): void {
    this.write(() => (site === undefined ? this.stmts.deleteIpAll.run(ip) : this.stmts.deleteIp.run(ip, site)));
  }

  putDns(d: StoredDns): void {
    this.write(() => this.stmts.putDns.run(d.host, JSON.stringify(d.addrinfo), d.resolvedAt, d.ttl, d.expires));
  }

  putStats(st: StoredStats): void {
    this.write(() => this.stmts.putStats.run(st.collection, st.node, JSON.stringify(st.counters)));
  }

  transaction(fn: () => void): void {
    if (this.depth > 0) return fn();
    this.db.exec('BEGIN IMMEDIATE');
    this.depth++;
    try {
      fn();
      this.depth--;
      this.db.exec('COMMIT');
    } catch (err) {
      this.depth = 0;
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** A write outside transaction() is a transaction of its own (timer paths: keep-alive rounds, DNS answers). */
  private write(fn: () => void): void {
    if (this.depth > 0) fn();
    else this.transaction(fn);
  }
}

function prepare(db: Database.Database) {
  return {
    putCollection: db.prepare(
      'INSERT INTO collections (name, dspec, epoch, state, removing) VALUES (?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET dspec = excluded.dspec, epoch = excluded.epoch, state = excluded.state, removing = excluded.removing',
    ),
    deleteCollection: db.prepare('DELETE FROM collections WHERE name = ?'),
    putEntry: db.prepare('INSERT OR REPLACE INTO entries (key, collection, message) VALUES (?, ?, ?)'),
    deleteEntry: db.prepare('DELETE FROM entries WHERE key = ?'),
    deleteEntries: db.prepare('DELETE FROM entries WHERE collection = ?'),
    putRoute: db.prepare('INSERT OR REPLACE INTO routes (collection, site, node) VALUES (?, ?, ?)'),
    deleteRoute: db.prepare('DELETE FROM routes WHERE collection = ? AND site = ?'),
    deleteRoutes: db.prepare('DELETE FROM routes WHERE collection = ?'),
    putIp: db.prepare('INSERT OR REPLACE INTO ips (ip, site, node) VALUES (?, ?, ?)'),
    deleteIp: db.prepare('DELETE FROM ips WHERE ip = ? AND site = ?'),
    deleteIpAll: db.prepare('DELETE FROM ips WHERE ip = ?'),
    putStats: db.prepare('INSERT OR REPLACE INTO stats (collection, node, counters) VALUES (?, ?, ?)'),
    deleteStats: db.prepare('DELETE FROM stats WHERE collection = ?'),
    putDns: db.prepare('INSERT OR REPLACE INTO dns (host, addrinfo, resolved_at, ttl, expires) VALUES (?, ?, ?, ?, ?)'),
  };
}

function decodeDict(bytes: Buffer): FswcuDict {
  let v: unknown;
  try {
    v = decodeFswcu(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    throw new SchedulerStoreCorruptError('a stored FSWCU value does not decode', { cause: err });
  }
  if (!(v instanceof FswcuDict)) throw new SchedulerStoreCorruptError('a stored FSWCU value is not a dict');
  return v;
}
