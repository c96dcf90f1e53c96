import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperationState, OperationStatusInfo, type OperationSet } from '@esp/codecs';
import type { Aor } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batch, brief, remove, update } from '../test/ops';
import type { BatchResult } from './apply-batch';
import { DocumentStore, openCollectionDb, type Db } from './collection-store';
import { CollectionWriter, type WriterSession } from './collection-writer';
import { SessionJournal, type OutboxEntry } from './session-journal';

const status = (first: number, last: number, state: 'secured' | 'completed'): OperationStatusInfo =>
  new OperationStatusInfo({ first_op_id: first, last_op_id: last, state: OperationState[state], subsystem: 'indexing', errors: [], warnings: [] });

const callback: Aor = { name: '', object_id: 'cb', host: 'client', port: 1, interface_type: 'coreprocessing::operation_callback', interface_version: '5.0' };

class FakeSession implements WriterSession {
  readonly queue: OperationSet[] = [];
  readonly got: string[] = [];
  readonly seqs: number[] = [];
  /** written / committed, in the order the writer called them, with the batch's first operation id */
  readonly events: string[] = [];
  constructor(readonly id: number) {}
  written(result: BatchResult): void {
    this.events.push(`written ${result.completed[0]}`);
  }
  committed(entries: OutboxEntry[], result: BatchResult): void {
    this.events.push(`committed ${result.completed[0]}`);
    for (const e of entries) {
      this.got.push(brief(e.status));
      this.seqs.push(e.seq);
    }
  }
}

