/**
 * The store of one collection: one SQLite database file, `<data dir>/<collection>.sqlite`.
 *
 * Why SQLite + FTS5: the indexer needs (1) durable, atomic group commits (a batch's documents, its final-status
 * bookkeeping and the callbacks it owes land in ONE transaction, fsynced before "secured" is sent), and (2) ranked
 * full-text search with snippets. SQLite gives both in-process, with no server to run: WAL mode with
 * synchronous=FULL makes a commit durable once it returns, a crash (kill -9) leaves the last committed state, and
 * FTS5 provides an inverted index with bm25 ranking and snippet(). One file per collection keeps collections
 * independent (separate writers, separate files to back up or drop). better-sqlite3 is synchronous, which suits a
 * single writer loop per collection: a transaction never interleaves with other work.
 *
 *   const db = openCollectionDb('.esp/indexer', 'news');
 *   const docs = new DocumentStore(db);
 *   db.transaction(() => docs.upsert('doc-1', { title: 'Hello' }, 7, 1, new Date().toISOString()))();
 *   docs.search('"hello"', 10, 0);     // { total: 1, hits: [{ id: 'doc-1', score, title, snippet }] }
 *
 * Tables: documents (id, attributes as JSON, op_id, session, updated_at), documents_fts (FTS5 over title, body,
 * extra; rowid = documents.rid), fts_pending (documents written whose full-text entry is not made yet: the writer's
 * second phase, see collection-writer.ts), and the session journal's sessions, final_ranges and outbox
 * (session-journal.ts).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { type Attributes, decodeAttributes, encodeAttributes, searchableText } from './attributes';

export type Db = Database.Database;

const COLLECTION_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** A collection name is also a file name: letters, digits, "_", "-", "." (not first), at most 128 characters. */
export function isCollectionName(name: string): boolean {
  return COLLECTION_NAME.test(name);
}

export function collectionDbPath(dataDir: string, collection: string): string {
  if (!isCollectionName(collection)) throw new Error(`not a valid collection name: ${JSON.stringify(collection)}`);
  return join(resolve(dataDir), `${collection}.sqlite`);
}

/**
 * 2: finals kept as id ranges (final_ranges) instead of one row per operation (finals). 3: full-text indexing as a
 * second phase (fts_pending; outbox.held: statuses kept back until their documents are searchable).
 */
