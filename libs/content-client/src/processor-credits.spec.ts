import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { ProcessorCredits } from './processor-credits';

/** Whether the promise settled (after the microtasks queued so far have run). */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe('ProcessorCredits', () => {
  it('sends at once while nothing is known (before the first processors_busy)', async () => {
    const c = new ProcessorCredits(50, new ManualClock());
    c.taken();
    c.taken();
    expect(c.available).toBe(Number.POSITIVE_INFINITY);
    expect(await settled(c.ready())).toBe(true);
  });

  it('after processors_busy waits for a processor freed, then counts free ones down as batches are taken', async () => {
    const clock = new ManualClock();
    const c = new ProcessorCredits(50, clock);
    c.busy(c.mark());
    const r = c.ready();
    expect(await settled(r)).toBe(false);
    c.freed();
    expect(await settled(r)).toBe(true);
    c.freed();
    expect(c.available).toBe(2);
    c.taken();
    expect(await settled(c.ready())).toBe(true);
    c.taken();
    expect(c.available).toBe(0);
    expect(await settled(c.ready())).toBe(false);
  });

  it('never waits longer than maxWaitMs: a lost callback does not stall the client', async () => {
    const clock = new ManualClock();
    const c = new ProcessorCredits(50, clock);
    c.busy(c.mark());
    const r = c.ready();
    clock.advance(49);
    expect(await settled(r)).toBe(false);
    clock.advance(1);
    expect(await settled(r)).toBe(true);
    // a later freed() wakes nobody twice and still counts
    c.freed();
    expect(c.available).toBe(1);
  });

  it('taken never counts below zero', () => {
    const c = new ProcessorCredits(50, new ManualClock());
    c.busy(c.mark());
    c.taken();
    expect(c.available).toBe(0);
  });

  it('a processor freed while the refused call was under way still counts (its callback may overtake the refusal)', async () => {
    const c = new ProcessorCredits(50, new ManualClock());
    c.busy(c.mark());
    const mark = c.mark();
    c.freed(); // the callback arrives first ...
    c.busy(mark); // ... then processors_busy for a call made before it
    expect(c.available).toBe(1);
    expect(await settled(c.ready())).toBe(true);
  });
});
