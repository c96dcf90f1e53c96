import { Action, DocumentError, OperationLost, OperationSet, OperationState, OperationStatusInfo, type Operation } from '@esp/codecs';
import {
  DISPATCHER_NAME,
  operationCallbackInterface,
  processingSessionInterface,
  ProcessorsBusy,
  sessionFactoryInterface,
  UnknownCollection,
  UnknownSession,
  type Aor,
} from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware, serveNameServer, type ServerObject } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedingClient } from '../src';

const log = createLogger('t', {}, { level: 'warn' });
const status = (first: number, last: number, state: OperationState, subsystem: 'indexing' | 'processing', errors: DocumentError[] = []) =>
  new OperationStatusInfo({ first_op_id: first, last_op_id: last, state, subsystem, errors, warnings: [] });

/**
 * A fake distributor + indexer in one: it answers session creation and batches, and calls the client back the way
 * the chain does, with twists chosen per test (lost batches, duplicate deliveries, busy refusals).
 */
describe('FeedingClient against a scripted chain on a real nats-server', () => {
  let ns: NatsServer;
  let server: Middleware;
  let clientMw: Middleware;
  /** Returns what process replies with (processing session 5.2: the batch's received status, or nothing). */
  let onBatch: (batch: OperationSet, callback: (s: OperationStatusInfo | OperationStatusInfo[]) => Promise<void>) => Promise<OperationStatusInfo[] | void>;
  const batches: number[][] = [];
  /** The session the factory hands out (a test replaces it to play a failover) and the client's callback. */
  let sessionObject: ServerObject<typeof processingSessionInterface>;
  let callbackAor: Aor | undefined;

  beforeAll(async () => {
    ns = await NatsServer.start();
    server = await Middleware.connect({ name: 'fake-chain', servers: ns.url, logger: log });
    await serveNameServer(server);
    clientMw = await Middleware.connect({ name: 'client', servers: ns.url, logger: log });
    const session = await server.activate(
      processingSessionInterface,
      {
        process: async (batch) => {
          batches.push(batch.operations.map((o: Operation) => o.id));
          const cb = server.proxy(operationCallbackInterface, callbackAor!);
          // a list goes in one `callbacks` call (operation_callback 5.1), as the indexer sends secured + completed
          const reply = await onBatch(batch, async (s) => {
            await (Array.isArray(s) ? cb.callbacks(s) : cb.callback(s));
          });
          return reply ?? [];
        },
        accepted_op_id: () => -1,
        close: () => undefined,
      },
      { object_id: 'session', port: 1 },
    );
    sessionObject = session;
    const factory = await server.activate(
      sessionFactoryInterface,
      {
        create_session: (_id, collection, callback) => {
          if (collection !== 'news') throw new UnknownCollection(`collection "${collection}" is not configured`);
          callbackAor = callback;
          return sessionObject.aor;
        },
        create: () => session.aor,
        recreate: () => session.aor,
        destroy_session: () => undefined,
      },
      { object_id: 'session_factory', port: 1 },
    );
    await server.names.bind(DISPATCHER_NAME, factory.aor);
  });
  afterAll(async () => {
    await clientMw?.close();
    await server?.close();
    await ns?.cleanup();
  });

  it('an unknown collection fails at open with unknown_collection', async () => {
    await expect(FeedingClient.open({ mw: clientMw, collection: 'sports', log })).rejects.toBeInstanceOf(UnknownCollection);
  });

  it('a final delivered twice is counted as a duplicate, not applied twice; lost operations come back under new ids', async () => {
    let lostOnce = false;
    onBatch = async (batch, cb) => {
      const ids = batch.operations.map((o) => o.id);
      const [first, last] = [ids[0]!, ids[ids.length - 1]!];
      const received = [status(first, last, OperationState.received, 'processing')];
      if (!lostOnce) {
        lostOnce = true;
        const lost = ids.map(
          (id) => new OperationLost({ error_code: 4, suggested_action: Action.resubmit, description: 'failed to submit operation to next subsystem', subsystem: 'processing', session_id: 1, operation_id: id, arguments: [] }),
        );
        setTimeout(() => void cb(status(first, last, OperationState.lost, 'processing', lost)), 10);
        return received;
      }
      setTimeout(async () => {
        await cb([status(first, last, OperationState.secured, 'indexing'), status(first, last, OperationState.completed, 'indexing')]);
        await cb(status(first, last, OperationState.completed, 'indexing')); // a retried delivery
      }, 10);
      return received;
    };
    batches.length = 0;
    const client = await FeedingClient.open({ mw: clientMw, collection: 'news', log, batchSize: 10 });
    for (let i = 0; i < 25; i++) await client.feed({ id: `d${i}`, attributes: { title: `t${i}` } });
    const { stats, outcomes, unfinished } = await client.drain(10_000);
    expect(unfinished).toEqual([]);
    // received came in process's replies: the 25 documents and the 10 sent again
    expect(stats).toMatchObject({ completed: 25, failed: 0, lost: 10, resubmitted: 10, received: 35, secured: 25 });
    // one repeated "completed" per final operation, all ignored (the repeats may land after drain returned)
    await waitFor(() => client.snapshot.duplicateFinals >= 25, { what: 'the repeated deliveries' });
    expect(client.snapshot.duplicateFinals).toBe(25);
    expect(client.snapshot.completed).toBe(25);
    expect(outcomes.get('d0')).toMatchObject({ kind: 'completed', attempts: 2 });
    expect(outcomes.get('d10')).toMatchObject({ kind: 'completed', attempts: 1 });
    // the lost batch 1..10 was sent again as new operations with higher ids
    expect(batches[0]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(batches.flat().filter((id) => id > 25)).toHaveLength(10);
  });

  it('processors_busy is retried; errors with drop fail the document once, limited_resubmit gives up after the bound', async () => {
    let refusals = 3;
    onBatch = async (batch, cb) => {
      if (refusals-- > 0) throw new ProcessorsBusy('no free item processor');
      const ids = batch.operations.map((o) => o.id);
      const [first, last] = [ids[0]!, ids[ids.length - 1]!];
      const errors = ids
        .filter((id) => id % 2 === 0)
        .map((id) => new DocumentError({ error_code: 101, suggested_action: id % 4 === 0 ? Action.drop : Action.limited_resubmit, description: 'bad', subsystem: 'processing', session_id: 1, operation_id: id, arguments: [] }));
      setTimeout(() => void cb(status(first, last, OperationState.completed, 'indexing', errors)), 5);
    };
    const client = await FeedingClient.open({ mw: clientMw, collection: 'news', log, batchSize: 4, limitedResubmits: 2 });
    for (let i = 0; i < 4; i++) await client.feed({ id: `e${i}`, attributes: {} });
    const { stats, outcomes, unfinished } = await client.drain(10_000);
    expect(unfinished).toEqual([]);
    expect(stats.busyRetries).toBeGreaterThanOrEqual(3);
    expect(stats.duplicateFinals).toBe(0);
    // e0 (op 1) and e2 (op 3) complete; e1 (op 2, limited_resubmit) and e3 (op 4, drop) fail after their rules
    expect(outcomes.get('e0')?.kind).toBe('completed');
    expect(outcomes.get('e3')).toMatchObject({ kind: 'failed', attempts: 1, error: { code: 101, suggestedAction: 'drop' } });
    const e1 = outcomes.get('e1');
    expect(e1?.kind === 'failed' || e1?.kind === 'completed').toBe(true);
    expect(e1!.attempts).toBeLessThanOrEqual(3);
  });

  it('a session closed under the client (reaped while it was idle) raises unknown_session: the client opens it again and sends the batch there', async () => {
    let closedOnce = false;
    onBatch = async (batch, cb) => {
      const ids = batch.operations.map((o) => o.id);
      const [first, last] = [ids[0]!, ids[ids.length - 1]!];
      if (!closedOnce && first > 10) {
        closedOnce = true;
        throw new UnknownSession('session 1 is closed');
      }
      setTimeout(() => void cb([status(first, last, OperationState.secured, 'indexing'), status(first, last, OperationState.completed, 'indexing')]), 5);
      return [status(first, last, OperationState.received, 'processing')];
    };
    const client = await FeedingClient.open({ mw: clientMw, collection: 'news', log, batchSize: 10 });
    for (let i = 0; i < 30; i++) await client.feed({ id: `u${i}`, attributes: { title: `u${i}` } });
    const { stats, unfinished } = await client.drain(10_000);
    expect(closedOnce).toBe(true);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: 30, failed: 0, failovers: 1 });
    await client.close();
  });

  // (last: it replaces the session the factory hands out)
  it('after a failover only operations above the new session accepted_op_id are sent again; acknowledged ones among them are counted', async () => {
    onBatch = async (batch, cb) => {
      const ids = batch.operations.map((o) => o.id);
      await cb(status(ids[0]!, ids[ids.length - 1]!, OperationState.received, 'processing')); // accepted, no final yet
    };
    const client = await FeedingClient.open({ mw: clientMw, collection: 'news', log, batchSize: 10, sessionCheckMs: 50 });
    for (let i = 0; i < 30; i++) await client.feed({ id: `f${i}`, attributes: {} });
    await client.flush();
    expect(client.snapshot.batches).toBe(3);
    // the distributor dies; the session opened again (replicated) holds the operations up to 20
    const resent: number[] = [];
    const second = await server.activate(
      processingSessionInterface,
      {
        process: (batch) => {
          resent.push(...batch.operations.map((o) => o.id));
          return [];
        },
        accepted_op_id: () => 20,
        close: () => undefined,
      },
      { object_id: 'session-2', port: 1 },
    );
    const first = sessionObject;
    sessionObject = second;
    await server.deactivate(first);
    await waitFor(() => client.snapshot.failovers === 1 && resent.length >= 10, { what: 'the failover and its resend' });
    expect(resent).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    // 21-30 had been acknowledged by the dead distributor, yet the new session does not hold them: counted
    expect(client.snapshot).toMatchObject({ resentAfterFailover: 10, acknowledgedResent: 10 });
    await server.proxy(operationCallbackInterface, callbackAor!).callback(status(1, 30, OperationState.completed, 'indexing'));
    const { stats, unfinished } = await client.drain(10_000);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: 30, duplicateFinals: 0, failovers: 1 });
  });
});

