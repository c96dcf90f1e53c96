/**
 * A node scheduler's state on disk: one SQLite file, `<dir>/node-<id>.sqlite`, in WAL mode (as the multinode
 * scheduler and the duplicate server keep theirs). Writes join an open transaction: a page's links, its record and
 * its owner's checksum cost a statement each, and commits are shared. What must not happen before it is written (an
 * answer to the multinode scheduler, a forwarded link, a request for a page) waits in `whenDurable` for the commit,
 * so whatever the scheduler was told survives kill -9 (`synchronous=NORMAL`; `sync: 'full'` also survives a power
 * cut, at an fsync per commit).
 *
 * Queue entries made here (links, start URIs) are kept as what made them (referrer, depth, flags, redirects), the
 * others (from the multinode scheduler) as the FSWCU bytes of the CMD_UM_URI message that carries them (the spec's
 * codec): either way an entry comes back exactly as it was queued. Configurations are FSWCU bytes of the dict.
 *
 * The open transaction commits at the next `setImmediate` when something waits for it, else within
 * `LAZY_COMMIT_MS`: the crawler waits for it before each request (so an entry is on disk as taken before its page
 * is asked for), and so does every message the machine sends; the other writes (links queued, outcomes) join the
 * next such commit, a few per page instead of one per turn.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildFscmtNodeSchedulerMessage, decodeFswcu, encodeFswcu, FswcuDict, readFscmtNodeSchedulerMessage, type FscmtQueueEntry } from '@esp/codecs';
import { depthOf, entryFor, madeByEntryFor } from '../machine/queue-entries';
import { URI_STATES, type NodeStore, type StoredNodeCollection, type StoredNodeState, type StoredPageChecksum, type StoredRobots, type StoredRobotsRules, type StoredRoute, type StoredValidators } from './node-store';

/** What no one waits for is committed this long after it was written, at most. */
export const LAZY_COMMIT_MS = 20;

export interface SqliteNodeStoreOptions {
  sync?: 'normal' | 'full';
}

/** The stored bytes of a queue entry or configuration did not decode (a damaged file). */
export class NodeStoreCorruptError extends Error {
  override readonly name = 'NodeStoreCorruptError';
}

