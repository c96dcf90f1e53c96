import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionDbPath, DocumentStore, openCollectionDb, StoreLockedError, type Db } from './collection-store';
import { EmptyQueryError, toFtsQuery } from './fts-query';

const NOW = '2026-01-01T00:00:00.000Z';

describe('DocumentStore (SQLite + FTS5)', () => {
  let dir: string;
  let db: Db;
  let docs: DocumentStore;
  const search = (q: string, limit = 10, offset = 0) => docs.search(toFtsQuery(q), limit, offset);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'indexer-store-'));
    db = openCollectionDb(dir, 'news');
    docs = new DocumentStore(db);
  });
  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens in WAL mode with synchronous=FULL, one file per collection', () => {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(collectionDbPath(dir, 'news')).toBe(join(dir, 'news.sqlite'));
  });

  it('upsert adds, then replaces whole; get returns what was written', () => {
    docs.upsert('d1', { title: 'Old title', body: 'first body', tag: 'x' }, 1, 5, NOW);
    docs.upsert('d1', { title: 'Storm over the North Sea', body: 'Wind and rain' }, 2, 5, NOW);
    const d = docs.get('d1');
    expect(d).toMatchObject({ id: 'd1', op_id: 2, session: 5, updated_at: NOW });
    expect({ ...d!.attributes }).toEqual({ title: 'Storm over the North Sea', body: 'Wind and rain' });
    expect(search('first').total).toBe(0); // the old text left the index
    expect(search('storm').hits.map((h) => h.id)).toEqual(['d1']);
    expect(docs.count()).toBe(1);
  });

  it('merge replaces the named attributes of an existing document only', () => {
    expect(docs.merge('d1', { url: 'http://news.test/storm' }, 3, 5, NOW)).toBe(true);
    expect({ ...docs.get('d1')!.attributes }).toEqual({ title: 'Storm over the North Sea', body: 'Wind and rain', url: 'http://news.test/storm' });
    expect(docs.get('d1')!.op_id).toBe(3);
    expect(search('news.test').hits.map((h) => h.id)).toEqual(['d1']);
    expect(docs.merge('absent', { title: 'x' }, 4, 5, NOW)).toBe(false);
    expect(docs.get('absent')).toBeNull();
  });

  it('remove deletes the document and its index entry; a second remove says it was absent', () => {
    docs.upsert('gone', { title: 'ephemeral' }, 5, 5, NOW);
    expect(search('ephemeral').total).toBe(1);
    expect(docs.remove('gone')).toBe(true);
    expect(docs.remove('gone')).toBe(false);
    expect(docs.get('gone')).toBeNull();
    expect(search('ephemeral').total).toBe(0);
  });

  it('ranks a title match above a body match (bm25, title weighted), with snippets marking the words', () => {
    // the same words in each, only the column differs
    docs.upsert('body-only', { title: 'Weather report', body: 'a hurricane nears the coast' }, 6, 5, NOW);
    docs.upsert('in-title', { title: 'Hurricane report', body: 'a storm nears the coast' }, 7, 5, NOW);
    docs.upsert('extra-only', { title: 'Weather report', body: 'a storm nears the coast', note: 'a hurricane nears the coast' }, 8, 5, NOW);
    const r = search('hurricane');
    expect(r.total).toBe(3);
    expect(r.hits.map((h) => h.id)).toEqual(['in-title', 'body-only', 'extra-only']);
    expect(r.hits[0]!.score).toBeGreaterThan(r.hits[1]!.score);
    expect(r.hits[0]!.title).toBe('Hurricane report');
    expect(r.hits[1]!.snippet).toMatch(/\[hurricane\]/);
    expect(search('hurricane', 1, 1)).toMatchObject({ total: 3, hits: [{ id: 'body-only' }] });
  });

  it('phrases, prefixes, diacritics and case', () => {
    docs.upsert('cafe', { title: 'Café Crème', body: 'north sea coffee' }, 9, 5, NOW);
    expect(search('cafe').hits.map((h) => h.id)).toEqual(['cafe']);
    expect(search('CRÈME').total).toBe(1);
    expect(search('"north sea"').hits.map((h) => h.id).sort()).toEqual(['cafe', 'd1'].sort());
    expect(search('"sea north"').total).toBe(0);
    expect(search('hurr*').total).toBe(3);
    expect(search('storm wind').hits.map((h) => h.id)).toEqual(['d1']); // words are ANDed
  });

  it('hostile query strings are either a valid query or EmptyQueryError, never an SQLite error', () => {
    const hostile = ['"', '""', "'; DROP TABLE documents; --", 'a AND', 'OR', 'NOT x', '(a', 'a)', 'title:x', '{title body}:x', 'x*y', '*', 'NEAR(a b, 2)', '^a', 'a + b', '\u0000', 'é"è', '\\', '%_'];
    for (const q of hostile) {
      try {
        expect(search(q).total).toBeGreaterThanOrEqual(0);
      } catch (err) {
        expect(err).toBeInstanceOf(EmptyQueryError);
      }
    }
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: fc.constantFrom('"', '*', '(', ')', ':', '^', '+', '-', ' ', 'a', 'OR', 'NEAR', '{', '}', '\u0000', '\ud800'), maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 30 })), (q) => {
        let match: string;
        try {
          match = toFtsQuery(q);
        } catch (err) {
          if (err instanceof EmptyQueryError) return;
          throw err;
        }
        docs.search(match, 5, 0);
      }),
      { numRuns: 300 },
    );
    expect(docs.count()).toBeGreaterThan(0); // and nothing was dropped
  });

  it('a second open of the same collection (another indexer) fails at once: the file is locked', () => {
    expect(() => openCollectionDb(dir, 'news')).toThrow(StoreLockedError);
    expect(() => openCollectionDb(dir, '../escape')).toThrow(/not a valid collection name/);
  });

  it('what was committed survives closing and reopening', () => {
    db.close();
    db = openCollectionDb(dir, 'news');
    docs = new DocumentStore(db);
    expect(docs.get('d1')?.attributes['url']).toBe('http://news.test/storm');
    expect(search('hurricane').total).toBe(3);
  });
});
