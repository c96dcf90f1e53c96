/**
 * An indexer that holds the batch key, on a real nats-server: its sessions' object ids end in a suffix that only
 * the key gives (the same after a restart), and a batch is written only with the distributor's token for exactly
 * those operations and documents (batch_not_authorized otherwise, nothing written).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchNotAuthorized, BatchSigner, coreSessionFactoryInterface, coreSessionInterface, INDEX_SEARCH_NAME, INDEXING_DISPATCHER_NAME, searchInterface } from '@esp/interfaces';
import { Middleware, ObjectNotExist, serveNameServer } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIndexer, type Indexer } from '../src/indexer';
import { CallbackRecorder } from './callback-recorder';
import { batch, update } from './ops';

describe('an indexer with the batch key', () => {
  let ns: NatsServer;
  let nameServer: Middleware;
  let indexerMw: Middleware;
  let client: Middleware;
  let indexer: Indexer;
  let dir: string;
  const signer = new BatchSigner(Buffer.alloc(32, 42));
  const start = async () => {
    indexer = await startIndexer({ mw: indexerMw, dataDir: dir, collections: ['default'], basePort: 18000, batchSigner: signer, closeWaitMs: 1_000 });
  };

  beforeAll(async () => {
    ns = await NatsServer.start();
    nameServer = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nameServer);
    dir = mkdtempSync(join(tmpdir(), 'indexer-token-'));
    indexerMw = await Middleware.connect({ name: 'indexer', servers: ns.url });
    await start();
    client = await Middleware.connect({ name: 'client', servers: ns.url, timeoutMs: 10_000 });
  });
  afterAll(async () => {
    await indexer?.close();
    await indexerMw?.close();
    await client?.close();
    await nameServer?.close();
    await ns?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('takes a batch with its token only; the session object id is unpredictable, and the same after a restart', async () => {
    const factory = (await client.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME)).proxy;
    const search = (await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME)).proxy;
    const cb = await CallbackRecorder.start(client, 'token-callback');
    const aor = await factory.create(7, 'default', cb.aor);
    expect(aor.object_id).toBe(signer.sessionObjectId(7));
    expect(aor.object_id).toMatch(/^indexing-session-7-[0-9a-f]{24}$/);
    await expect(client.proxy(coreSessionInterface, { ...aor, object_id: 'indexing-session-7' }, { timeoutMs: 2_000 }).process(batch(0, update(1, 'a', { title: 'x' })))).rejects.toBeInstanceOf(ObjectNotExist);

    const session = client.proxy(coreSessionInterface, aor);
    const good = batch(0, update(1, 'doc-a', { title: 'alpha words' }), update(2, 'doc-b', { title: 'beta words' }));
    const token = signer.token(7, 'default', good);
    const forged = batch(0, update(1, 'victim', { title: 'forged words' }), update(2, 'doc-b', { title: 'beta words' }));
    await expect(session.process(good)).rejects.toBeInstanceOf(BatchNotAuthorized);
    await expect(session.process(forged, token)).rejects.toThrow(/wrong batch token; only the item processor it was dispatched to may write it/);
    await expect(session.process(good, signer.token(8, 'default', good))).rejects.toBeInstanceOf(BatchNotAuthorized);
    await expect(session.process(good, new BatchSigner(Buffer.alloc(32, 1)).token(7, 'default', good))).rejects.toBeInstanceOf(BatchNotAuthorized);
    // the processor's work (other content, same operations and documents) is taken
    await session.process(batch(0, update(1, 'doc-a', { title: 'alpha processed' }), update(2, 'doc-b', { title: 'beta processed' })), token);
    await waitFor(() => cb.acked.length >= 2, { what: 'the statuses of the batch' });
    expect(cb.briefs()).toEqual(['secured 1-2', 'completed 1-2']);
    expect((await search.search('default', 'forged', 1, 0)).total).toBe(0);
    expect((await search.search('default', 'processed', 10, 0)).total).toBe(2);

    // restarted, the indexer serves the session at the same address, and checks the same tokens
    await indexer.close();
    await start();
    const next = batch(2, update(3, 'doc-c', { title: 'gamma' }));
    await expect(session.process(next)).rejects.toBeInstanceOf(BatchNotAuthorized);
    await session.process(next, signer.token(7, 'default', next));
    await waitFor(() => cb.acked.length >= 4, { what: 'the statuses after the restart' });
  });
});