describe('CollectionWriter', () => {
  let dir: string;
  let db: Db;
  let journal: SessionJournal;
  let writer: CollectionWriter;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'indexer-writer-'));
    db = openCollectionDb(dir, 'c');
    journal = new SessionJournal(db);
    writer = new CollectionWriter('c', db, new DocumentStore(db), journal, createLogger('test'), { maxBatchesPerCommit: 8, retryMinMs: 20, retryMaxMs: 50 });
    for (const id of [1, 2]) journal.openSession(id, callback, 'now');
  });
  afterEach(() => {
    writer.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('group commit: queued batches of several sessions share transactions, served round robin, statuses in order per session', async () => {
    const a = new FakeSession(1);
    const b = new FakeSession(2);
    for (let i = 1; i <= 6; i++) a.queue.push(batch(0, update(i, `a${i}`, {})));
    for (let i = 1; i <= 3; i++) b.queue.push(batch(0, update(i, `b${i}`, {})));
    writer.kick(a);
    writer.kick(b);
    await writer.idle();
    expect(writer.stats).toEqual({ commits: 2, batches: 9, indexed: 0 }); // 8 + 1, not 9 fsyncs
    expect(a.got).toEqual([1, 2, 3, 4, 5, 6].flatMap((i) => [`secured ${i}-${i}`, `completed ${i}-${i}`]));
    expect(b.got).toEqual([1, 2, 3].flatMap((i) => [`secured ${i}-${i}`, `completed ${i}-${i}`]));
    expect(journal.outbox()).toHaveLength(18); // owed until delivered
    for (const seq of [...a.seqs, ...b.seqs]) writer.ack(seq);
    writer.flushAcks();
    expect(journal.outbox()).toHaveLength(0);
  });

  it('delivered statuses leave the outbox with the next write (no commit of their own), else on their own shortly after', async () => {
    const a = new FakeSession(1);
    a.queue.push(batch(0, update(1, 'a1', {})));
    writer.kick(a);
    await writer.idle();
    for (const seq of a.seqs) writer.ack(seq);
    a.queue.push(batch(0, update(2, 'a2', {})));
    writer.kick(a);
    await writer.idle();
    expect(writer.stats.commits).toBe(2);
    expect(journal.outbox().map((e) => brief(e.status))).toEqual(['secured 2-2', 'completed 2-2']);
    for (const seq of a.seqs.slice(2)) writer.ack(seq);
    await waitFor(() => journal.outbox().length === 0, { timeoutMs: 5_000 });
  });

  it('hold: queues keep filling, nothing is written until released', async () => {
    const a = new FakeSession(1);
    const release = writer.hold();
    a.queue.push(batch(0, update(1, 'x', {})));
    writer.kick(a);
    await new Promise((r) => setTimeout(r, 30));
    expect(a.got).toEqual([]);
    release();
    await writer.idle();
    expect(a.got).toEqual(['secured 1-1', 'completed 1-1']);
  });

  it('a failed transaction reports nothing; its batches go back to the head of the queue and are written on a retry', async () => {
    const a = new FakeSession(1);
    db.exec('ALTER TABLE outbox RENAME TO outbox_away'); // every commit now fails as a whole
    a.queue.push(batch(0, update(1, 'x', { title: 'one' })), batch(0, update(2, 'y', {})));
    writer.kick(a);
    await new Promise((r) => setTimeout(r, 60));
    expect(a.got).toEqual([]);
    expect(a.queue).toHaveLength(2);
    expect(new DocumentStore(db).get('x')).toBeNull(); // rolled back with the rest
    db.exec('ALTER TABLE outbox_away RENAME TO outbox');
    await waitFor(() => a.got.length === 4, { timeoutMs: 2_000 });
    expect(a.got).toEqual(['secured 1-1', 'completed 1-1', 'secured 2-2', 'completed 2-2']);
    expect(new DocumentStore(db).get('x')).not.toBeNull();
  });

  describe('two phases (the indexer\'s writer)', () => {
    let two: CollectionWriter;
    let docs: DocumentStore;
    beforeEach(() => {
      docs = new DocumentStore(db);
      two = new CollectionWriter('c', db, docs, journal, createLogger('test'), { maxBatchesPerCommit: 1, twoPhase: true, retryMinMs: 20, retryMaxMs: 50 });
    });
    afterEach(() => two.stop());

    it('a batch is durable and answered after its first phase; its statuses go out once its documents are searchable', async () => {
      const a = new FakeSession(1);
      let searchableWhenWritten: number | undefined;
      let heldWhenWritten: boolean[] = [];
      a.written = () => {
        // phase 1 committed: the document is stored and decided, not yet in the full-text index; statuses held
        searchableWhenWritten = docs.search('"alpha"', 10, 0).total;
        heldWhenWritten = journal.outbox().map((e) => e.held === true);
        expect(docs.get('x')?.attributes).toEqual({ title: 'alpha' });
      };
      a.queue.push(batch(0, update(1, 'x', { title: 'alpha' })));
      two.kick(a);
      await two.idle();
      expect(searchableWhenWritten).toBe(0);
      expect(heldWhenWritten).toEqual([true, true]);
      expect(a.got).toEqual(['secured 1-1', 'completed 1-1']);
      expect(docs.search('"alpha"', 10, 0).total).toBe(1);
      expect(journal.outbox().map((e) => e.held === true)).toEqual([false, false]);
      expect(docs.pendingCount).toBe(0);
      expect(two.stats).toEqual({ commits: 2, batches: 1, indexed: 1 });
    });

    it('batches waiting for their first phase go before the second phase of those written (up to 8 owed), statuses in order', async () => {
      const a = new FakeSession(1);
      for (let i = 1; i <= 3; i++) a.queue.push(batch(0, update(i, `d${i}`, { body: `word${i}` })));
      two.kick(a);
      await two.idle();
      expect(a.events).toEqual(['written 1', 'written 2', 'written 3', 'committed 1', 'committed 2', 'committed 3']);
      expect(a.got).toEqual([1, 2, 3].flatMap((i) => [`secured ${i}-${i}`, `completed ${i}-${i}`]));
      // one full-text transaction for the three (the first phases made three commits)
      expect(two.stats).toEqual({ commits: 4, batches: 3, indexed: 3 });
      for (let i = 1; i <= 3; i++) expect(docs.search(`"word${i}"`, 10, 0).hits.map((h) => h.id)).toEqual([`d${i}`]);
    });

    it('an update and a removal before the second phase: the index ends as the documents do', async () => {
      const a = new FakeSession(1);
      a.queue.push(batch(0, update(1, 'x', { body: 'first' })), batch(0, update(2, 'x', { body: 'second' })), batch(0, update(3, 'y', { body: 'gone' }), remove(4, 'y')));
      two.kick(a);
      await two.idle();
      expect(docs.search('"first"', 10, 0).total).toBe(0);
      expect(docs.search('"second"', 10, 0).hits.map((h) => h.id)).toEqual(['x']);
      expect(docs.search('"gone"', 10, 0).total).toBe(0);
      expect(docs.pendingCount).toBe(0);
    });

    it('a crash between the phases: at the next start recover() makes the entries owed and releases the statuses held', () => {
      // what a first phase leaves when the process dies before the second: documents noted, statuses held
      docs.deferIndex = true;
      db.transaction(() => {
        docs.upsert('x', { title: 'kept' }, 1, 1, 'now');
        docs.upsert('y', { title: 'also' }, 2, 1, 'now');
        journal.append(1, status(1, 2, 'secured'), true);
        journal.append(1, status(1, 2, 'completed'), true);
      })();
      db.close();
      db = openCollectionDb(dir, 'c');
      journal = new SessionJournal(db);
      docs = new DocumentStore(db);
      expect(docs.search('"kept"', 10, 0).total).toBe(0);
      expect(docs.pendingCount).toBe(2);
      const restarted = new CollectionWriter('c', db, docs, journal, createLogger('test'), { twoPhase: true });
      expect(restarted.recover()).toEqual({ documents: 2, statuses: 2 });
      expect(docs.search('"kept"', 10, 0).hits.map((h) => h.id)).toEqual(['x']);
      expect(journal.outbox().map((e) => [brief(e.status), e.held === true])).toEqual([
        ['secured 1-2', false],
        ['completed 1-2', false],
      ]);
      expect(restarted.recover()).toEqual({ documents: 0, statuses: 0 });
      restarted.stop();
    });

    it('a failed second phase keeps its statuses held and is retried; nothing is reported before it succeeds', async () => {
      const a = new FakeSession(1);
      a.written = () => db.exec('ALTER TABLE fts_pending RENAME TO fts_pending_away'); // the second phase now fails
      a.queue.push(batch(0, update(1, 'x', { title: 'later' })));
      two.kick(a);
      await new Promise((r) => setTimeout(r, 60));
      expect(a.got).toEqual([]);
      expect(journal.outbox().every((e) => e.held === true)).toBe(true);
      db.exec('ALTER TABLE fts_pending_away RENAME TO fts_pending');
      await waitFor(() => a.got.length === 2, { timeoutMs: 2_000 });
      expect(a.got).toEqual(['secured 1-1', 'completed 1-1']);
      expect(docs.search('"later"', 10, 0).total).toBe(1);
    });
  });
});
