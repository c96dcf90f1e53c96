import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OperationSet } from '@esp/codecs';
import type { Aor } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batch, brief, update } from '../test/ops';
import type { BatchResult } from './apply-batch';
import { DocumentStore, openCollectionDb, type Db } from './collection-store';
import { CollectionWriter, type WriterSession } from './collection-writer';
import { SessionJournal, type OutboxEntry } from './session-journal';

const callback: Aor = { name: '', object_id: 'cb', host: 'client', port: 1, interface_type: 'coreprocessing::operation_callback', interface_version: '5.0' };

class FakeSession implements WriterSession {
  readonly queue: OperationSet[] = [];
  readonly got: string[] = [];
  readonly seqs: number[] = [];
  constructor(readonly id: number) {}
  committed(entries: OutboxEntry[], _result: BatchResult): void {
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
    expect(writer.stats).toEqual({ commits: 2, batches: 9 }); // 8 + 1, not 9 fsyncs
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
});
