import { createLogger } from '@esp/logging';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { LeaseRenewal } from './lease-renewal';
import type { ProcserverHandler } from './registration';

function setup(maxBatchMs?: number) {
  const clock = new ManualClock();
  const calls: [string, number][] = [];
  const handler = { renew: async (name: string, period: number) => void calls.push([name, period]) } as unknown as ProcserverHandler;
  const lease = new LeaseRenewal({ name: 'ip-1', periodSeconds: 3, handler: () => handler, clock, log: createLogger('t', {}, { level: 'silent' }), ...(maxBatchMs ? { maxBatchMs } : {}) });
  return { clock, calls, lease };
}

describe('LeaseRenewal (MS-FSDPD 3.5.4.4)', () => {
  it('while a batch runs, renew(name, period) every third of the period; nothing once it is done, nothing while idle', async () => {
    const { clock, calls, lease } = setup();
    clock.advance(10_000);
    expect(calls).toEqual([]);
    lease.begin();
    clock.advance(999);
    expect(calls).toEqual([]);
    clock.advance(1);
    await Promise.resolve();
    expect(calls).toEqual([['ip-1', 3]]);
    clock.advance(2000);
    await Promise.resolve();
    expect(calls.length).toBe(3);
    lease.end();
    clock.advance(10_000);
    await Promise.resolve();
    expect(calls.length).toBe(3);
  });

  it('a batch that never ends is renewed for maxBatchMs at most, then left to its Lease Timeout', async () => {
    const { clock, calls, lease } = setup(5000);
    lease.begin();
    for (let i = 0; i < 20; i++) {
      clock.advance(1000);
      await Promise.resolve();
    }
    expect(calls.length).toBe(4); // at 1, 2, 3 and 4 s; at 5 s the batch has run for maxBatchMs
  });
});
