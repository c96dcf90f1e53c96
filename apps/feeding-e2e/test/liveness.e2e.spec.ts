import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { createLogger } from '@esp/logging';
import { waitFor, type ChildService } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chain } from './chain';

const log = createLogger('e2e', {}, { level: 'warn' });
const text = (i: number, prefix: string): FeedDocument => ({ id: `${prefix}-${i}`, attributes: { title: `${prefix} ${i}`, body: `text of ${prefix} ${i}`, content_type: 'text/plain' } });

/** Default heartbeat 1000 ms, liveness 3: declared dead after about 3 s. */
const INTERVAL_MS = 1000;
const LIVENESS = 3;

type Log = Record<string, unknown>;
const msgIs = (m: string) => (l: Log) => l['msg'] === m;

/** A batch of this session the processor accepted and has not reported processed yet (its last accepted one). */
function batchInFlight(p: ChildService, sessionId: number): { first: number; last: number } | undefined {
  const accepted = p.logs.filter((l) => l['msg'] === 'batch accepted' && l['session_id'] === sessionId);
  const lastAccepted = accepted[accepted.length - 1];
  if (!lastAccepted) return undefined;
  const first = lastAccepted['first'] as number;
  if (p.logs.some((l) => l['msg'] === 'batch processed' && l['session_id'] === sessionId && l['first'] === first)) return undefined;
  return { first, last: lastAccepted['last'] as number };
}

/** Two item processors, 3 ms a document: a batch of 100 takes about 300 ms. */
function slowChain(collection: string): Promise<Chain> {
  return Chain.start({
    collections: [collection],
    processors: 2,
    pipeline: {
      pipelines: { standard: [{ type: 'utf8' }, { type: 'fail', name: 'slow', delay_ms: 3 }, { type: 'normalize' }] },
      default_pipeline: 'standard',
    },
  });
}

describe('PPP liveness of item processors in the feeding chain', () => {
  let chain: Chain;
  let stopped: ChildService | undefined;
  beforeAll(async () => {
    // Lease Timeout stays at 300 s: only liveness can notice a stopped processor within the test
    chain = await slowChain('live');
  }, 120_000);
  afterAll(async () => {
    stopped?.signal('SIGCONT');
    await chain?.stop();
  });

  it('SIGSTOP of an item processor under load: declared dead in ~3 s, its batch completes on the other processor, every operation completed exactly once; after SIGCONT it serves again', async () => {
    const N = 2000;
    const client = await FeedingClient.open({ mw: chain.client, collection: 'live', log });
    let fed = 0;
    const feeding = (async () => {
      for (; fed < N; fed++) await client.feed(text(fed, 'live'));
      await client.flush();
    })();

    // under load: a processor that has just accepted a batch (seen since the last poll, 5 ms ago; a batch takes
    // ~300 ms), some way into the feed
    const seen = new Map<ChildService, number>();
    const { victim, batch } = await waitFor(
      () => {
        if (fed < 300) return undefined;
        for (const p of chain.processors) {
          const from = seen.get(p);
          seen.set(p, p.logs.length);
          if (from === undefined || from > p.logs.length) continue;
          const fresh = p.logs.slice(from).some((l) => l['msg'] === 'batch accepted' && l['session_id'] === client.sessionId);
          const b = fresh ? batchInFlight(p, client.sessionId) : undefined;
          if (b) return { victim: p, batch: b };
        }
        return undefined;
      },
      { what: 'an item processor holding a batch', timeoutMs: 30_000, intervalMs: 5 },
    );
    const name = `ip-${chain.processors.indexOf(victim) + 1}`;
    const other = chain.processors.find((p) => p !== victim);
    if (!other) throw new Error('no second item processor');
    const t0 = Date.now();
    victim.signal('SIGSTOP');
    stopped = victim;

    const dead = await waitFor(() => chain.distributor.logs.find((l) => msgIs('item processor declared dead (PPP liveness): no heartbeat for liveness x interval')(l) && l['procserver'] === name), {
      what: `${name} declared dead`,
      timeoutMs: 15_000,
      intervalMs: 10,
    });
    const detectionMs = Date.now() - t0;
    // far below the 300 s Lease Timeout: liveness x interval, +/- one interval
    expect(detectionMs).toBeGreaterThanOrEqual((LIVENESS - 1) * INTERVAL_MS - 100);
    expect(detectionMs).toBeLessThanOrEqual((LIVENESS + 1) * INTERVAL_MS + 1000);
    console.log(`liveness: ${name} declared dead ${detectionMs} ms after SIGSTOP (interval ${INTERVAL_MS} ms x liveness ${LIVENESS} = ${INTERVAL_MS * LIVENESS} ms)`);
    expect(dead).toMatchObject({ held: batch.last - batch.first + 1, session: client.sessionId, first: batch.first, last: batch.last });

    // its batch, same operations and ids, goes to the other processor and completes there
    const moved = await waitFor(() => chain.distributor.logs.find((l) => msgIs('batch of a dead item processor dispatched to another item processor')(l) && l['from'] === name && l['first'] === batch.first), {
      what: 'the batch of the dead processor dispatched again',
      timeoutMs: 15_000,
    });
    expect(moved['to']).toBe(`ip-${chain.processors.indexOf(other) + 1}`);
    await waitFor(() => other.logs.some((l) => l['msg'] === 'batch processed' && l['session_id'] === client.sessionId && l['first'] === batch.first && l['last'] === batch.last), {
      what: 'the moved batch processed by the other processor',
      timeoutMs: 15_000,
    });

    await feeding;
    const { stats, outcomes, unfinished } = await client.drain(60_000);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: N, failed: 0, lost: 0, duplicateFinals: 0 });
    for (let i = 0; i < N; i++) expect(outcomes.get(`live-${i}`)).toMatchObject({ kind: 'completed' });

    // SIGCONT: it sends READY, is usable again and takes batches
    const acceptedBefore = victim.logs.filter(msgIs('batch accepted')).length;
    victim.signal('SIGCONT');
    stopped = undefined;
    await waitFor(() => chain.distributor.logs.some((l) => msgIs('item processor declared dead is alive again; it gets batches again')(l) && l['procserver'] === name), {
      what: `${name} alive again`,
      timeoutMs: 10_000,
    });
    for (let i = 0; i < 600; i++) await client.feed(text(i, 'after'));
    const after = await client.drain(60_000);
    expect(after.unfinished).toEqual([]);
    expect(after.stats).toMatchObject({ completed: N + 600, failed: 0, lost: 0, duplicateFinals: 0 });
    expect(victim.logs.filter(msgIs('batch accepted')).length).toBeGreaterThan(acceptedBefore);
    await client.close();
  }, 120_000);
});

