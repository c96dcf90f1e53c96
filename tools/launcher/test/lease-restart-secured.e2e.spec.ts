/**
 * Issue 30.5 on the secured rig (the admin secret protects RestartProcess, and reads, as npm start does): a hung
 * item processor (SIGSTOP) holding a batch; its lease runs out (3 s, the gone probe off, so the Lease Timeout is what
 * acts), and the distributor restarts it through the node controller, authenticated with the stack's secret. On the
 * main of before, RestartProcess was called without credentials: HTTP 401, and the processor stayed hung.
 */
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { createLogger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttackRig, COLLECTION } from './attack-rig';

const log = createLogger('e2e', {}, { level: 'fatal' });
const text = (i: number): FeedDocument => ({ id: `hung-${i}`, attributes: { title: `hung ${i}`, body: `markhungx text of ${i}`, content_type: 'text/plain' } });

describe('Lease Timeout restart on the secured stack', () => {
  let rig: AttackRig;
  const stopped: number[] = [];
  beforeAll(async () => {
    rig = await AttackRig.start({ leaseSeconds: 3, goneProbe: false, registerNodeController: true });
    await rig.feedBatch('baseline');
  }, 180_000);
  afterAll(async () => {
    for (const pid of stopped) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // restarted: gone
      }
    }
    await rig?.stop();
  });

  it('SIGSTOP of the item processor: its lease runs out, the distributor restarts it with the secret, its batch completes, feeding goes on', async () => {
    const before = await rig.itemProcessor();
    process.kill(before.pid, 'SIGSTOP');
    stopped.push(before.pid);
    const client = await FeedingClient.open({ mw: rig.client, collection: COLLECTION, log });
    for (let i = 0; i < 50; i++) await client.feed(text(i));
    await client.flush();
    const restarted = await waitFor(() => rig.procs.distributor.logs.find((l) => l['msg'] === 'item processor restarted through its node controller'), {
      what: 'a restart through the node controller',
      timeoutMs: 60_000,
    });
    expect(restarted['process']).toBe(before.name);
    expect(rig.procs.distributor.logs.some((l) => /HTTP 401/.test(String(l['reason'] ?? l['err'] ?? '')))).toBe(false);
    await waitFor(async () => {
      const now = await rig.itemProcessor();
      return now.pid !== before.pid && now.state === 'running' && now.restarts >= 1;
    }, { what: 'the processor restarted (new pid, running)', timeoutMs: 30_000 });
    const { unfinished, stats } = await client.drain(90_000);
    await client.close();
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: 50, failed: 0, duplicateFinals: 0 });
    rig.countFed(50);
    await rig.feedBatch('after-restart');
  }, 240_000);
});
