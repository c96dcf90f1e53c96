import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { coreSessionFactoryInterface, coreSessionInterface, INDEXING_DISPATCHER_NAME } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware, serveNameServer } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIndexer, type Indexer } from '../src/indexer';
import { CallbackRecorder } from './callback-recorder';
import { batch, update } from './ops';

/** Log lines of the indexer, as objects. */
function recordingLogger(lines: Record<string, unknown>[]) {
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return createLogger('indexer', {}, { level: 'info', destination });
}

/**
 * Sessions whose client is gone do not live for ever: statuses owed to a callback object nobody serves are given up
 * after callbackGiveUpMs (deleted from the outbox, logged, counted), and a session with no open, no batch and no
 * callback delivered for sessionIdleMs is forgotten with its journal rows, so that a restart does not bring it back.
 * The indexer in process on a real nats-server with the name server; the client's callback objects go away.
 */
describe('indexer: gone callbacks given up, idle sessions reaped (real nats-server)', () => {
  let ns: NatsServer;
  let nameServer: Middleware;
  let client: Middleware;
  let dir: string;
  const open: { indexer: Indexer; mw: Middleware }[] = [];

  const start = async (lines: Record<string, unknown>[], o: { idleMs: number; giveUpMs: number }) => {
    const mw = await Middleware.connect({ name: 'indexer', servers: ns.url });
    const indexer = await startIndexer({
      mw,
      dataDir: dir,
      collections: ['reap'],
      basePort: 18000,
      callbackRetryMinMs: 20,
      callbackRetryMaxMs: 200,
      sessionIdleMs: o.idleMs,
      callbackGiveUpMs: o.giveUpMs,
      logger: recordingLogger(lines),
    });
    open.push({ indexer, mw });
    return indexer;
  };
  const stop = async () => {
    for (const { indexer, mw } of open.splice(0)) {
      await indexer.close();
      await mw.close();
    }
  };

  beforeAll(async () => {
    ns = await NatsServer.start();
    nameServer = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nameServer);
    dir = mkdtempSync(join(tmpdir(), 'indexer-reaping-'));
    client = await Middleware.connect({ name: 'client', servers: ns.url, timeoutMs: 10_000 });
  });
  afterAll(async () => {
    await stop();
    await client?.close();
    await nameServer?.close();
    await ns?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('statuses owed to a callback object that is gone are given up after the give-up time; the session is then reaped once idle; a restart brings back neither', async () => {
    const lines: Record<string, unknown>[] = [];
    // no reaping in this run: only the give-up
    const indexer = await start(lines, { idleMs: 0, giveUpMs: 1500 });
    const factory = (await client.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME)).proxy;
    const live = await CallbackRecorder.start(client, 'live-callback');
    // the client that goes away has a connection of its own, and its callback object with it
    const goneClient = await Middleware.connect({ name: 'gone-client', servers: ns.url });
    const goneCb = await CallbackRecorder.start(goneClient, 'gone-callback');
    const liveSession = client.proxy(coreSessionInterface, await factory.create(1, 'reap', live.aor));
    const goneSession = client.proxy(coreSessionInterface, await factory.create(2, 'reap', goneCb.aor));
    await goneSession.process(batch(0, update(1, 'a', { title: 'first' })));
    await waitFor(() => goneCb.acked.length >= 2, { what: 'the first statuses delivered' });
    await goneClient.close();
    const t0 = Date.now();
    await goneSession.process(batch(1, update(2, 'b', { title: 'second' })));
    const gaveUp = await waitFor(() => lines.find((l) => l['msg'] === 'callback object gone: statuses given up (deleted from the outbox)' && l['session'] === 2), {
      what: 'the statuses of session 2 given up',
      timeoutMs: 15_000,
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
    expect(gaveUp).toMatchObject({ statuses: 2, gone_ms: 1500 });
    expect(indexer.counters.callbacksGivenUp).toBe(2);
    // the live session is untouched
    await liveSession.process(batch(0, update(3, 'c', { title: 'third' })));
    await waitFor(() => live.acked.length >= 2, { what: 'the live session still delivers' });
    expect(indexer.sessionIds().sort()).toEqual([1, 2]);
    await stop();

    // the next start owes nothing to the gone callback (the outbox rows were deleted); with a short idle time,
    // both sessions, restored from the journal, are reaped when nobody comes for them
    const lines2: Record<string, unknown>[] = [];
    const again = await start(lines2, { idleMs: 1500, giveUpMs: 1500 });
    const restored = lines2.find((l) => l['msg'] === 'sessions restored from the journal');
    expect(restored).toMatchObject({ sessions: 2, callbacks_owed: 0 });
    await waitFor(() => again.sessionIds().length === 0, { what: 'both restored sessions reaped', timeoutMs: 15_000 });
    const reaped = lines2.filter((l) => String(l['msg']).startsWith('session reaped'));
    expect(reaped.map((l) => l['session']).sort()).toEqual([1, 2]);
    expect(again.counters.reaped).toBe(2);
    await stop();

    // and the journal has them no more
    const lines3: Record<string, unknown>[] = [];
    const third = await start(lines3, { idleMs: 0, giveUpMs: 0 });
    expect(third.sessionIds()).toEqual([]);
    expect(lines3.some((l) => l['msg'] === 'sessions restored from the journal')).toBe(false);
    await stop();
  }, 60_000);

  it('a session that keeps feeding or taking callbacks is not reaped; one left alone is', async () => {
    const lines: Record<string, unknown>[] = [];
    const indexer = await start(lines, { idleMs: 1500, giveUpMs: 0 });
    const factory = (await client.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME)).proxy;
    const cb = await CallbackRecorder.start(client, 'busy-callback');
    const busy = client.proxy(coreSessionInterface, await factory.create(10, 'reap', cb.aor));
    await factory.create(11, 'reap', cb.aor);
    for (let i = 0; i < 12; i++) {
      await busy.process(batch(i, update(100 + i, `busy-${i}`, { title: `busy ${i}` })));
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(indexer.sessionIds()).toEqual([10]);
    expect(lines.filter((l) => String(l['msg']).startsWith('session reaped')).map((l) => l['session'])).toEqual([11]);
    await stop();
  }, 30_000);
});
