import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Operation, OperationLost, ProcessingError } from '@esp/codecs';
import type { Aor } from '@esp/interfaces';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batch, brief, failed, lost, partial, remove, update, urlchange, warning } from '../test/ops';
import { applyBatch } from './apply-batch';
import { DocumentStore, openCollectionDb, type Db } from './collection-store';
import { IndexerErrorCode, IndexerWarningCode } from './indexer-errors';
import { SessionJournal } from './session-journal';

const S = 7;
const NOW = '2026-01-01T00:00:00.000Z';
const callback: Aor = { name: '', object_id: 'cb', host: 'client', port: 1, interface_type: 'coreprocessing::operation_callback', interface_version: '5.0' };

describe('applyBatch: writes and final-status arbitration', () => {
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

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'indexer-apply-'));
    open();
    journal.openSession(S, callback, NOW);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a batch of updates: one secured, then one completed over its range', () => {
    const r = apply(batch(0, update(1, 'a', { title: 'A' }), update(2, 'b', { title: 'B' }), update(3, 'c', { title: 'C' })));
    expect(r.statuses.map(brief)).toEqual(['secured 1-3', 'completed 1-3']);
    expect(r.completed).toEqual([1, 2, 3]);
    expect(r.statuses.every((s) => s.subsystem === 'indexing')).toBe(true);
    expect(docs.count()).toBe(3);
    expect(docs.get('b')).toMatchObject({ op_id: 2, session: S });
  });

  it('partial update and urlchange change existing documents; of an absent one they fail with no_such_document (drop)', () => {
    apply(batch(0, update(1, 'a', { title: 'A', body: 'x' })));
    const r = apply(batch(0, partial(2, 'a', { body: 'y' }), urlchange(3, 'a', 'http://u.test/a'), partial(4, 'nope', { body: 'z' }), urlchange(5, 'nope', 'http://u.test/n')));
    expect(r.statuses.map(brief)).toEqual([`secured 2-5`, `completed 2-5 errors=[4:${IndexerErrorCode.no_such_document},5:${IndexerErrorCode.no_such_document}]`]);
    expect(r.failed).toEqual([4, 5]);
    const completed = r.statuses[1]!;
    expect(completed.errors[0]).toMatchObject({ subsystem: 'indexing', session_id: S, operation_id: 4, suggested_action: 2, description: expect.stringMatching(/partial_update_operation 4: .*"nope"/) });
    expect(completed.errors[1]!.description).toMatch(/urlchange_operation 5/);
    expect({ ...docs.get('a')!.attributes }).toEqual({ title: 'A', body: 'y', url: 'http://u.test/a' });
    expect(docs.get('nope')).toBeNull();
  });

  it('remove deletes; removing an absent document completes with a warning', () => {
    apply(batch(0, update(1, 'a', { title: 'A' })));
    const r = apply(batch(0, remove(2, 'a'), remove(3, 'never')));
    expect(r.statuses.map(brief)).toEqual(['secured 2-3', `completed 2-3 warnings=[3:${IndexerWarningCode.remove_absent}]`]);
    expect(docs.count()).toBe(0);
  });

  it('failed_operation: nothing written, its error carried as it was made; lost ones get their own lost status naming exactly them', () => {
    const r = apply(batch(0, update(1, 'a', { title: 'A' }), failed(2, 'b', S), lost(3, 'c', S), update(4, 'd', { title: 'D' }), lost(5, 'e', S)));
    expect(r.statuses.map(brief)).toEqual(['secured 1-2', 'secured 4-4', 'completed 1-2 errors=[2:7]', 'completed 4-4', 'lost 3-5 errors=[3:4,5:4]']);
    expect(r.statuses[2]!.errors[0]).toBeInstanceOf(ProcessingError);
    expect(r.statuses[4]!.errors.every((e) => e instanceof OperationLost)).toBe(true);
    expect(r.lost).toEqual([3, 5]);
    expect(docs.get('b')).toBeNull();
    expect(docs.get('c')).toBeNull();
    expect(docs.count()).toBe(2);
  });

  it('a late copy of an operation already final is ignored: not written, not reported, and it splits the ranges', () => {
    apply(batch(0, update(1, 'a', { title: 'first' }), update(2, 'b', { title: 'B' })));
    const again = apply(batch(0, update(1, 'a', { title: 'second copy' }), update(2, 'b', { title: 'B2' })));
    expect(again.statuses).toEqual([]);
    expect(again.ignored).toEqual([1, 2]);
    expect(docs.get('a')!.attributes['title']).toBe('first');
    // a batch overlapping the finals: only the new ids are reported, in ranges that leave the old one out
    const mixed = apply(batch(0, update(3, 'c', { title: 'C' }), update(1, 'a', { title: 'third' }), update(4, 'd', { title: 'D' })));
    expect(mixed.statuses.map(brief)).toEqual(['secured 3-4', 'completed 3-4']);
    const split = apply(batch(0, update(5, 'e', {}), update(2, 'b', {}), update(6, 'f', {})));
    expect(split.statuses.map(brief)).toEqual(['secured 5-6', 'completed 5-6']); // 2 < 5: not inside the range
    const inside = apply(batch(0, update(7, 'g', {}), lost(8, 'h', S), update(9, 'i', {})));
    expect(inside.statuses.map(brief)).toEqual(['secured 7-7', 'secured 9-9', 'completed 7-7', 'completed 9-9', 'lost 8-8 errors=[8:4]']);
    // the lost operation's copy coming later (the item processor was only slow) is ignored too
    expect(apply(batch(0, update(8, 'h', {}))).statuses).toEqual([]);
    expect(docs.get('h')).toBeNull();
  });

  it('a lost copy after the operation completed is ignored (first final wins)', () => {
    apply(batch(0, update(1, 'a', { title: 'A' })));
    const r = apply(batch(0, lost(1, 'a', S)));
    expect(r.statuses).toEqual([]);
    expect(r.ignored).toEqual([1]);
  });

  it('the same id twice in one batch: the first copy is the one', () => {
    const r = apply(batch(0, update(1, 'a', { title: 'first' }), update(1, 'a', { title: 'dup' })));
    expect(r.statuses.map(brief)).toEqual(['secured 1-1', 'completed 1-1']);
    expect(docs.get('a')!.attributes['title']).toBe('first');
  });

  it('completed_op_id prunes the finals below it, and ids below it are ignored as already final', () => {
    apply(batch(0, update(1, 'a', {}), update(2, 'b', {}), update(3, 'c', {})));
    expect(journal.finalsCount(S)).toBe(3);
    const r = apply(batch(3, update(4, 'd', {})));
    expect(journal.finalsCount(S)).toBe(2); // 3 and 4 stay: the floor is exclusive
    expect(journal.floor(S)).toBe(3);
    expect(r.statuses.map(brief)).toEqual(['secured 4-4', 'completed 4-4']);
    expect(apply(batch(0, update(2, 'b', {}), update(3, 'c', {}))).ignored).toEqual([2, 3]); // the floor never goes down
  });

  it('a write that throws fails only its operation (write_failed, resubmit); nothing of it is kept, the rest is written', () => {
    const upsert = docs.upsert.bind(docs);
    // writes the document row, then fails: the batch's savepoint must not keep that half-written document
    docs.upsert = (id, attrs, opId, session, now) => {
      upsert(id, attrs, opId, session, now);
      if (id === 'bad') throw new Error('disk I/O error');
    };
    const r = apply(batch(0, update(1, 'a', { title: 'A' }), update(2, 'bad', { title: 'B' }), update(3, 'c', { title: 'C' })));
    expect(r.statuses.map(brief)).toEqual([`secured 1-3`, `completed 1-3 errors=[2:${IndexerErrorCode.write_failed}]`]);
    expect(r.statuses[1]!.errors[0]).toMatchObject({ operation_id: 2, suggested_action: 0, description: expect.stringMatching(/disk I\/O error/) });
    expect(r.completed).toEqual([1, 3]);
    expect(r.failed).toEqual([2]);
    expect(docs.get('bad')).toBeNull();
    expect(docs.count()).toBe(2);
    expect(docs.search('"a"', 10, 0).total + docs.search('"c"', 10, 0).total).toBe(2);
    expect(journal.finalsCount(S)).toBe(3);
  });

  it('an operation kind the indexer does not write fails alone (unsupported_operation)', () => {
    const r = apply(batch(0, update(1, 'a', {}), new Operation({ id: 2 }), update(3, 'b', {})));
    expect(r.statuses.map(brief)).toEqual(['secured 1-3', `completed 1-3 errors=[2:${IndexerErrorCode.unsupported_operation}]`]);
    expect(docs.count()).toBe(2);
  });

  it('warnings of the operations are passed through on their status', () => {
    const r = apply(batch(0, update(1, 'a', {}, [warning(9, S, 1)]), lost(2, 'b', S), update(3, 'c', {}, [warning(8, S, 3)])));
    expect(r.statuses.map(brief)).toEqual(['secured 1-1', 'secured 3-3', 'completed 1-1 warnings=[1:9]', 'completed 3-3 warnings=[3:8]', 'lost 2-2 errors=[2:4]']);
    expect(r.statuses[0]!.warnings).toEqual([]);
  });

  it('finals survive a reopen: a copy arriving after a restart is still ignored', () => {
    apply(batch(0, update(1, 'a', { title: 'A' }), lost(2, 'b', S)));
    db.close();
    open();
    expect(apply(batch(0, update(1, 'a', { title: 'again' }), update(2, 'b', {}))).statuses).toEqual([]);
    expect(docs.get('a')!.attributes['title']).toBe('A');
  });

  it('a batch whose transaction rolled back left nothing final: its copy is applied (the in-memory bound of finals stays safe)', () => {
    apply(batch(0, update(1, 'a', { title: 'A' })));
    // ids 2..3 decided inside a transaction that then fails as a whole (as a failed commit would)
    expect(() =>
      db.transaction(() => {
        applyBatch(docs, journal, S, batch(0, update(2, 'b', {}), update(3, 'c', {})), NOW);
        throw new Error('disk full (test)');
      })(),
    ).toThrow('disk full');
    expect(journal.isFinal(S, 2)).toBe(false);
    expect(apply(batch(0, update(2, 'b', { title: 'B' }), update(1, 'a', { title: 'late copy' }))).statuses.map(brief)).toEqual(['secured 2-2', 'completed 2-2']);
    expect(journal.isFinal(S, 1)).toBe(true);
    expect(journal.isFinal(S, 4)).toBe(false);
    expect(docs.get('b')!.attributes['title']).toBe('B');
    expect(docs.get('a')!.attributes['title']).toBe('A');
  });
});
