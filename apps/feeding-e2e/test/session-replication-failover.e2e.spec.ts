import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedingClient, toOperation, type FeedDocument } from '@esp/content-client';
import { FeedingPriority, Guarantee, GuaranteeSet, OperationSet, OperationState, type OperationStatusInfo } from '@esp/codecs';
import { DISPATCHER_NAME, operationCallbackInterface, processingSessionInterface, ProcessorsBusy, SessionNotOwned, sessionFactoryInterface, UnsupportedGuaranteeSet, type ProxyOf } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const log = createLogger('e2e', {}, { level: 'warn' });
const PING_MS = 200;
const N = 1200;
const BATCH = 50;
const doc = (i: number): FeedDocument => ({ id: `sr-${i}`, attributes: { title: `replicated ${i}`, body: `text of document ${i}`, content_type: 'text/plain' } });

/**
 * Feeding sessions in session replication. Name server, indexer, three content distributors (session
 * replication on, the default) and two item processors, each its own process on a real nats-server. The first
 * distributor starts alone, so it is master, gets both item processors and the client's session; the session's
 * artifact is replicated to its SSR buddy, one of the two others. SIGKILL of that distributor while both processors
 * hold slow batches of the session: the new home of the session reactivates it from the replica and sends the
 * batches that were in flight to item processors again; the client sends again only what was never acknowledged.
 */
