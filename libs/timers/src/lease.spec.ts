import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff';
import { Lease } from './lease';
import { ManualClock } from './manual-clock';

describe('Lease', () => {
  it('expires after its duration and not before', () => {
    const clock = new ManualClock();
    let fired = 0;
    const lease = new Lease(300_000, () => fired++, clock);
    lease.start();
    clock.advance(299_999);
    expect(fired).toBe(0);
    expect(lease.remainingMs).toBe(1);
    clock.advance(1);
    expect(fired).toBe(1);
    expect(lease.active).toBe(false);
  });
  it('renew restarts it from now with the new period', () => {
    const clock = new ManualClock();
    let fired = 0;
    const lease = new Lease(1000, () => fired++, clock);
    lease.start();
    clock.advance(900);
    lease.renew(5000);
    clock.advance(4999);
    expect(fired).toBe(0);
    clock.advance(1);
    expect(fired).toBe(1);
  });
  it('renew of an inactive lease only sets the next duration; cancel stops it', () => {
    const clock = new ManualClock();
    let fired = 0;
    const lease = new Lease(1000, () => fired++, clock);
    lease.renew(10);
    expect(lease.active).toBe(false);
    lease.start();
    lease.cancel();
    clock.advance(100_000);
    expect(fired).toBe(0);
    expect(lease.duration).toBe(10);
  });
});

describe('ManualClock', () => {
  it('fires timers in time order, including ones set while firing', () => {
    const clock = new ManualClock();
    const seen: string[] = [];
    clock.setTimeout(() => seen.push('b'), 20);
    clock.setTimeout(() => {
      seen.push('a');
      clock.setTimeout(() => seen.push('a2'), 5);
    }, 10);
    clock.advance(30);
    expect(seen).toEqual(['a', 'a2', 'b']);
    expect(clock.now()).toBe(30);
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    expect([0, 1, 2, 3, 10].map((a) => backoffDelay(a, { initialMs: 1000, maxMs: 32_000 }))).toEqual([1000, 2000, 4000, 8000, 32_000]);
  });
});
