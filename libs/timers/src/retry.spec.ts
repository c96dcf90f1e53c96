import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock';
import { retry } from './retry';

/** Lets the promise chains run until they wait on a timer again. */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** A function that fails `failures` times (recording when it was called), then returns 'ok'. */
function flaky(clock: ManualClock, failures: number, error = (n: number): unknown => new Error(`failure ${n}`)) {
  const calls: number[] = [];
  const fn = async (attempt: number) => {
    calls.push(clock.now());
    expect(attempt).toBe(calls.length - 1);
    if (calls.length <= failures) throw error(calls.length);
    return 'ok';
  };
  return { fn, calls };
}

describe('retry', () => {
  it('resolves with the first success, waiting the doubling backoff between calls', async () => {
    const clock = new ManualClock();
    const { fn, calls } = flaky(clock, 2);
    const result = retry(fn, { initialMs: 100, maxMs: 1000, clock });
    await settle();
    clock.advance(99);
    await settle();
    expect(calls).toEqual([0]);
    clock.advance(1);
    await settle();
    clock.advance(200);
    await settle();
    await expect(result).resolves.toBe('ok');
    expect(calls).toEqual([0, 100, 300]);
    expect(clock.pending).toBe(0);
  });

  it('attempts - after the last attempt the caller gets the last error', async () => {
    const clock = new ManualClock();
    const { fn, calls } = flaky(clock, 5);
    const result = retry(fn, { attempts: 3, initialMs: 10, maxMs: 10, clock });
    result.catch(() => undefined);
    for (let i = 0; i < 5; i++) {
      await settle();
      clock.advance(10);
    }
    await expect(result).rejects.toThrow('failure 3');
    expect(calls).toEqual([0, 10, 20]);
  });

  it('retryable - an error that is not goes to the caller at once, without a wait', async () => {
    const clock = new ManualClock();
    const { fn, calls } = flaky(clock, 5, (n) => Object.assign(new Error(`failure ${n}`), { fatal: n === 2 }));
    const onRetry: unknown[] = [];
    const result = retry(fn, {
      initialMs: 10,
      maxMs: 10,
      clock,
      retryable: (err) => !(err as { fatal: boolean }).fatal,
      onRetry: (err, attempt, delayMs) => onRetry.push([(err as Error).message, attempt, delayMs]),
    });
    result.catch(() => undefined);
    await settle();
    clock.advance(10);
    await settle();
    await expect(result).rejects.toThrow('failure 2');
    expect(calls).toEqual([0, 10]);
    expect(onRetry).toEqual([['failure 1', 0, 10]]);
    expect(clock.pending).toBe(0);
  });

  it('deadlineMs - no call starts after the deadline; the last wait ends at it', async () => {
    const clock = new ManualClock();
    const { fn, calls } = flaky(clock, 10);
    const result = retry(fn, { deadlineMs: 250, initialMs: 100, maxMs: 100, clock });
    result.catch(() => undefined);
    for (let i = 0; i < 5; i++) {
      await settle();
      clock.advance(50);
    }
    await settle();
    await expect(result).rejects.toThrow('failure 4');
    expect(calls).toEqual([0, 100, 200, 250]);
  });

  it('shortenLastWait false - gives up when the next wait would end after the deadline, instead of calling at it', async () => {
    const clock = new ManualClock();
    const { fn, calls } = flaky(clock, 10);
    const result = retry(fn, { deadlineMs: 250, shortenLastWait: false, initialMs: 100, maxMs: 100, clock });
    result.catch(() => undefined);
    for (let i = 0; i < 5; i++) {
      await settle();
      clock.advance(50);
    }
    await settle();
    await expect(result).rejects.toThrow('failure 3');
    expect(calls).toEqual([0, 100, 200]);
    expect(clock.pending).toBe(0);
  });

  it('signal - aborting ends the wait at once, no call starts after it, the caller gets the last error', async () => {
    const clock = new ManualClock();
    const { fn, calls } = flaky(clock, 10);
    const abort = new AbortController();
    const result = retry(fn, { initialMs: 1000, maxMs: 1000, clock, signal: abort.signal });
    result.catch(() => undefined);
    await settle();
    clock.advance(1000);
    await settle();
    abort.abort();
    await expect(result).rejects.toThrow('failure 2');
    expect(calls).toEqual([0, 1000]);
    expect(clock.pending).toBe(0);
    // aborted before a failure: that failure goes to the caller without a wait
    const late = flaky(clock, 10);
    await expect(retry(late.fn, { initialMs: 1000, maxMs: 1000, clock, signal: abort.signal })).rejects.toThrow('failure 1');
    expect(late.calls).toHaveLength(1);
  });

  it('jitter - each wait is between half and all of the backoff delay', async () => {
    const clock = new ManualClock();
    const { fn } = flaky(clock, 6);
    const delays: number[] = [];
    const result = retry(fn, { initialMs: 100, maxMs: 800, jitter: true, clock, onRetry: (_e, _a, d) => delays.push(d) });
    for (let i = 0; i < 7; i++) {
      await settle();
      clock.advance(800);
    }
    await expect(result).resolves.toBe('ok');
    const full = [100, 200, 400, 800, 800, 800];
    expect(delays).toHaveLength(full.length);
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(full[i]! / 2);
      expect(d).toBeLessThanOrEqual(full[i]!);
    });
  });

  it('without a clock - waits in real time', async () => {
    let calls = 0;
    const result = await retry(
      async () => {
        if (++calls < 3) throw new Error('not yet');
        return calls;
      },
      { initialMs: 1, maxMs: 2 },
    );
    expect(result).toBe(3);
  });
});
