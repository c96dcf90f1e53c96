import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Aor } from '@esp/interfaces';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batch, brief, lost, update } from '../test/ops';
import { applyBatch } from './apply-batch';
import { DocumentStore, openCollectionDb, type Db } from './collection-store';
import { SessionJournal } from './session-journal';

const S = 7;
const NOW = '2026-01-01T00:00:00.000Z';
const callback: Aor = { name: '', object_id: 'cb', host: 'client', port: 1, interface_type: 'coreprocessing::operation_callback', interface_version: '5.0' };

describe('SessionJournal: finals as ranges of operation ids', () => {
  let dir: string;
  let db: Db;
  let docs: DocumentStore;
  let journal: SessionJournal;
  const open = () => {
    db = openCollectionDb(dir, 'c');
    docs = new DocumentStore(db);
    journal = new SessionJournal(db);
  };
  const apply = (b: ReturnType<typeof batch>) => db.transaction(() => applyBatch(docs, journal, S, b, NOW))();
  const ranges = () => db.prepare('SELECT first, last FROM final_ranges WHERE session = ? ORDER BY first').all(S);
  const updates = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => update(from + i, `d${from + i}`, { title: 't' }));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'indexer-journal-'));
    open();
    journal.openSession(S, callback, NOW);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a batch of consecutive ids is one row, and the next batch that follows on extends it', () => {
    apply(batch(0, ...updates(1, 100)));
    expect(ranges()).toEqual([{ first: 1, last: 100 }]);
    apply(batch(50, ...updates(101, 200)));
    expect(ranges()).toEqual([{ first: 1, last: 200 }]);
    expect(journal.finalsCount(S)).toBe(151); // 50..200: below the floor is final by the client's word
    for (const id of [1, 100, 101, 200]) expect(journal.isFinal(S, id)).toBe(true);
    expect(journal.isFinal(S, 201)).toBe(false);
  });

  it('ids with gaps: each run is a range; an id in a gap is not final and is applied when it comes', () => {
    apply(batch(0, update(1, 'a', {}), update(2, 'b', {}), update(4, 'd', {}), lost(6, 'f', S)));
    expect(ranges()).toEqual([
      { first: 1, last: 2 },
      { first: 4, last: 4 },
      { first: 6, last: 6 },
    ]);
    expect([1, 2, 3, 4, 5, 6, 7].map((id) => journal.isFinal(S, id))).toEqual([true, true, false, true, false, true, false]);
    expect(apply(batch(0, update(3, 'c', {}), update(4, 'd', { title: 'late' }))).statuses.map(brief)).toEqual(['secured 3-3', 'completed 3-3']);
    expect(journal.isFinal(S, 3)).toBe(true);
    expect(journal.finalsCount(S)).toBe(5);
  });

  it('a raised floor prunes ranges wholly below it and keeps one across it', () => {
    apply(batch(0, ...updates(1, 3)));
    apply(batch(0, ...updates(5, 6)));
    apply(batch(4, ...updates(7, 8)));
    expect(ranges()).toEqual([{ first: 5, last: 8 }]);
    apply(batch(6, ...updates(9, 9)));
    expect(ranges()).toEqual([{ first: 5, last: 9 }]);
    expect(journal.finalsCount(S)).toBe(4); // 6..9
  });

  it('an extension rolled back with its transaction: the ids it covered are not final, and are applied again', () => {
    apply(batch(0, ...updates(1, 3)));
    expect(() =>
      db.transaction(() => {
        applyBatch(docs, journal, S, batch(0, ...updates(4, 6)), NOW);
        throw new Error('disk full (test)');
      })(),
    ).toThrow('disk full');
    expect(ranges()).toEqual([{ first: 1, last: 3 }]);
    expect(journal.isFinal(S, 4)).toBe(false);
    expect(apply(batch(0, ...updates(4, 6))).statuses.map(brief)).toEqual(['secured 4-6', 'completed 4-6']);
    apply(batch(0, ...updates(7, 8)));
    expect(ranges()).toEqual([
      { first: 1, last: 3 },
      { first: 4, last: 8 },
    ]);
    expect([3, 4, 8, 9].map((id) => journal.isFinal(S, id))).toEqual([true, true, true, false]);
  });

  it('finals and ranges survive a reopen; the next batch extends the range read back', () => {
    apply(batch(0, ...updates(1, 10)));
    db.close();
    open();
    expect(apply(batch(0, ...updates(5, 12))).statuses.map(brief)).toEqual(['secured 11-12', 'completed 11-12']);
    expect(ranges()).toEqual([{ first: 1, last: 12 }]);
  });

  it('a database of schema version 1 (a finals row per id) is migrated: the same ids are final', () => {
    db.close();
    rmSync(join(dir, 'c.sqlite'), { force: true });
    const v1 = new Database(join(dir, 'c.sqlite'));
    v1.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO meta VALUES ('schema_version', '1');
      CREATE TABLE sessions (id INTEGER PRIMARY KEY, callback TEXT NOT NULL, floor INTEGER NOT NULL, closed INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE TABLE finals (session INTEGER NOT NULL, op_id INTEGER NOT NULL, state INTEGER NOT NULL, PRIMARY KEY (session, op_id)) WITHOUT ROWID;
      INSERT INTO finals VALUES (${S}, 1, 4), (${S}, 2, 4), (${S}, 5, 6);`);
    v1.prepare('INSERT INTO sessions VALUES (?, ?, ?, 0, ?, ?)').run(S, JSON.stringify(callback), Number.MIN_SAFE_INTEGER, NOW, NOW);
    v1.close();
    open();
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: '3' });
    expect((db.prepare("SELECT name FROM pragma_table_info('outbox')").all() as { name: string }[]).map((c) => c.name)).toContain('held');
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'finals'").get()).toEqual({ n: 0 });
    expect([1, 2, 3, 4, 5, 6].map((id) => journal.isFinal(S, id))).toEqual([true, true, false, false, true, false]);
    expect(apply(batch(0, ...updates(1, 6))).statuses.map(brief)).toEqual(['secured 3-4', 'secured 6-6', 'completed 3-4', 'completed 6-6']);
    expect(journal.finalsCount(S)).toBe(6);
  });

  it('a database of schema version 2 (no held statuses) is migrated: its owed statuses are deliverable as they were', () => {
    apply(batch(0, ...updates(1, 2)));
    // back to version 2 as it was written: no held column, no fts_pending
    db.exec("UPDATE meta SET value = '2' WHERE key = 'schema_version'; ALTER TABLE outbox DROP COLUMN held; DROP TABLE fts_pending;");
    db.close();
    open();
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: '3' });
    expect(journal.outbox().map((e) => [brief(e.status), e.held])).toEqual([]);
    const entries = db.transaction(() => applyBatch(docs, journal, S, batch(0, ...updates(3, 3)), NOW).statuses.map((st) => journal.append(S, st)))();
    expect(journal.outbox().map((e) => [brief(e.status), e.held === true])).toEqual(entries.map((e) => [brief(e.status), false]));
    expect(docs.pendingCount).toBe(0);
  });
});