describe('feeding session in SSR: SIGKILL of the distributor holding it (separate processes)', () => {
  let ns: NatsServer;
  let dir: string;
  let client: Middleware;
  const procs: ChildService[] = [];
  const cds: ChildService[] = [];
  const svc = async (entry: string, args: string[]) => {
    const s = await ChildService.start({ entry, args: ['--nats', ns.url, ...args], startTimeoutMs: 60_000 });
    procs.push(s);
    return s;
  };
  const distributor = (node: number) =>
    svc('apps/content-distributor/src/main.ts', ['--node-id', String(node), '--collections', 'sr', '--ping-interval-ms', String(PING_MS), '--check-master-ms', String(PING_MS), '--heartbeat-ms', '250', '--session-timer-ms', '1500']);

  beforeAll(async () => {
    ns = await NatsServer.start();
    dir = mkdtempSync(join(tmpdir(), 'esp-ssr-feed-'));
    const pipelineFile = join(dir, 'pipeline.json');
    // documents sr-500 to sr-599 take 60 ms each, 3 s a batch of 50: the distributor is killed while both item
    // processors hold such a batch (operation ids 501-550 and 551-600)
    writeFileSync(
      pipelineFile,
      JSON.stringify({ pipelines: { standard: [{ type: 'utf8' }, { type: 'fail', name: 'slow', delay_ms: 60, delay_id_pattern: '^sr-5\\d\\d$' }, { type: 'normalize' }] }, default_pipeline: 'standard' }),
    );
    await svc('apps/name-server/src/main.ts', []);
    const [, d0] = await Promise.all([svc('apps/indexer/src/main.ts', ['--data', join(dir, 'index'), '--collections', 'sr']), distributor(0)]);
    cds.push(d0);
    await Promise.all([1, 2].map((i) => svc('apps/item-processor/src/main.ts', ['--name', `ip-${i}`, '--status-port', '0', '--pipeline-config', pipelineFile, '--heartbeat-ms', '250'])));
    await waitFor(() => d0.logs.filter((l) => l['msg'] === 'item processor registered').length >= 2, { what: 'both item processors on distributor 0', timeoutMs: 30_000 });
    cds.push(...(await Promise.all([distributor(1), distributor(2)])));
    await waitFor(() => d0.logs.filter((l) => l['msg'] === 'dispatcher registered').length === 2, { what: 'both backups registered', timeoutMs: 10_000 });
    client = await Middleware.connect({ name: 'e2e-client', servers: ns.url, logger: createLogger('e2e-client', {}, { level: 'warn' }) });
  }, 120_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await Promise.all(procs.map((p) => p.kill()));
    await ns?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a guarantee set the distributors cannot keep is refused with unsupported_guarantee_set (MS-FSCDFT 2.2.5), and no session is created', async () => {
    const { proxy: factory } = await client.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME);
    const cb = await client.activate(operationCallbackInterface, { callback: () => undefined, callbacks: () => undefined }, { object_id: 'unsupported-guarantees-callback', port: 0 });
    for (const guarantees of [[new Guarantee()], [new FeedingPriority({ priority: 0 }), new FeedingPriority({ priority: 0 })]]) {
      await expect(factory.create_session(313_131, 'sr', cb.aor, new GuaranteeSet({ guarantees }), 0, 'owner-token-of-session-313131')).rejects.toBeInstanceOf(UnsupportedGuaranteeSet);
      await expect(factory.create(313_131, 'sr', new GuaranteeSet({ guarantees }), 0, true, 'owner-token-of-session-313131')).rejects.toMatchObject({ code: 'unsupported_guarantee_set' });
    }
    expect(cds.some((d) => d.logs.some((l) => l['msg'] === 'session created' && l['session'] === 313_131))).toBe(false);
    await client.deactivate(cb);
  });

  it('the new home reactivates the session and re-dispatches its batches in flight; no acknowledged operation is sent again; every operation completes exactly once', async () => {
    const [d0, d1, d2] = cds as [ChildService, ChildService, ChildService];
    // the SSR view of three distributors (each logs a reshape when it hears the others)
    await waitFor(() => d0.logs.some((l) => l['msg'] === 'reshape' && String(l['view']).split(' → ').length >= 3), { what: 'distributor 0 sees three SSR members', timeoutMs: 15_000 });
    const feeding = await FeedingClient.open({ mw: client, collection: 'sr', log, batchSize: BATCH, sessionCheckMs: 100, timeoutMs: 10_000 });
    const sid = feeding.sessionId;
    await waitFor(() => d0.logs.some((l) => l['msg'] === 'session created' && l['session'] === sid), { what: 'the session on distributor 0 (the only one with item processors)', timeoutMs: 10_000 });
    const feeder = (async () => {
      for (let i = 0; i < N; i++) await feeding.feed(doc(i));
    })();
    // both slow batches (ids 501-600) are with the item processors once 500 operations are completed
    await waitFor(() => feeding.snapshot.completed >= 500, { what: '500 operations completed', timeoutMs: 60_000, intervalMs: 5 });
    await new Promise((r) => setTimeout(r, 300));
    const before = feeding.snapshot;
    await d0.kill();
    await feeder;
    const { stats, outcomes, unfinished } = await feeding.drain(120_000);
    process.stdout.write(`before the kill ${JSON.stringify(before)}\nafter ${JSON.stringify(stats)}\n`);
    // the new home: reactivated the session from its replica, with the batches in flight, and sent them again
    const home = [d1, d2].find((d) => d.logs.some((l) => l['msg'] === 'session reactivated from its replica' && l['session'] === sid));
    expect(home, 'a surviving distributor reactivated the session').toBeDefined();
    const reactivated = home!.logs.find((l) => l['msg'] === 'session reactivated from its replica' && l['session'] === sid)!;
    process.stdout.write(`reactivated ${JSON.stringify(reactivated)}\n`);
    expect(reactivated['batches']).toBeGreaterThanOrEqual(1);
    expect(reactivated['accepted']).toBeGreaterThanOrEqual(600);
    // (the originals may reach the indexer first: the copies then go to processors all the same, and are ignored)
    const redispatched = () => home!.logs.filter((l) => l['msg'] === 'in-flight batch of a reactivated session dispatched again' && l['session'] === sid);
    await waitFor(() => redispatched().length >= (reactivated['batches'] as number), { what: 'the batches in flight dispatched again by the new home', timeoutMs: 30_000 });
    const again = redispatched();
    expect(again.length).toBe(reactivated['batches']);
    // the slow batches at least were in flight at the kill (their item processors held them)
    expect(again.some((l) => (l['first'] as number) <= 551 && (l['last'] as number) >= 551)).toBe(true);
    // exactly once, nothing acknowledged sent again
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ submitted: N, completed: N, failed: 0, duplicateFinals: 0, acknowledgedResent: 0 });
    expect(stats.failovers).toBeGreaterThanOrEqual(1);
    // at most the one batch whose call was in the air at the kill (not acknowledged) is sent again
    expect(stats.resentAfterFailover).toBeLessThanOrEqual(BATCH);
    expect(outcomes.size).toBe(N);
    for (let i = 0; i < N; i++) expect(outcomes.get(`sr-${i}`)?.kind).toBe('completed');
    await feeding.close();
  }, 180_000);

  it('no client call after the kill: the replica timer makes the home reactivate the session, which sends its batch in flight again; each operation gets one final', async () => {
    const alive = [cds[1], cds[2]] as [ChildService, ChildService];
    const finals: OperationStatusInfo[] = [];
    const cb = await client.activate(operationCallbackInterface, {
        callback: (st) => void (st.state === OperationState.completed && st.subsystem === 'indexing' && finals.push(st)),
        callbacks: (sts) => void sts.forEach((st) => st.state === OperationState.completed && st.subsystem === 'indexing' && finals.push(st)),
      }, { object_id: 'timer-test-callback', port: 0 });
    const { proxy: factory } = await client.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME);
    const sid = 424_242;
    const token = 'owner-token-of-session-424242';
    // with a feeding priority (MS-FSCDFT 3.5.4.1): the session keeps it, in its replica too
    const aor = await factory.create_session(sid, 'sr', cb.aor, new GuaranteeSet({ guarantees: [new FeedingPriority({ priority: 0 })] }), 0, token);
    // (its log line may come a moment after the answer)
    const holder = await waitFor(() => alive.find((d) => d.logs.some((l) => l['msg'] === 'session created' && l['session'] === sid)), { what: 'the distributor that created the session', timeoutMs: 5000 });
    const survivor = alive.find((d) => d !== holder) as ChildService;
    // one slow batch (documents sr-500 to sr-549, 3 s); accepted = in the artifact on the buddy, with an item processor
    const batch = new OperationSet({ completed_op_id: 0, operations: Array.from({ length: BATCH }, (_, i) => toOperation(i + 1, doc(500 + i))) });
    const session = client.proxy(processingSessionInterface, aor, { timeoutMs: 10_000 });
    await waitFor(
      () =>
        session.process(batch).then(
          () => true,
          (err: unknown) => {
            if (err instanceof ProcessorsBusy) return false;
            throw err;
          },
        ),
      { what: 'the batch accepted', timeoutMs: 30_000, intervalMs: 50 },
    );
    const killedAt = Date.now();
    await holder.kill();
    // nobody calls the session: its replica's timer (1.5 s + SSR grace 3 s) sends a load advisory to the home
    await waitFor(() => survivor.logs.some((l) => l['msg'] === 'session reactivated from its replica' && l['session'] === sid), { what: 'the session reactivated by its timer', timeoutMs: 30_000 });
    const reactivatedMs = Date.now() - killedAt;
    const r = survivor.logs.find((l) => l['msg'] === 'session reactivated from its replica' && l['session'] === sid)!;
    expect(r).toMatchObject({ accepted: BATCH, batches: 1, first: 1, last: BATCH, guarantees: ['feeding_priority=0'] });
    expect(holder.logs.find((l) => l['msg'] === 'session created' && l['session'] === sid)).toMatchObject({ guarantees: ['feeding_priority=0'] });
    // the session's owner came with its replica: another client cannot take the reactivated session's callbacks;
    // its owner opens it again (the session where the timer put it)
    const other = await client.activate(operationCallbackInterface, { callback: () => undefined, callbacks: () => undefined }, { object_id: 'timer-test-other', port: 0 });
    const none = new GuaranteeSet({ guarantees: [] });
    // (through whichever distributor is master now; one that took over a moment ago may answer server_busy)
    const retrying = async <T>(call: (f: ProxyOf<typeof sessionFactoryInterface>) => Promise<T>): Promise<T> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await call((await client.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME)).proxy);
        } catch (err) {
          if ((err as { retryable?: boolean }).retryable !== true || attempt >= 100) throw err;
          await new Promise((res) => setTimeout(res, 100));
        }
      }
    };
    await expect(retrying((f) => f.create_session(sid, 'sr', other.aor, none, 0))).rejects.toBeInstanceOf(SessionNotOwned);
    await expect(retrying((f) => f.create_session(sid, 'sr', other.aor, none, 0, `${token}-guess`))).rejects.toBeInstanceOf(SessionNotOwned);
    expect((await retrying((f) => f.create_session(sid, 'sr', cb.aor, none, 0, token))).object_id).toMatch(new RegExp(`^session_[12]_${sid}_`));
    await client.deactivate(other);
    await waitFor(() => survivor.logs.some((l) => l['msg'] === 'in-flight batch of a reactivated session dispatched again' && l['session'] === sid), { what: 'the batch dispatched again', timeoutMs: 60_000 });
    // finals reach the client's callback (the indexer's recreate points there); the copy adds none
    const finalIds = () => finals.flatMap((st) => Array.from({ length: st.last_op_id - st.first_op_id + 1 }, (_, i) => st.first_op_id + i));
    await waitFor(() => finalIds().length >= BATCH, { what: 'a final for every operation', timeoutMs: 60_000 });
    await new Promise((res) => setTimeout(res, 4000)); // a copy, were it final again, would come now
    process.stdout.write(`timer reactivation ${reactivatedMs} ms after the kill; ${JSON.stringify(r)}\n`);
    expect(finalIds().sort((a, b) => a - b)).toEqual(Array.from({ length: BATCH }, (_, i) => i + 1));
    await client.deactivate(cb);
  }, 180_000);
});