describe('PPP liveness with a single item processor', () => {
  let chain: Chain;
  let stopped: ChildService | undefined;
  beforeAll(async () => {
    chain = await Chain.start({
      collections: ['alone'],
      processors: 1,
      pipeline: {
        pipelines: { standard: [{ type: 'utf8' }, { type: 'fail', name: 'slow', delay_ms: 20, delay_id_pattern: '^slow-' }, { type: 'normalize' }] },
        default_pipeline: 'standard',
      },
    });
  }, 120_000);
  afterAll(async () => {
    stopped?.signal('SIGCONT');
    await chain?.stop();
  });

  it('SIGSTOP of the only item processor: declared dead, no one to take its batch, so its operations are reported lost (MS-FSDPD 3.5.5); after SIGCONT the resubmitted ones complete', async () => {
    const client = await FeedingClient.open({ mw: chain.client, collection: 'alone', log });
    for (let i = 0; i < 100; i++) await client.feed(text(i, 'slow'));
    await client.flush();
    const [victim] = chain.processors;
    if (!victim) throw new Error('no item processor');
    await waitFor(() => batchInFlight(victim, client.sessionId), { what: 'the batch in the item processor', timeoutMs: 10_000, intervalMs: 5 });
    victim.signal('SIGSTOP');
    stopped = victim;
    const dead = await waitFor(() => chain.distributor.logs.find((l) => msgIs('item processor declared dead (PPP liveness): no heartbeat for liveness x interval')(l) && l['procserver'] === 'ip-1'), {
      what: 'ip-1 declared dead',
      timeoutMs: 15_000,
    });
    expect(dead['held']).toBe(100);
    await waitFor(() => chain.distributor.logs.some((l) => msgIs('reporting operations lost')(l) && String(l['why']).includes('no other item processor took its batch')), {
      what: 'the batch reported lost',
      timeoutMs: 10_000,
    });
    victim.signal('SIGCONT');
    stopped = undefined;
    const { stats, outcomes, unfinished } = await client.drain(60_000);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: 100, failed: 0, lost: 100, resubmitted: 100, duplicateFinals: 0 });
    for (let i = 0; i < 100; i++) expect(outcomes.get(`slow-${i}`)).toMatchObject({ kind: 'completed' });
    await client.close();
  }, 60_000);
});

describe('an item processor killed (SIGKILL) under load: the gone probe', () => {
  let chain: Chain;
  beforeAll(async () => {
    chain = await slowChain('gone');
  }, 120_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it('no responders proves it gone: declared dead well before liveness x interval, its batch completes on the other processor, nothing lost', async () => {
    const N = 1500;
    const client = await FeedingClient.open({ mw: chain.client, collection: 'gone', log });
    let fed = 0;
    const feeding = (async () => {
      for (; fed < N; fed++) await client.feed(text(fed, 'gone'));
      await client.flush();
    })();
    const { victim, batch } = await waitFor(
      () => {
        if (fed < 300) return undefined;
        for (const p of chain.processors) {
          const b = batchInFlight(p, client.sessionId);
          if (b) return { victim: p, batch: b };
        }
        return undefined;
      },
      { what: 'an item processor holding a batch', timeoutMs: 30_000, intervalMs: 5 },
    );
    const name = `ip-${chain.processors.indexOf(victim) + 1}`;
    const t0 = Date.now();
    await victim.kill();
    const dead = await waitFor(() => chain.distributor.logs.find((l) => msgIs('item processor declared dead (PPP liveness): no heartbeat for liveness x interval')(l) && l['procserver'] === name), {
      what: `${name} declared dead`,
      timeoutMs: 15_000,
      intervalMs: 10,
    });
    const detectionMs = Date.now() - t0;
    console.log(`gone probe: ${name} declared dead ${detectionMs} ms after SIGKILL (liveness alone: ${INTERVAL_MS * LIVENESS} ms)`);
    expect(dead['proof']).toBe('no process (no responders)');
    // a fifth of an interval late for its heartbeat, asked every quarter interval: well inside liveness x interval
    expect(detectionMs).toBeLessThan(LIVENESS * INTERVAL_MS);
    // the batch it held at the kill (a later one than seen above when it moved on meanwhile) is this session's
    if (dead['held']) expect(dead['session']).toBe(client.sessionId);
    expect(batch.first).toBeGreaterThan(0);
    await feeding;
    const { stats, outcomes, unfinished } = await client.drain(60_000);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: N, failed: 0, duplicateFinals: 0 });
    for (let i = 0; i < N; i++) expect(outcomes.get(`gone-${i}`)).toMatchObject({ kind: 'completed' });
    await client.close();
  }, 120_000);
});