export class SqliteNodeStore implements NodeStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly stmts: ReturnType<typeof prepare>;
  /** a transaction is open: it commits at the next setImmediate once someone waits for it, else after LAZY_COMMIT_MS */
  private open = false;
  private soon = false;
  private lazy: NodeJS.Timeout | undefined;
  /** what waits for the open transaction's commit */
  private waiting: Array<() => void> = [];
  private firstKey = 0;
  private lastKey = 0;

  constructor(dir: string, nodeId: string, options: SqliteNodeStoreOptions = {}) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, `node-${nodeId.replace(/[^A-Za-z0-9_.-]/g, '_')}.sqlite`);
    this.db = new Database(this.path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.sync === 'full' ? 'FULL' : 'NORMAL'}`);
    // a process killed a moment ago may still hold the write lock while the kernel tears it down
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS collections (name TEXT PRIMARY KEY, dspec BLOB NOT NULL, epoch INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS routes (collection TEXT NOT NULL, site TEXT NOT NULL, node TEXT NOT NULL, PRIMARY KEY (collection, site)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS uris (
        collection TEXT NOT NULL, uri TEXT NOT NULL, site TEXT NOT NULL, state INTEGER NOT NULL,
        qkey INTEGER NOT NULL DEFAULT 0, depth INTEGER NOT NULL DEFAULT 0, entry BLOB, fed INTEGER NOT NULL DEFAULT 0,
        referrer TEXT, flags INTEGER, redirects TEXT, etag TEXT, last_modified TEXT,
        PRIMARY KEY (collection, uri)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS owned (collection TEXT NOT NULL, uri TEXT NOT NULL, csum BLOB NOT NULL, PRIMARY KEY (collection, uri)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS duplicates (collection TEXT NOT NULL, csum BLOB NOT NULL, uri TEXT NOT NULL, PRIMARY KEY (collection, csum, uri)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS robots (origin TEXT PRIMARY KEY, rules TEXT NOT NULL, expires_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS sitemaps (collection TEXT NOT NULL, origin TEXT NOT NULL, PRIMARY KEY (collection, origin)) WITHOUT ROWID;
    `);
    this.stmts = prepare(this.db);
    const keys = this.db.prepare('SELECT min(qkey) AS lo, max(qkey) AS hi FROM uris WHERE state IN (?, ?)').get(URI_STATES.QUEUED, URI_STATES.IN_FLIGHT) as { lo: number | null; hi: number | null };
    this.firstKey = keys.lo ?? 0;
    this.lastKey = keys.hi ?? 0;
  }

  load(): StoredNodeState {
    const collections = (this.db.prepare('SELECT name, dspec, epoch FROM collections').all() as Array<{ name: string; dspec: Buffer; epoch: number }>).map(
      (r): StoredNodeCollection => ({ name: r.name, dspec: decodeDict(r.dspec), epoch: r.epoch }),
    );
    const routes = this.db.prepare('SELECT collection, site, node FROM routes').all() as StoredRoute[];
    const uris = this.db.prepare('SELECT collection, uri, site, state, qkey, depth, entry, fed, referrer, flags, redirects FROM uris ORDER BY qkey').all() as Array<{
      collection: string;
      uri: string;
      site: string;
      state: number;
      qkey: number;
      depth: number;
      entry: Buffer | null;
      fed: number;
      referrer: string | null;
      flags: number | null;
      redirects: string | null;
    }>;
    const state: StoredNodeState = { collections, routes, queued: [], done: [], forwarded: [], owned: [], duplicates: [], robots: [], sitemaps: [], validators: [] };
    for (const r of uris) {
      if (r.state === URI_STATES.QUEUED || r.state === URI_STATES.IN_FLIGHT)
        state.queued.push({ collection: r.collection, site: r.site, key: r.qkey, entry: storedEntry(r), inFlight: r.state === URI_STATES.IN_FLIGHT });
      else if (r.state === URI_STATES.DONE) state.done.push({ collection: r.collection, site: r.site, uri: r.uri, fed: r.fed !== 0, depth: r.depth });
      else
        state.forwarded.push({ collection: r.collection, site: r.site, uri: r.uri, depth: r.depth, entry: r.state === URI_STATES.FORWARDED ? storedEntry(r) : undefined });
    }
    const checksums = (sql: string): StoredPageChecksum[] =>
      (this.db.prepare(sql).all() as Array<{ collection: string; uri: string; csum: Buffer }>).map((r) => ({ collection: r.collection, uri: r.uri, csum: new Uint8Array(r.csum) }));
    state.owned = checksums('SELECT collection, uri, csum FROM owned');
    state.duplicates = checksums('SELECT collection, uri, csum FROM duplicates');
    state.robots = (this.db.prepare('SELECT origin, rules, expires_at FROM robots').all() as Array<{ origin: string; rules: string; expires_at: number }>).map((r) => ({
      origin: r.origin,
      rules: JSON.parse(r.rules) as StoredRobotsRules,
      expiresAt: r.expires_at,
    }));
    state.sitemaps = this.db.prepare('SELECT collection, origin FROM sitemaps').all() as StoredNodeState['sitemaps'];
    state.validators = (
      this.db.prepare('SELECT collection, uri, etag, last_modified FROM uris WHERE etag IS NOT NULL OR last_modified IS NOT NULL').all() as Array<{
        collection: string;
        uri: string;
        etag: string | null;
        last_modified: string | null;
      }>
    ).map((r) => ({ collection: r.collection, uri: r.uri, etag: r.etag ?? undefined, lastModified: r.last_modified ?? undefined }));
    return state;
  }

  putCollection(c: StoredNodeCollection): void {
    this.write(() => this.stmts.putCollection.run(c.name, Buffer.from(encodeFswcu(c.dspec)), c.epoch));
  }

  deleteCollection(name: string): void {
    this.write(() => {
      for (const table of ['collections', 'routes', 'uris', 'owned', 'duplicates', 'sitemaps'] as const) this.stmts.deleteCollection[table].run(name);
    });
  }

  putRoute(r: StoredRoute): void {
    this.write(() => this.stmts.putRoute.run(r.collection, r.site, r.node));
  }

  queued(collection: string, site: string, entry: FscmtQueueEntry, front: boolean): void {
    const key = front ? --this.firstKey : ++this.lastKey;
    this.write(() => this.putEntry(collection, site, URI_STATES.QUEUED, key, entry));
  }

  taken(collection: string, uri: string): void {
    this.write(() => this.stmts.taken.run(collection, uri));
  }

  done(collection: string, site: string, uri: string, fed: boolean, depth: number): void {
    this.write(() => this.stmts.putUri.run(collection, uri, site, URI_STATES.DONE, 0, depth, null, fed ? 1 : 0, null, null, null));
  }

  putValidators(v: StoredValidators): void {
    this.write(() => this.stmts.validators.run(v.etag ?? null, v.lastModified ?? null, v.collection, v.uri));
  }

  unfed(collection: string, uris: string[]): void {
    this.write(() => {
      for (const uri of uris) this.stmts.unfed.run(collection, uri);
    });
  }

  forwarded(collection: string, site: string, entry: FscmtQueueEntry, depth: number): void {
    this.write(() => this.putEntry(collection, site, URI_STATES.FORWARDED, 0, entry, depth));
  }

  forwardsConfirmed(collection: string, uris: string[]): void {
    this.write(() => {
      for (const uri of uris) this.stmts.routed.run(collection, uri);
    });
  }

  own(p: StoredPageChecksum): void {
    this.write(() => this.stmts.own.run(p.collection, p.uri, buf(p.csum)));
  }

  disown(collection: string, uri: string): void {
    this.write(() => this.stmts.disown.run(collection, uri));
  }

  duplicate(p: StoredPageChecksum): void {
    this.write(() => this.stmts.duplicate.run(p.collection, buf(p.csum), p.uri));
  }

  duplicatesTaken(collection: string, csum: Uint8Array): void {
    this.write(() => this.stmts.duplicatesTaken.run(collection, buf(csum)));
  }

  putRobots(r: StoredRobots): void {
    this.write(() => this.stmts.putRobots.run(r.origin, JSON.stringify(r.rules), r.expiresAt));
  }

  sitemapsRead(collection: string, origin: string): void {
    this.write(() => this.stmts.sitemapsRead.run(collection, origin));
  }

  whenDurable(fn: () => void): void {
    if (!this.open) return fn();
    this.waiting.push(fn);
    if (this.soon) return;
    this.soon = true;
    setImmediate(() => this.commit());
  }

  /** Commits what is pending now (close does; tests may too). */
  commit(): void {
    if (!this.open) return;
    clearTimeout(this.lazy);
    this.soon = false;
    this.db.exec('COMMIT');
    this.open = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (const fn of waiting) fn();
  }

  close(): void {
    if (!this.db.open) return;
    this.commit();
    this.db.close();
  }

  private write(fn: () => void): void {
    // closed: the node is stopping, and a fetch finishing meanwhile is in flight for the next start
    if (!this.db.open) return;
    if (!this.open) {
      this.db.exec('BEGIN IMMEDIATE');
      this.open = true;
      this.lazy = setTimeout(() => this.commit(), LAZY_COMMIT_MS);
      this.lazy.unref();
    }
    fn();
  }

  /** An entry made here as what made it; any other as the FSWCU bytes of its CMD_UM_URI. */
  private putEntry(collection: string, site: string, state: number, key: number, entry: FscmtQueueEntry, depth = 0): void {
    const uri = entry.uri.uri;
    if (madeByEntryFor(entry)) {
      const redirects = entry.redirects.length > 0 ? JSON.stringify(entry.redirects) : null;
      this.stmts.putUri.run(collection, uri, site, state, key, depthOf(entry), null, 0, entry.referrer.uri, entry.uriFlags, redirects);
    } else this.stmts.putUri.run(collection, uri, site, state, key, depth, encodeEntry(collection, entry), 0, null, null, null);
  }
}