/**
 * The master dies while the client's create_session is in flight (the call is never answered, then nobody serves the
 * object any more), and a backup binds its own factory a moment later: the open goes on to the new master instead of
 * waiting out, and giving up with, the first call's deadline.
 */
describe('FeedingClient.open while the master dies in the middle of create_session', () => {
  it('opens on the backup once it has taken over', async () => {
    const ns = await NatsServer.start();
    const names = await Middleware.connect({ name: 'name-server', servers: ns.url, logger: log });
    const master = await Middleware.connect({ name: 'master', servers: ns.url, logger: log });
    const backup = await Middleware.connect({ name: 'backup', servers: ns.url, logger: log });
    const client = await Middleware.connect({ name: 'client', servers: ns.url, logger: log });
    try {
      await serveNameServer(names);
      const factoryOf = (mw: Middleware, objectId: string, create: (id: number) => Promise<Aor>) =>
        mw.activate(
          sessionFactoryInterface,
          { create_session: (id) => create(id), create: () => Promise.reject(new Error('unused')), recreate: () => Promise.reject(new Error('unused')), destroy_session: () => undefined },
          { object_id: objectId, port: 1 },
        );
      let stuckCalls = 0;
      const stuck = await factoryOf(master, 'session_factory_1', () => {
        stuckCalls++;
        return new Promise<Aor>(() => undefined);
      });
      const { revision } = await names.names.bind(DISPATCHER_NAME, stuck.aor);
      const session = await backup.activate(
        processingSessionInterface,
        { process: () => [], accepted_op_id: () => -1, close: () => undefined },
        { object_id: 'session', port: 2 },
      );
      const opened: number[] = [];
      const good = await factoryOf(backup, 'session_factory_2', async (id) => {
        opened.push(id);
        return session.aor;
      });

      const t0 = Date.now();
      const opening = FeedingClient.open({ mw: client, collection: 'news', log, timeoutMs: 20_000 });
      await waitFor(() => stuckCalls === 1, { what: 'create_session on the master' });
      // the master's objects go away at once (its close waits for the call it never answers, so it is not awaited)
      const masterClosed = master.close().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 1000));
      await names.names.unbind(DISPATCHER_NAME, sessionFactoryInterface.type, revision);
      await names.names.bind(DISPATCHER_NAME, good.aor);

      const feeding = await opening;
      expect(opened).toHaveLength(1);
      // one short attempt (5 s) on the dead master, then the backup: far less than the open's own 20 s deadline
      expect(Date.now() - t0).toBeLessThan(10_000);
      await feeding.close();
      await masterClosed;
    } finally {
      await client.close();
      await backup.close();
      await names.close();
      await ns.cleanup();
    }
  }, 30_000);
});
