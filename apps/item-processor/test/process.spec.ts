import {
  BytearrayAttribute,
  DocumentEntity,
  DocumentId,
  FailedOperation,
  OperationDropped,
  OperationSet,
  OperationState,
  ProcessingError,
  RemoveOperation,
  StringAttribute,
  SubsystemIdSet,
  UpdateOperation,
  Utf8Error,
  Warning,
  XmlError,
  type KeyValuePair,
} from '@esp/codecs';
import { ShuttingDown, SystemResourceError, type Aor } from '@esp/interfaces';
import { Middleware, serveNameServer } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startItemProcessor, type ItemProcessor } from '../src/item-processor';
import type { PipelineConfig } from '@esp/pipeline';
import { FakeDistributor, FakeIndexer } from './fakes';

const INDEXING = new SubsystemIdSet({ ids: ['indexing'] });
const utf8 = (s: string) => new TextEncoder().encode(s);

function update(id: number, docId: string, attrs: Record<string, string | Uint8Array>, warnings: Warning[] = []): UpdateOperation {
  const document_attributes: KeyValuePair[] = Object.entries(attrs).map(([key, v]) =>
    typeof v === 'string' ? new StringAttribute({ key, value: v }) : new BytearrayAttribute({ key, value: v }),
  );
  return new UpdateOperation({ id, warnings, doc: new DocumentEntity({ doc_id: new DocumentId({ id: docId }), document_attributes }) });
}

const CONFIG: PipelineConfig = {
  pipelines: {
    web: [
      { type: 'utf8' },
      { type: 'xml' },
      { type: 'html' },
      { type: 'drop', name: 'no-spam', rules: [{ attribute: 'url', pattern: 'spam' }] },
      { type: 'fail', name: 'chaos', id_pattern: '^doom', warn_id_pattern: '^warn', error: 'processing_error', suggested_action: 'resubmit' },
      { type: 'normalize' },
    ],
  },
  default_pipeline: 'web',
};

