import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { createLogger } from '@esp/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chain } from './chain';

const log = createLogger('e2e', {}, { level: 'warn' });
const slow = (i: number): FeedDocument => ({ id: `slow-${i}`, attributes: { title: `slow ${i}`, body: `text of slow ${i}`, content_type: 'text/plain' } });

/**
 * MS-FSDPD 3.5.2 / 3.5.4.4: the distributor's Lease Timeout (2 s here) runs from process to processed; an item
 * processor whose batch takes longer (5 s) but which is alive renews it (procserver_handler::renew every third of
 * its --lease-seconds), so the batch is not declared lost and the processor not restarted.
 */
describe('the item processor renews its lease while a long batch runs', () => {
  let chain: Chain;
  beforeAll(async () => {
    chain = await Chain.start({
      collections: ['renew'],
      processors: 1,
      leaseSeconds: 2,
      processorArgs: ['--lease-seconds', '2'],
      // PPP liveness and the gone probe would not fire for a live processor anyway; the lease is what is tested
      pipeline: { pipelines: { standard: [{ type: 'utf8' }, { type: 'fail', name: 'slow', delay_ms: 50, delay_id_pattern: '^slow-' }, { type: 'normalize' }] }, default_pipeline: 'standard' },
    });
  }, 120_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it('a batch of 5 s under a lease of 2 s: no Lease Timeout, nothing lost, every document completed once', async () => {
    const client = await FeedingClient.open({ mw: chain.client, collection: 'renew', log, batchSize: 100 });
    for (let i = 0; i < 100; i++) await client.feed(slow(i));
    const t0 = Date.now();
    const { stats, outcomes, unfinished } = await client.drain(60_000);
    expect(Date.now() - t0).toBeGreaterThan(4000); // the batch did take longer than two leases
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: 100, lost: 0, resubmitted: 0, failed: 0, duplicateFinals: 0 });
    for (let i = 0; i < 100; i++) expect(outcomes.get(`slow-${i}`)).toMatchObject({ kind: 'completed', attempts: 1 });
    expect(chain.distributor.logs.filter((l) => String(l['msg']).startsWith('Lease Timeout'))).toEqual([]);
    await client.close();
  }, 90_000);
});
