import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { GuaranteeSet } from '@esp/codecs';
import { DISPATCHER_NAME, EXTERNAL_SESSION_PORT_OFFSET, SessionNotOwned, sessionFactoryInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const log = createLogger('e2e', {}, { level: 'warn' });
const PING_MS = 200;
const N = 1500;
/** The client's owner token, given here so that this test may open the client's session again itself. */
const TOKEN = 'distributor-failover-owner-token';
const doc = (i: number): FeedDocument => ({ id: `fo-${i}`, attributes: { title: `failover ${i}`, body: `text of document ${i}`, content_type: 'text/plain' } });

/**
 * Session replication off (--session-replication off): the behaviour without it, where a session dies with its
 * distributor and the client sends again every operation without a final status (session-replication-failover.e2e
 * shows the same kill with it). Name server, indexer, three content distributors and three item processors as
 * separate processes. The first
 * distributor starts alone, so it is master, and the item processors and the client's session are all on it; then
 * the two backups start. Killing the master then takes the session and every processor's handler with it.
 */
describe('content distributor failover under a continuous feed (MS-FSCDFT 3, separate processes)', () => {
  let ns: NatsServer;
  let dir: string;
  let client: Middleware;
  const procs: ChildService[] = [];
  const cds: ChildService[] = [];
  let processors: ChildService[] = [];
  const svc = async (entry: string, args: string[]) => {
    const s = await ChildService.start({ entry, args: ['--nats', ns.url, ...args], startTimeoutMs: 60_000 });
    procs.push(s);
    return s;
  };
  const distributor = (node: number) =>
    svc('apps/content-distributor/src/main.ts', ['--node-id', String(node), '--collections', 'fo', '--ping-interval-ms', String(PING_MS), '--check-master-ms', String(PING_MS), '--heartbeat-ms', '250', '--session-replication', 'off']);

  beforeAll(async () => {
    ns = await NatsServer.start();
    dir = mkdtempSync(join(tmpdir(), 'esp-failover-'));
    const pipelineFile = join(dir, 'pipeline.json');
    // documents fo-600 to fo-699 take 100 ms each, 5 s a batch of 50: the master is killed while an item processor
    // holds such a batch, whose finals come after the client has failed over and sent it again (same operation ids:
    // the indexer arbitrates)
    writeFileSync(
      pipelineFile,
      JSON.stringify({ pipelines: { standard: [{ type: 'utf8' }, { type: 'fail', name: 'slow', delay_ms: 100, delay_id_pattern: '^fo-6\\d\\d$' }, { type: 'normalize' }] }, default_pipeline: 'standard' }),
    );
    await svc('apps/name-server/src/main.ts', []);
    const [, d0] = await Promise.all([svc('apps/indexer/src/main.ts', ['--data', join(dir, 'index'), '--collections', 'fo']), distributor(0)]);
    cds.push(d0);
    processors = await Promise.all([1, 2, 3].map((i) => svc('apps/item-processor/src/main.ts', ['--name', `ip-${i}`, '--status-port', '0', '--pipeline-config', pipelineFile, '--heartbeat-ms', '250'])));
    client = await Middleware.connect({ name: 'e2e-client', servers: ns.url, logger: createLogger('e2e-client', {}, { level: 'warn' }) });
  }, 120_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await Promise.all(procs.map((p) => p.kill()));
    await ns?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL of the master mid-feed: a backup takes over, the client opens its session again and resends; every operation completes exactly once', async () => {
    const feeding = await FeedingClient.open({ mw: client, collection: 'fo', log, batchSize: 50, sessionCheckMs: 100, timeoutMs: 10_000, ownerToken: TOKEN });
    cds.push(...(await Promise.all([distributor(1), distributor(2)])));
    await waitFor(() => cds[0]?.logs.filter((l) => l['msg'] === 'dispatcher registered').length === 2, { what: 'both backups registered', timeoutMs: 10_000 });
    const feeder = (async () => {
      for (let i = 0; i < N; i++) await feeding.feed(doc(i));
    })();
    // the slow batches (operation ids 601-700 are documents fo-600 to fo-699, 5 s each) are with the item
    // processors once 600 operations are completed (told by the client, not by the processors' logs, which a
    // processor busy in a slow stage writes late)
    await waitFor(() => feeding.snapshot.completed >= 600, { what: '600 operations completed', timeoutMs: 60_000, intervalMs: 5 });
    await new Promise((r) => setTimeout(r, 100));
    const killedAt = Date.now();
    await cds[0]?.kill();
    // a backup is master: its session_factory is bound and answers
    const takeoverMs = await waitFor(
      async () => {
        const b = await client.names.resolve(DISPATCHER_NAME, sessionFactoryInterface.type, sessionFactoryInterface.version).catch(() => undefined);
        if (!b || b.aor.object_id === 'session_factory_0') return undefined;
        const ok = await client.proxy(sessionFactoryInterface, b.aor, { timeoutMs: 500 }).__ping().then(() => true, () => false);
        return ok ? Date.now() - killedAt : undefined;
      },
      { what: 'a new master', timeoutMs: 15_000, intervalMs: 5 },
    );
    await feeder;
    const { stats, outcomes, unfinished } = await feeding.drain(120_000);
    process.stdout.write(`takeover ${takeoverMs} ms (ping ${PING_MS} ms); ${JSON.stringify(stats)}\n`);
    expect(takeoverMs).toBeLessThan(3 * PING_MS + 2000);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ submitted: N, completed: N, failed: 0, duplicateFinals: 0 });
    expect(stats.failovers).toBeGreaterThanOrEqual(1);
    // the operations held by item processors of the dead master were sent again and still ended once each
    expect(stats.resentAfterFailover).toBeGreaterThanOrEqual(50);
    // without session replication the new session holds nothing: acknowledged operations are among those sent again
    expect(stats.acknowledgedResent).toBeGreaterThanOrEqual(50);
    expect(outcomes.size).toBe(N);
    for (let i = 0; i < N; i++) expect(outcomes.get(`fo-${i}`)?.kind).toBe('completed');
    // the item processors found the new distributors (MS-FSDPD 3.4.6): the idle ones because their procserver_handler
    // stopped answering __ping, the busy ones when processed failed
    // (an idle one notices at its next handler check, which on a loaded machine may come after the feed ended)
    for (const p of processors) {
      await waitFor(() => p.logs.filter((l) => l['msg'] === 'registered with the content distributor').length >= 2, {
        timeoutMs: 15_000,
        what: 'each item processor registered with a content distributor again after the failover',
      });
    }
    expect(processors.some((p) => p.logs.some((l) => l['msg'] === 'reregistering' && String(l['reason']).includes('procserver_handler is gone')))).toBe(true);
    // the new master forwards: recreate of the client's id, with its owner token, returns the existing session (found
    // with get_sessions on the node that holds it), twice the same; without the token it is refused; create with
    // external_client puts a new session on base port + 391
    const { proxy: factory } = await client.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME);
    const none = new GuaranteeSet({ guarantees: [] });
    // a master re-checking its binding answers server_busy (retryable) for a moment, more so on a loaded machine
    const retrying = async <T>(call: () => Promise<T>): Promise<T> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await call();
        } catch (err) {
          if ((err as { retryable?: boolean }).retryable !== true || attempt >= 100) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    const again = await retrying(() => factory.recreate(feeding.sessionId, 'fo', none, 0, false, TOKEN));
    expect(again.object_id).toMatch(new RegExp(`^session_[12]_${feeding.sessionId}_[A-Za-z0-9_-]{16}$`));
    expect(await retrying(() => factory.recreate(feeding.sessionId, 'fo', none, 0, false, TOKEN))).toEqual(again);
    await expect(retrying(() => factory.recreate(feeding.sessionId, 'fo', none, 0, false))).rejects.toBeInstanceOf(SessionNotOwned);
    const external = await retrying(() => factory.create(feeding.sessionId + 1, 'fo', none, 0, true, TOKEN));
    expect(external.port).toBe(16000 + EXTERNAL_SESSION_PORT_OFFSET);
    await retrying(() => factory.destroy_session(feeding.sessionId + 1, TOKEN));
    await feeding.close();
  }, 180_000);
});