describe('processor_server::process (MS-FSDPD 3.1.4.1) with a fake indexing session over a real nats-server', () => {
  let ns: NatsServer;
  let nameServer: Middleware;
  let peers: Middleware;
  let cd: FakeDistributor;
  let indexer: FakeIndexer;
  let ip: ItemProcessor;
  const NAME = 'ip-process';

  beforeAll(async () => {
    ns = await NatsServer.start();
    nameServer = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nameServer);
    peers = await Middleware.connect({ name: 'peers', servers: ns.url, host: 'peers' });
    cd = await FakeDistributor.start(peers);
    indexer = await FakeIndexer.start(peers);
    ip = await startItemProcessor({ nats: ns.url, name: NAME, statusListen: '127.0.0.1', pipelineConfig: CONFIG, retry: { initialMs: 20, maxMs: 200 }, forwardDeadlineMs: 3000, callTimeoutMs: 3000 });
    await ip.whenRegistered();
  });
  afterAll(async () => {
    await ip?.stop();
    await peers?.close();
    await nameServer?.close();
    await ns?.cleanup();
  });

  it('runs the pipeline, replaces failed operations by failed_operation, forwards the batch, reports processed', async () => {
    const clientWarning = new Warning({ warning_code: 1, description: 'from the client', subsystem: 'processing', session_id: 5, operation_id: 104 });
    const batch = new OperationSet({
      completed_op_id: 99,
      operations: [
        update(100, 'good', { url: 'https://ex.org/a/', body: utf8('<html><title>Good page</title><body><p>Caf\u0065\u0301 <a href="b">b</a></p></body></html>') }),
        update(101, 'bad-bytes', { body: Uint8Array.of(0x61, 0xc3, 0x28) }),
        update(102, 'bad-xml', { body: '<feed><entry></feed>', content_type: 'application/atom+xml' }),
        update(103, 'spam', { url: 'http://spam.example/', body: 'buy' }),
        update(104, 'doomed', { body: 'x' }, [clientWarning]),
        update(105, 'warned', { body: '  lots   of   space ' }),
        new RemoveOperation({ id: 106, doc_id: new DocumentId({ id: 'gone' }) }),
      ],
    });
    const before = cd.processed.length;
    await cd.processor(NAME).process(indexer.aor, 5, 'news', batch, INDEXING); // returns at once; the work follows
    const processed = await cd.nextProcessed(before);

    // what the indexer got: same ids in the same order, same completed_op_id
    expect(indexer.batches).toHaveLength(1);
    const got = indexer.batches[0]!;
    expect(got.completed_op_id).toBe(99);
    expect(got.operations.map((o) => o.id)).toEqual([100, 101, 102, 103, 104, 105, 106]);
    const [good, badBytes, badXml, spam, doomed, warned, gone] = got.operations;

    expect(good).toBeInstanceOf(UpdateOperation);
    const attrs = Object.fromEntries((good as UpdateOperation).doc.document_attributes.map((a) => [a.key, 'value' in a ? a.value : (a as unknown as { values: unknown }).values]));
    expect(attrs).toEqual({ url: 'https://ex.org/a/', body: 'Caf\u00e9 b', title: 'Good page', links: ['https://ex.org/a/b'] });

    const failed = [badBytes, badXml, spam, doomed] as FailedOperation[];
    for (const f of failed) {
      expect(f).toBeInstanceOf(FailedOperation);
      expect(f).toMatchObject({ subsystem: 'processing', state: OperationState.completed, operation_type: 'failed_operation' });
      expect(f.err).toMatchObject({ subsystem: 'processing', session_id: 5, operation_id: f.id });
    }
    expect(failed.map((f) => f.doc_id.id)).toEqual(['bad-bytes', 'bad-xml', 'spam', 'doomed']);
    expect(failed[0]!.err).toBeInstanceOf(Utf8Error);
    expect(failed[1]!.err).toBeInstanceOf(XmlError);
    expect(failed[2]!.err).toBeInstanceOf(OperationDropped);
    expect(failed[3]!.err.constructor).toBe(ProcessingError);
    expect(failed.map((f) => (f.err as ProcessingError).processor)).toEqual(['utf8', 'xml', 'no-spam', 'chaos']);
    expect(failed[3]!.warnings).toEqual([clientWarning]); // the operation's own warnings stay with it

    expect(warned).toBeInstanceOf(UpdateOperation);
    expect((warned as UpdateOperation).doc.document_attributes[0]).toMatchObject({ key: 'body', value: 'lots of space' });
    expect(gone).toBeInstanceOf(RemoveOperation);

    // what the distributor got
    expect(processed.name).toBe(NAME);
    expect(processed.completed).toBe(true);
    expect(processed.status).toMatchObject({ first_op_id: 100, last_op_id: 106, state: OperationState.completed, subsystem: 'processing' });
    expect(processed.status.errors.map((e) => e.operation_id)).toEqual([101, 102, 103, 104]);
    expect(processed.status.errors.map((e) => e.constructor)).toEqual([Utf8Error, XmlError, OperationDropped, ProcessingError]);
    expect(processed.status.warnings.map((w) => [w.operation_id, w.description])).toEqual([[105, 'chaos: warning on purpose for "warned"']]);

    // Status tables
    expect(ip.status.processing).toBe(false);
    expect([...ip.status.itemLog.keys()]).toEqual(['good', 'bad-bytes', 'bad-xml', 'spam', 'doomed', 'warned', 'gone']);
    expect(ip.status.itemLog.get('good')?.status).toBe('OK');
    expect(ip.status.itemLog.get('warned')?.status).toBe('WARNING');
    expect(ip.status.itemLog.get('spam')).toMatchObject({ status: 'ERROR', msgs: [['ERROR', 'no-spam: dropped: attribute "url" matches /spam/']] });
    expect(ip.status.batchLog.get('100')).toMatchObject({ status: 'ERROR' });
    expect(ip.status.stageStats.get('utf8')).toMatchObject({ ok: 5, error: 1 });
    expect(ip.status.stageStats.get('chaos')).toMatchObject({ ok: 2, error: 1 }); // good, warned; doomed
    expect(ip.status.pipelineStats.get('web')).toMatchObject({ ok: 2, error: 4 });
  });

  it('warnings of stages reach the operation and processed; the item log says WARNING', async () => {
    const before = cd.processed.length;
    await cd.processor(NAME).process(indexer.aor, 6, 'news', new OperationSet({ completed_op_id: 0, operations: [update(200, 'warn-1', { body: 'ok' })] }), INDEXING);
    const processed = await cd.nextProcessed(before);
    expect(processed.status.warnings.map((w) => [w.operation_id, w.session_id, w.subsystem, w.description])).toEqual([[200, 6, 'processing', 'chaos: warning on purpose for "warn-1"']]);
    expect(indexer.batches.at(-1)!.operations[0]!.warnings).toHaveLength(1);
    expect(ip.status.itemLog.get('warn-1')?.status).toBe('WARNING');
  });

  it('the item log: items with nothing to say share one message per pipeline; warnings are logged per item', async () => {
    const before = cd.processed.length;
    await cd.processor(NAME).process(indexer.aor, 6, 'news', new OperationSet({ completed_op_id: 0, operations: [update(210, 'quiet-1', { body: 'a' }), update(211, 'quiet-2', { body: 'b' }), update(212, 'warn-2', { body: 'c' })] }), INDEXING);
    await cd.nextProcessed(before);
    const q1 = ip.status.itemLog.get('quiet-1');
    const q2 = ip.status.itemLog.get('quiet-2');
    expect(q1?.msgs).toEqual([['INFO', 'processed by pipeline "web"']]);
    expect(q2?.msgs).toBe(q1?.msgs);
    expect(q1?.elapsed).toBeGreaterThan(0);
    expect(ip.status.itemLog.get('warn-2')?.msgs.map((m) => m[0])).toEqual(['WARNING', 'INFO']);
  });

  it('shutting_down while Terminating; accepted again when it is cleared', async () => {
    ip.setTerminating(true);
    const err = await cd.processor(NAME).process(indexer.aor, 7, 'news', new OperationSet({ completed_op_id: 0, operations: [update(300, 'x', {})] }), INDEXING).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShuttingDown);
    expect((err as Error).message).toMatch(/ip-process is shutting down/);
    ip.setTerminating(false);
    const before = cd.processed.length;
    await cd.processor(NAME).process(indexer.aor, 7, 'news', new OperationSet({ completed_op_id: 0, operations: [update(301, 'x', {})] }), INDEXING);
    await cd.nextProcessed(before);
  });

  it('system_resource_error while a batch is in flight (one at a time); CurrentWork is 1 meanwhile', async () => {
    const release = indexer.hold();
    const before = cd.processed.length;
    const proc = cd.processor(NAME);
    await proc.process(indexer.aor, 8, 'news', new OperationSet({ completed_op_id: 0, operations: [update(400, 'slow', {})] }), INDEXING);
    expect(ip.status.processing).toBe(true);
    const err = await proc.process(indexer.aor, 8, 'news', new OperationSet({ completed_op_id: 0, operations: [update(401, 'next', {})] }), INDEXING).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SystemResourceError);
    expect(err).toMatchObject({ retryable: true, data: { what: 'busy: one batch at a time' } });
    release();
    const p = await cd.nextProcessed(before);
    expect(p.status.first_op_id).toBe(400);
    expect(ip.status.processing).toBe(false);
    await proc.process(indexer.aor, 8, 'news', new OperationSet({ completed_op_id: 0, operations: [update(402, 'after', {})] }), INDEXING);
    await cd.nextProcessed(before + 1);
  });

  it('an indexing session that refuses (system_resource_error) is retried with backoff; the batch arrives once', async () => {
    indexer.refuse = 2;
    indexer.refused = 0;
    const n = indexer.batches.length;
    const before = cd.processed.length;
    await cd.processor(NAME).process(indexer.aor, 9, 'news', new OperationSet({ completed_op_id: 0, operations: [update(500, 'retry', {})] }), INDEXING);
    const p = await cd.nextProcessed(before);
    expect(indexer.refused).toBe(2);
    expect(indexer.batches.length).toBe(n + 1);
    expect(p.completed).toBe(true);
    expect(ip.status.batchLog.get('500')?.msgs).toContainEqual(['INFO', 'forwarded to the indexing session after 3 attempts']);
  });

  it('an indexing session that does not exist: processed says completed=false at once', async () => {
    const ghost: Aor = { ...indexer.aor, object_id: 'core_session/ghost' };
    const before = cd.processed.length;
    const t0 = Date.now();
    await cd.processor(NAME).process(ghost, 10, 'news', new OperationSet({ completed_op_id: 0, operations: [update(600, 'lost', {})] }), INDEXING);
    const p = await cd.nextProcessed(before);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(p).toMatchObject({ completed: false, status: { first_op_id: 600, last_op_id: 600, state: OperationState.completed } });
    expect(ip.status.batchLog.get('600')).toMatchObject({ status: 'ERROR' });
  });

  it('an empty batch is forwarded as is and reported with first = last = completed_op_id', async () => {
    const before = cd.processed.length;
    await cd.processor(NAME).process(indexer.aor, 14, 'news', new OperationSet({ completed_op_id: 77, operations: [] }), INDEXING);
    const p = await cd.nextProcessed(before);
    expect(p).toMatchObject({ completed: true, status: { first_op_id: 77, last_op_id: 77, errors: [], warnings: [] } });
    expect(indexer.batches.at(-1)).toMatchObject({ completed_op_id: 77, operations: [] });
  });

  it('out of memory (heap above the limit): system_resource_error saying so', async () => {
    const tight = await startItemProcessor({ nats: ns.url, name: 'ip-tight', statusListen: '127.0.0.1', maxHeapUsedBytes: 1, retry: { initialMs: 20, maxMs: 200 } });
    try {
      await tight.whenRegistered();
      const err = await cd.processor('ip-tight').process(indexer.aor, 11, 'news', new OperationSet({ completed_op_id: 0, operations: [] }), INDEXING).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SystemResourceError);
      expect((err as Error).message).toMatch(/out of memory/);
    } finally {
      await tight.stop();
    }
  });

  it('processor_server::flush waits for the batch in flight', async () => {
    const release = indexer.hold();
    const proc = cd.processor(NAME);
    await proc.process(indexer.aor, 12, 'news', new OperationSet({ completed_op_id: 0, operations: [update(700, 'f', {})] }), INDEXING);
    let flushed = false;
    const f = proc.flush().then(() => (flushed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(flushed).toBe(false);
    release();
    await f;
    await waitFor(() => flushed);
  });

  it('stop finishes the batch in flight after unregistering (4.1.5): the indexer still gets it, processed still goes out', async () => {
    const other = await startItemProcessor({ nats: ns.url, name: 'ip-stopping', statusListen: '127.0.0.1', retry: { initialMs: 20, maxMs: 200 } });
    await other.whenRegistered();
    const release = indexer.hold();
    const n = indexer.batches.length;
    const before = cd.processed.length;
    await cd.processor('ip-stopping').process(indexer.aor, 13, 'news', new OperationSet({ completed_op_id: 0, operations: [update(800, 'last', {})] }), INDEXING);
    const stopped = other.stop();
    await waitFor(() => cd.logOf('ip-stopping').includes('master.unregister_procserver(ip-stopping)'), { what: 'unregistered' });
    release();
    await stopped;
    expect(indexer.batches.length).toBe(n + 1);
    expect((await cd.nextProcessed(before)).name).toBe('ip-stopping');
    expect(cd.logOf('ip-stopping').slice(-3)).toEqual(['handler.unregister_procserver(ip-stopping)', 'master.unregister_procserver(ip-stopping)', 'handler.processed(ip-stopping)']);
  });
});
