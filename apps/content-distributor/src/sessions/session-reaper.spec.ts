import { createLogger } from '@esp/logging';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import type { SessionDirectory } from './session-directory';
import { SessionQuota } from './session-quota';
import { sessionReaper } from './session-reaper';

const log = createLogger('reaper-test', {}, { level: 'silent' });

/** Sessions as the reaper sees them: an id, a collection, the callbacks their client took. */
function setup() {
  const clock = new ManualClock();
  const held = new Map<number, { id: number; collection: string; callbacks: { delivered: number } }>();
  const destroyed: number[] = [];
  const quota = new SessionQuota({ perClient: { sessions: 2 }, global: {} });
  let stopping = false;
  const reaper = sessionReaper({
    idleMs: 600_000,
    clock,
    sessions: { get: (id: number) => held.get(id) } as unknown as SessionDirectory,
    quota,
    log,
    destroy: async (id) => {
      destroyed.push(id);
      held.delete(id);
      quota.release(id);
    },
    stopping: () => stopping,
  });
  reaper.start();
  const open = (id: number, owner: string) => {
    quota.admit(id, owner);
    held.set(id, { id, collection: 'c', callbacks: { delivered: 0 } });
    reaper.touch(id);
  };
  return { clock, held, destroyed, quota, reaper, open, stop: () => (stopping = true) };
}

describe('sessionReaper: the distributor forgets sessions whose client is gone', () => {
  it('a session without a call or a callback taken for 10 min is destroyed, and its client has its quota place again', async () => {
    const { clock, destroyed, quota, open } = setup();
    open(1, 'a'.repeat(64));
    open(2, 'a'.repeat(64));
    expect(() => quota.admit(3, 'a'.repeat(64))).toThrow(/its most/);
    clock.advance(599_000);
    expect(destroyed).toEqual([]);
    clock.advance(61_000);
    await Promise.resolve();
    expect(destroyed.sort()).toEqual([1, 2]);
    quota.admit(3, 'a'.repeat(64));
  });

  it('calls (touch) and callbacks the client takes keep a session; one whose client stopped taking them goes', () => {
    const { clock, held, destroyed, reaper, open } = setup();
    open(1, 'a'.repeat(64));
    open(2, 'b'.repeat(64));
    for (let m = 0; m < 30; m++) {
      reaper.touch(1);
      const s2 = held.get(2);
      if (s2 && m < 5) s2.callbacks.delivered++;
      clock.advance(60_000);
    }
    expect(destroyed).toEqual([2]);
    expect(held.has(1)).toBe(true);
  });

  it('nothing is reaped once the distributor is stopping', () => {
    const { clock, destroyed, open, stop } = setup();
    open(1, 'a'.repeat(64));
    stop();
    clock.advance(700_000);
    expect(destroyed).toEqual([]);
  });
});