function prepare(db: Database.Database) {
  const deleteFrom = (table: string) => db.prepare(`DELETE FROM ${table} WHERE ${table === 'collections' ? 'name' : 'collection'} = ?`);
  return {
    putCollection: db.prepare('INSERT OR REPLACE INTO collections (name, dspec, epoch) VALUES (?, ?, ?)'),
    deleteCollection: {
      collections: deleteFrom('collections'),
      routes: deleteFrom('routes'),
      uris: deleteFrom('uris'),
      owned: deleteFrom('owned'),
      duplicates: deleteFrom('duplicates'),
      sitemaps: deleteFrom('sitemaps'),
    },
    putRoute: db.prepare('INSERT OR REPLACE INTO routes (collection, site, node) VALUES (?, ?, ?)'),
    putUri: db.prepare(
      `INSERT INTO uris (collection, uri, site, state, qkey, depth, entry, fed, referrer, flags, redirects) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (collection, uri) DO UPDATE SET site = excluded.site, state = excluded.state, qkey = excluded.qkey, depth = excluded.depth,
         entry = excluded.entry, fed = excluded.fed, referrer = excluded.referrer, flags = excluded.flags, redirects = excluded.redirects`,
    ),
    taken: db.prepare(`UPDATE uris SET state = ${URI_STATES.IN_FLIGHT} WHERE collection = ? AND uri = ? AND state = ${URI_STATES.QUEUED}`),
    validators: db.prepare('UPDATE uris SET etag = ?, last_modified = ? WHERE collection = ? AND uri = ?'),
    unfed: db.prepare('UPDATE uris SET fed = 0 WHERE collection = ? AND uri = ?'),
    routed: db.prepare(`UPDATE uris SET state = ${URI_STATES.ROUTED}, entry = NULL, referrer = NULL, redirects = NULL WHERE collection = ? AND uri = ? AND state = ${URI_STATES.FORWARDED}`),
    own: db.prepare('INSERT OR REPLACE INTO owned (collection, uri, csum) VALUES (?, ?, ?)'),
    disown: db.prepare('DELETE FROM owned WHERE collection = ? AND uri = ?'),
    duplicate: db.prepare('INSERT OR IGNORE INTO duplicates (collection, csum, uri) VALUES (?, ?, ?)'),
    duplicatesTaken: db.prepare('DELETE FROM duplicates WHERE collection = ? AND csum = ?'),
    putRobots: db.prepare('INSERT OR REPLACE INTO robots (origin, rules, expires_at) VALUES (?, ?, ?)'),
    sitemapsRead: db.prepare('INSERT OR IGNORE INTO sitemaps (collection, origin) VALUES (?, ?)'),
  };
}