const SCHEMA_VERSION = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  attributes TEXT NOT NULL,
  op_id INTEGER NOT NULL,
  session INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(title, body, extra, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY,
  callback TEXT NOT NULL,
  floor INTEGER NOT NULL,
  closed INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS final_ranges (
  session INTEGER NOT NULL,
  first INTEGER NOT NULL,
  last INTEGER NOT NULL,
  PRIMARY KEY (session, first)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  session INTEGER NOT NULL,
  status BLOB NOT NULL,
  held INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS fts_pending (rid INTEGER PRIMARY KEY);
`;

export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
}

/**
 * Opens (creating if needed) the database of a collection: WAL, synchronous=FULL, and an exclusive lock held for
 * as long as it is open, so that a second indexer on the same files fails at once instead of arbitrating the same
 * sessions twice. The lock dies with the process (kill -9 included).
 */
export function openCollectionDb(dataDir: string, collection: string): Db {
  const path = collectionDbPath(dataDir, collection);
  mkdirSync(resolve(dataDir), { recursive: true });
  const db = new Database(path, { timeout: 500 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(SCHEMA);
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run('schema_version', String(SCHEMA_VERSION));
    let v = (db.prepare('SELECT value FROM meta WHERE key = ?').get('schema_version') as { value: string }).value;
    if (v === '1') {
      migrateFinalsToRanges(db);
      v = '2';
    }
    if (v === '2') {
      migrateToHeldStatuses(db);
      v = String(SCHEMA_VERSION);
    }
    if (v !== String(SCHEMA_VERSION)) throw new Error(`${path} has schema version ${v}; this indexer knows ${SCHEMA_VERSION}`);
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new StoreLockedError(`${path} is locked: another indexer process is using it`, { cause: err });
    }
    throw err;
  }
  return db;
}

/**
 * Version 1 kept one finals row per operation id; version 2 keeps ranges. Each old row becomes a range of one id
 * (isFinal answers the same), in one transaction with the version bump, so a crash leaves either version whole.
 */
function migrateFinalsToRanges(db: Db): void {
  db.transaction(() => {
    const old = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'finals'").get() as { n: number };
    if (old.n > 0) {
      db.exec('INSERT INTO final_ranges (session, first, last) SELECT session, op_id, op_id FROM finals; DROP TABLE finals;');
    }
    db.prepare('UPDATE meta SET value = ? WHERE key = ?').run('2', 'schema_version');
  })();
}

/** Version 2 had no held statuses (every status deliverable at once) and no second phase: the column, and done. */
function migrateToHeldStatuses(db: Db): void {
  db.transaction(() => {
    const cols = db.prepare("SELECT name FROM pragma_table_info('outbox')").all() as { name: string }[];
    if (!cols.some((c) => c.name === 'held')) db.exec('ALTER TABLE outbox ADD COLUMN held INTEGER NOT NULL DEFAULT 0');
    db.prepare('UPDATE meta SET value = ? WHERE key = ?').run(String(SCHEMA_VERSION), 'schema_version');
  })();
}

export interface StoredDocument {
  id: string;
  attributes: Attributes;
  op_id: number;
  session: number;
  updated_at: string;
}

export interface StoreHit {
  id: string;
  /** -bm25: higher is better. */
  score: number;
  title: string;
  snippet: string;
}

/** bm25 weights of the columns title, body, extra: a word in the title counts most. */
export const BM25_WEIGHTS = [10, 1, 0.5] as const;
/** Snippet markers around matched words, and the ellipsis where text was cut. */
export const SNIPPET_OPEN = '[';
export const SNIPPET_CLOSE = ']';
export const SNIPPET_ELLIPSIS = '…';
const SNIPPET_TOKENS = 16;

interface DocRow {
  rid: number;
  id: string;
  attributes: string;
  op_id: number;
  session: number;
  updated_at: string;
}

/**
 * Documents and their full-text index. Writes are meant to run inside a transaction of the writer.
 *
 * With `deferIndex` on, upsert and merge store the document and note its rid in fts_pending instead of making its
 * full-text entry; indexPending, in a later transaction, makes the entries of every noted rid (the indexer's second
 * phase: a batch is durable, and the item processor's call answered, one full-text update earlier). A removal takes
 * its entry out at once. fts_pending is the record of what is owed, so a rolled-back write owes nothing and a crash
 * leaves the list to finish after the restart; the attributes noted in memory only spare reading the rows back.
 */
export class DocumentStore {
  private readonly s;
  deferIndex = false;
  private readonly noted = new Map<number, Attributes>();

  constructor(readonly db: Db) {
    const [wt, wb, we] = BM25_WEIGHTS;
    this.s = {
      byId: db.prepare<[string], DocRow>('SELECT rid, id, attributes, op_id, session, updated_at FROM documents WHERE id = ?'),
      insert: db.prepare('INSERT INTO documents (id, attributes, op_id, session, updated_at) VALUES (?, ?, ?, ?, ?)'),
      update: db.prepare('UPDATE documents SET attributes = ?, op_id = ?, session = ?, updated_at = ? WHERE rid = ?'),
      remove: db.prepare('DELETE FROM documents WHERE rid = ?'),
      ftsInsert: db.prepare('INSERT INTO documents_fts (rowid, title, body, extra) VALUES (?, ?, ?, ?)'),
      ftsRemove: db.prepare('DELETE FROM documents_fts WHERE rowid = ?'),
      notePending: db.prepare('INSERT OR IGNORE INTO fts_pending (rid) VALUES (?)'),
      dropPending: db.prepare('DELETE FROM fts_pending WHERE rid = ?'),
      pending: db.prepare<[], { rid: number }>('SELECT rid FROM fts_pending ORDER BY rid'),
      attributesOf: db.prepare<[number], { attributes: string }>('SELECT attributes FROM documents WHERE rid = ?'),
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM documents'),
      matchCount: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?'),
      search: db.prepare<[string, number, number], { id: string; score: number; title: string; snippet: string }>(
        `SELECT d.id AS id, -bm25(documents_fts, ${wt}, ${wb}, ${we}) AS score, f.title AS title,
                snippet(documents_fts, -1, '${SNIPPET_OPEN}', '${SNIPPET_CLOSE}', '${SNIPPET_ELLIPSIS}', ${SNIPPET_TOKENS}) AS snippet
           FROM documents_fts f JOIN documents d ON d.rid = f.rowid
          WHERE documents_fts MATCH ?
          ORDER BY bm25(documents_fts, ${wt}, ${wb}, ${we}), d.id
          LIMIT ? OFFSET ?`,
      ),
    };
  }

  private index(rid: number, attrs: Attributes): void {
    if (this.deferIndex) {
      this.noted.set(rid, attrs);
      this.s.notePending.run(rid);
      return;
    }
    this.indexNow(rid, attrs);
  }

  private indexNow(rid: number, attrs: Attributes): void {
    const t = searchableText(attrs);
    this.s.ftsRemove.run(rid);
    this.s.ftsInsert.run(rid, t.title, t.body, t.extra);
  }

  /**
   * Makes the full-text entries owed (fts_pending), with each document's attributes as last written. Run it in a
   * transaction of its own; returns how many documents it indexed.
   */
  indexPending(): number {
    const rids = this.s.pending.all();
    for (const { rid } of rids) {
      let attrs = this.noted.get(rid);
      if (!attrs) {
        // after a restart (or a write rolled back and redone): from the row
        const row = this.s.attributesOf.get(rid);
        attrs = row ? decodeAttributes(row.attributes) : undefined;
      }
      if (attrs) this.indexNow(rid, attrs);
      this.s.dropPending.run(rid);
    }
    this.noted.clear();
    return rids.length;
  }

  /** Documents written whose full-text entry is not made yet. */
  get pendingCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM fts_pending').get() as { n: number }).n;
  }

  /** Adds the document or replaces it whole (update_operation). */
  upsert(id: string, attrs: Attributes, opId: number, session: number, now: string): void {
    const row = this.s.byId.get(id);
    const json = encodeAttributes(attrs);
    if (row) {
      this.s.update.run(json, opId, session, now, row.rid);
      this.index(row.rid, attrs);
    } else {
      const rid = Number(this.s.insert.run(id, json, opId, session, now).lastInsertRowid);
      this.index(rid, attrs);
    }
  }

  /** Replaces the named attributes of an existing document (partial_update / urlchange). False if it is absent. */
  merge(id: string, patch: Attributes, opId: number, session: number, now: string): boolean {
    const row = this.s.byId.get(id);
    if (!row) return false;
    const attrs = Object.assign(decodeAttributes(row.attributes), patch);
    this.s.update.run(encodeAttributes(attrs), opId, session, now, row.rid);
    this.index(row.rid, attrs);
    return true;
  }

  /** Deletes the document; false if there was none. */
  remove(id: string): boolean {
    const row = this.s.byId.get(id);
    if (!row) return false;
    this.s.remove.run(row.rid);
    this.s.ftsRemove.run(row.rid);
    this.s.dropPending.run(row.rid);
    this.noted.delete(row.rid);
    return true;
  }

  get(id: string): StoredDocument | null {
    const row = this.s.byId.get(id);
    if (!row) return null;
    return { id: row.id, attributes: decodeAttributes(row.attributes), op_id: row.op_id, session: row.session, updated_at: row.updated_at };
  }

  count(): number {
    return this.s.count.get()?.n ?? 0;
  }

  /** `match` is an FTS5 expression from toFtsQuery (never raw user text). Best first. */
  search(match: string, limit: number, offset: number): { total: number; hits: StoreHit[] } {
    const total = this.s.matchCount.get(match)?.n ?? 0;
    const hits = total === 0 ? [] : this.s.search.all(match, limit, offset);
    return { total, hits };
  }
}
