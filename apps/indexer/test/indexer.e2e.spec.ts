import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperationLost, ProcessingError } from '@esp/codecs';
import {
  coreSessionFactoryInterface,
  coreSessionInterface,
  INDEX_SEARCH_NAME,
  INDEXING_DISPATCHER_NAME,
  searchInterface,
  SystemResourceError,
  UnknownCollection,
  UnknownSession,
  type ProxyOf,
} from '@esp/interfaces';
import { BadParameter, Middleware, ObjectNotExist, serveNameServer } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexerErrorCode } from '../src/indexer-errors';
import { startIndexer, type Indexer } from '../src/indexer';
import { CallbackRecorder } from './callback-recorder';
import { batch, failed, lost, partial, remove, update } from './ops';

const SEARCH_CLI = 'tools/search-cli/src/main.ts';
const ROOT = new URL('../../../', import.meta.url).pathname;

/** Runs the search CLI as its own process (asynchronously: the indexer of this test answers from this process). */
function searchCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', SEARCH_CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('indexer in process, on a real nats-server with the name server', () => {
  let ns: NatsServer;
  let nameServer: Middleware;
  let indexerMw: Middleware;
  let client: Middleware;
  let indexer: Indexer;
  let dir: string;
  let factory: ProxyOf<typeof coreSessionFactoryInterface>;
  let search: ProxyOf<typeof searchInterface>;
  let nextObject = 0;
  const recorder = () => CallbackRecorder.start(client, `client-callback-${nextObject++}`);

  beforeAll(async () => {
    ns = await NatsServer.start();
    nameServer = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nameServer);
    dir = mkdtempSync(join(tmpdir(), 'indexer-e2e-'));
    indexerMw = await Middleware.connect({ name: 'indexer', servers: ns.url });
    indexer = await startIndexer({
      mw: indexerMw,
      dataDir: dir,
      collections: ['default', 'news'],
      basePort: 17000,
      callbackRetryMinMs: 20,
      callbackRetryMaxMs: 200,
      closeWaitMs: 3_000,
    });
    client = await Middleware.connect({ name: 'client', servers: ns.url, timeoutMs: 10_000 });
    factory = (await client.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME)).proxy;
    search = (await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME)).proxy;
  });
  afterAll(async () => {
    await indexer?.close();
    await indexerMw?.close();
    await client?.close();
    await nameServer?.close();
    await ns?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('binds the factory and search at their names, on base port + 390; an unknown collection raises unknown_collection', async () => {
    expect(indexer.factory).toMatchObject({ port: 17390, object_id: 'indexing-dispatcher', interface_type: 'coreprocessing::session_factory' });
    expect((await client.names.resolve(INDEX_SEARCH_NAME, 'indexing::search', '1.0')).aor.port).toBe(17390);
    const cb = await recorder();
    const err = await factory.create(100, 'nope', cb.aor).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownCollection);
    expect((err as UnknownCollection).message).toMatch(/"nope" is not served .*default, news/);
    await expect(search.count('nope')).rejects.toBeInstanceOf(UnknownCollection);
  });

  it('the feeding chain end: every operation gets exactly one final, secured first, lost ones named, late copies ignored', async () => {
    const cb = await recorder();
    const aor = await factory.create(1, 'news', cb.aor);
    expect(aor).toMatchObject({ object_id: 'indexing-session-1', port: 17390, interface_type: 'coreprocessing::session' });
    const session = client.proxy(coreSessionInterface, aor);

    const b1 = batch(
      0,
      update(1, 'storm', { title: 'Storm over the North Sea', body: 'Gale force winds and heavy rain expected tonight.' }),
      update(2, 'calm', { title: 'A calm day', body: 'Sunshine everywhere.' }),
      update(3, 'tmp', { title: 'Temporary' }),
    );
    await session.process(b1);
    await session.process(batch(0, remove(4, 'tmp'), partial(5, 'calm', { body: 'Now windy at the coast.' }), partial(6, 'missing', { body: 'x' }), failed(7, 'bad-xml', 1), lost(8, 'lost-doc', 1)));
    await waitFor(() => cb.acked.length >= 5, { what: 'the statuses of the first two batches' });

    // a late copy of the first batch (an item processor that retried after its lease ran out)
    await session.process(b1);
    // next batch: the client has every final up to 3; op 2 shows up again as a lost copy: ignored
    await session.process(batch(3, update(9, 'new', { title: 'Fresh news' }), lost(2, 'calm', 1), lost(10, 'lost-too', 1)));
    await waitFor(() => cb.acked.length >= 8, { what: 'the statuses of the last batch' });
    await new Promise((r) => setTimeout(r, 200)); // anything more would be a duplicate

    expect(cb.briefs()).toEqual([
      'secured 1-3',
      'completed 1-3',
      'secured 4-7',
      `completed 4-7 errors=[6:${IndexerErrorCode.no_such_document},7:7]`,
      'lost 8-8 errors=[8:4]',
      'secured 9-9',
      'completed 9-9',
      'lost 10-10 errors=[10:4]',
    ]);
    expect(Object.values(cb.finalCounts([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))).toEqual(Array(10).fill(1));
    expect(cb.securedBeforeCompleted()).toBe(true);
    const [, , , completed, lostStatus] = cb.acked;
    expect(completed!.errors[1]).toBeInstanceOf(ProcessingError); // the processing error, carried as it was made
    expect(completed!.errors[0]).toMatchObject({ subsystem: 'indexing', session_id: 1, operation_id: 6 });
    expect(lostStatus!.errors[0]).toBeInstanceOf(OperationLost);
    expect(cb.acked.every((s) => s.subsystem === 'indexing')).toBe(true);

    // what was written is findable; the failed and lost ones are not
    expect(await search.get('news', 'storm')).toMatchObject({ id: 'storm', collection: 'news', op_id: 1, attributes: { title: 'Storm over the North Sea' } });
    expect((await search.get('news', 'calm'))!.attributes).toEqual({ title: 'A calm day', body: 'Now windy at the coast.' });
    for (const gone of ['tmp', 'missing', 'bad-xml', 'lost-doc', 'lost-too']) expect(await search.get('news', gone)).toBeNull();
    expect(await search.count('news')).toBe(3);
    const r = await search.search('news', 'wind*', 10, 0);
    expect(r.hits.map((h) => h.id).sort()).toEqual(['calm', 'storm']);
    expect((await search.search('news', 'north sea storm', 10, 0)).hits[0]).toMatchObject({ id: 'storm', title: 'Storm over the North Sea' });
  });

  it('search: bm25 ranking with snippets, any text is a valid query, a query without words is bad_parameter', async () => {
    const cb = await recorder();
    const session = client.proxy(coreSessionInterface, await factory.create(2, 'default', cb.aor));
    await session.process(
      batch(
        0,
        update(1, 'title-hit', { title: 'Volcano erupts', body: 'Ash clouds over the island.' }),
        update(2, 'body-hit', { title: 'Island news', body: 'The volcano was quiet for years.' }),
        update(3, 'other', { title: 'Markets', body: 'Shares rose.' }),
      ),
    );
    await waitFor(() => cb.acked.length >= 2);
    const r = await search.search('default', 'volcano', 10, 0);
    expect(r.total).toBe(2);
    expect(r.hits.map((h) => h.id)).toEqual(['title-hit', 'body-hit']);
    expect(r.hits[0]!.score).toBeGreaterThan(r.hits[1]!.score);
    expect(r.hits[1]!.snippet).toMatch(/\[volcano\]/);
    for (const q of ['"', 'volcano OR', 'title:volcano', 'NEAR(', "'; DROP TABLE documents; --", '(((']) {
      const res = await search.search('default', q, 10, 0).catch((e: unknown) => e);
      expect(res instanceof BadParameter || (typeof res === 'object' && res !== null && 'total' in res)).toBe(true);
    }
    expect((await search.search('default', 'title:volcano', 10, 0)).total).toBe(0); // a word, not a column filter
    const err = await search.search('default', '*** !!!', 10, 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadParameter);
    expect((err as BadParameter).data).toMatchObject({ argument: 'query' });
    expect((err as Error).message).toMatch(/no word to search for/);
    expect(await search.count('default')).toBeGreaterThanOrEqual(3);
  });

  it('the search CLI prints ranked hits (text and --json) and fails clearly', async () => {
    const [text, json, empty, unknown, usage] = await Promise.all([
      searchCli(['volcano', '--collection', 'default', '--nats', ns.url]),
      searchCli(['volcano', '-c', 'default', '--limit', '1', '--json', '--nats', ns.url]),
      searchCli(['***', '--nats', ns.url]),
      searchCli(['volcano', '-c', 'nope', '--nats', ns.url]),
      searchCli(['--limit', 'x', 'volcano']),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^2 hits for "volcano" in default\n1\. \d+\.\d{3} {2}title-hit {2}Volcano erupts\n/);
    expect(text.stdout).toMatch(/2\. \d+\.\d{3} {2}body-hit {2}Island news\n +The \[volcano\] was quiet/);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ query: 'volcano', collection: 'default', total: 2, hits: [{ rank: 1, id: 'title-hit', title: 'Volcano erupts' }] });
    expect(empty).toMatchObject({ code: 1, stderr: expect.stringMatching(/no word to search for .*\[bad_parameter\]/) });
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/"nope" is not served.*\[unknown_collection\]/) });
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringMatching(/--limit must be an integer/) });
  });

  it('a full queue raises system_resource_error (retryable); the queued batches are all written once writes resume', async () => {
    const cb = await recorder();
    const session = client.proxy(coreSessionInterface, await factory.create(3, 'default', cb.aor));
    const release = indexer.holdWrites();
    // process resolves only once its batch is committed, so these stay pending while writes are held
    let queued: Promise<unknown>[] = [];
    try {
      queued = Array.from({ length: 64 }, (_, i) => session.process(batch(0, update(i + 1, `q-${i + 1}`, { title: `queued ${i + 1}` }))));
      let settled = 0;
      for (const q of queued) void q.then(() => settled++, () => settled++);
      await waitFor(() => indexer.sessionIds().includes(3) && true, { what: 'session' });
      await new Promise((r) => setTimeout(r, 300));
      const err = await session.process(batch(0, update(65, 'q-65', {}))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SystemResourceError);
      expect((err as SystemResourceError).retryable).toBe(true);
      expect(settled).toBe(0); // not one is acknowledged before it is on disk
      expect(cb.acked).toEqual([]); // nothing is secured while nothing is written
    } finally {
      release();
    }
    await Promise.all(queued);
    await waitFor(() => cb.acked.length >= 128, { what: '64 secured + 64 completed' });
    expect(Object.values(cb.finalCounts(Array.from({ length: 64 }, (_, i) => i + 1))).every((n) => n === 1)).toBe(true);
    expect(cb.securedBeforeCompleted()).toBe(true);
    await session.process(batch(0, update(65, 'q-65', { title: 'after the wait' }))); // the retry now goes through
    await waitFor(() => cb.acked.length >= 130);
    expect(await search.get('default', 'q-65')).not.toBeNull();
  });

  it('a client that refuses its callbacks gets them later, in order; recreate moves them to a new callback object', async () => {
    const away = await recorder();
    away.refuse = () => true;
    const session = client.proxy(coreSessionInterface, await factory.create(4, 'default', away.aor));
    await session.process(batch(0, update(1, 'r-1', {}), update(2, 'r-2', {})));
    await waitFor(() => away.attempts.length >= 3, { what: 'retried callbacks' });
    expect(away.acked).toEqual([]);
    const back = await recorder();
    const again = await factory.recreate(4, 'default', back.aor);
    expect(again.object_id).toBe('indexing-session-4'); // the same session object
    await waitFor(() => back.acked.length >= 2);
    expect(back.briefs()).toEqual(['secured 1-2', 'completed 1-2']);
    // what was owed went in one callbacks call (operation_callback 5.1), not one call per status
    expect(back.calls).toBe(1);
    // create of an existing id returns it too
    expect((await factory.create(4, 'default', back.aor)).object_id).toBe('indexing-session-4');
    // an id of another collection is refused clearly
    await expect(factory.create(4, 'news', back.aor)).rejects.toThrow(/collection "default", not "news"/);
  });

  it('close: queued batches are written and reported first, then the session object is gone', async () => {
    const cb = await recorder();
    const session = client.proxy(coreSessionInterface, await factory.create(5, 'news', cb.aor));
    const release = indexer.holdWrites();
    const written = session.process(batch(0, update(1, 'closing-1', { title: 'written before close' })));
    await new Promise((r) => setTimeout(r, 100));
    const closing = factory.close(5);
    await new Promise((r) => setTimeout(r, 50));
    release();
    await written;
    await closing;
    expect(cb.briefs()).toEqual(['secured 1-1', 'completed 1-1']);
    expect(await search.get('news', 'closing-1')).not.toBeNull();
    const err = await session.process(batch(0, update(2, 'closing-2', {}))).catch((e: unknown) => e);
    expect(err instanceof ObjectNotExist || err instanceof UnknownSession).toBe(true);
    expect(indexer.sessionIds()).not.toContain(5);
    await factory.close(5); // closing twice is harmless
  });
});