function encodeEntry(collection: string, entry: FscmtQueueEntry): Buffer {
  const bytes = encodeFswcu(buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_URI', dspecName: collection, entry }));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A stored entry: made again by entryFor from what made it, or decoded from its bytes. */
function storedEntry(r: { uri: string; depth: number; entry: Buffer | null; referrer: string | null; flags: number | null; redirects: string | null }): FscmtQueueEntry {
  if (r.referrer !== null) return entryFor(r.uri, r.referrer, r.depth, r.redirects === null ? [] : (JSON.parse(r.redirects) as FscmtQueueEntry['redirects']), r.flags ?? 0);
  return decodeEntry(r.entry, r.uri);
}

function decodeEntry(bytes: Buffer | null, uri: string): FscmtQueueEntry {
  if (bytes === null) throw new NodeStoreCorruptError(`stored queue entry of ${uri} has no bytes`);
  const msg = readFscmtNodeSchedulerMessage(decodeDict(bytes));
  if (msg.command !== 'CMD_UM_URI') throw new NodeStoreCorruptError(`stored queue entry of ${uri} is a ${msg.command}`);
  return msg.entry;
}

function decodeDict(bytes: Buffer): FswcuDict {
  let v: unknown;
  try {
    v = decodeFswcu(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    throw new NodeStoreCorruptError('a stored FSWCU value does not decode', { cause: err });
  }
  if (!(v instanceof FswcuDict)) throw new NodeStoreCorruptError('a stored FSWCU value is not a dict');
  return v;
}

function buf(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}
