import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { createLogger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeControllerChain } from './node-controller-chain';

const log = createLogger('e2e', {}, { level: 'warn' });
const text = (i: number, prefix: string): FeedDocument => ({ id: `${prefix}-${i}`, attributes: { title: `${prefix} ${i}`, body: `text of ${prefix} ${i}`, content_type: 'text/plain' } });

describe('item processors under a node controller', () => {
  let chain: NodeControllerChain;
  beforeAll(async () => {
    chain = await NodeControllerChain.start({
      collection: 'nc',
      processors: 2,
      leaseSeconds: 3,
      pipeline: {
        pipelines: { standard: [{ type: 'utf8' }, { type: 'fail', name: 'slow', delay_ms: 15, delay_id_pattern: '^slow-' }, { type: 'normalize' }] },
        default_pipeline: 'standard',
      },
    });
  }, 120_000);
  afterAll(async () => {
    // wake whatever is still stopped (a process may have been restarted since the list was taken)
    for (const p of await chain.processes()) {
      try {
        if (p.pid) process.kill(p.pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    await chain?.stop();
  });

  it('SIGKILL of an item processor: the node controller restarts it (new pid, restarts=1), it re-registers, feeding continues', async () => {
    const client = await FeedingClient.open({ mw: chain.client, collection: 'nc', log });
    for (let i = 0; i < 100; i++) await client.feed(text(i, 'before'));
    const [victim] = await chain.processes();
    if (!victim) throw new Error('no item processor');
    process.kill(victim.pid, 'SIGKILL');
    await waitFor(async () => (await chain.processes()).some((p) => p.name === victim.name && p.pid !== victim.pid && p.state === 'running' && p.restarts === 1), {
      what: 'the killed item processor restarted',
      timeoutMs: 30_000,
    });
    for (let i = 0; i < 200; i++) await client.feed(text(i, 'after'));
    const { stats, unfinished } = await client.drain(60_000);
    expect(unfinished).toEqual([]);
    expect(stats.completed).toBe(300);
    expect(stats.duplicateFinals).toBe(0);
    await client.close();
  }, 120_000);

  it('hung item processors (SIGSTOP): the Lease Timeout restarts them through the node controller (MS-FSDPD 3.5.5); every operation gets a final status and feeding goes on', async () => {
    const client = await FeedingClient.open({ mw: chain.client, collection: 'nc', log });
    const before = await chain.processes();
    for (let i = 0; i < 100; i++) await client.feed(text(i, 'slow'));
    await client.flush();
    for (const p of before) process.kill(p.pid, 'SIGSTOP');
    const restarted = await waitFor(() => chain.distributor.logs.find((l) => l['msg'] === 'item processor restarted through its node controller'), {
      what: 'a restart through the node controller',
      timeoutMs: 30_000,
    });
    const name = restarted['process'];
    const row = (await chain.processes()).find((p) => p.name === name);
    expect(row?.pid).not.toBe(before.find((p) => p.name === name)?.pid);
    const first = await client.drain(90_000);
    expect(first.unfinished).toEqual([]);
    expect(first.stats.lost).toBeGreaterThanOrEqual(100);
    // lost with the hung processors, resubmitted, and completed once a restarted processor took them
    expect(first.stats).toMatchObject({ completed: 100, failed: 0, duplicateFinals: 0 });
    for (let i = 0; i < 100; i++) expect(first.outcomes.get(`slow-${i}`)).toMatchObject({ kind: 'completed' });
    // wake whatever is still stopped (a process may have been restarted since the list was taken)
    for (const p of await chain.processes()) {
      try {
        if (p.pid) process.kill(p.pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    for (let i = 0; i < 100; i++) await client.feed(text(i, 'fresh'));
    const { outcomes, unfinished } = await client.drain(60_000);
    expect(unfinished).toEqual([]);
    for (let i = 0; i < 100; i++) expect(outcomes.get(`fresh-${i}`)).toMatchObject({ kind: 'completed' });
    await client.close();
  }, 150_000);
});
