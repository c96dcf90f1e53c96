import { describe, expect, it } from 'vitest';
import { IdleReaper } from './idle-reaper';
import { ManualClock } from './manual-clock';

const setup = (extra: { progress?: (k: number) => number | undefined; busy?: (k: number) => boolean; reap?: (k: number) => void | Promise<void> } = {}) => {
  const clock = new ManualClock();
  const reaped: [number, number][] = [];
  const reaper = new IdleReaper<number>({
    idleMs: 10_000,
    checkMs: 1000,
    clock,
    ...extra,
    reap: (k, idle) => {
      reaped.push([k, idle]);
      return extra.reap?.(k);
    },
  });
  reaper.start();
  return { clock, reaper, reaped };
};

describe('IdleReaper', () => {
  it('reaps a key idle for idleMs, within one check interval, once, and not before', () => {
    const { clock, reaper, reaped } = setup();
    reaper.touch(1);
    clock.advance(9_999);
    expect(reaped).toEqual([]);
    clock.advance(1_001);
    expect(reaped).toEqual([[1, 10_000]]);
    clock.advance(60_000);
    expect(reaped).toHaveLength(1);
    expect(reaper.has(1)).toBe(false);
    expect(reaper.reaped).toBe(1);
  });

  it('a touch starts the idle time again; a forgotten key is never reaped', () => {
    const { clock, reaper, reaped } = setup();
    reaper.touch(1);
    reaper.touch(2);
    clock.advance(8_000);
    reaper.touch(1);
    reaper.forget(2);
    clock.advance(8_000);
    expect(reaped).toEqual([]);
    clock.advance(3_000);
    expect(reaped.map(([k]) => k)).toEqual([1]);
  });

  it('a change of the progress counter is activity (callbacks delivered), an unchanged one is not', () => {
    const delivered = new Map([[1, 0], [2, 0]]);
    const { clock, reaper, reaped } = setup({ progress: (k) => delivered.get(k) });
    reaper.touch(1);
    reaper.touch(2);
    for (let i = 0; i < 30; i++) {
      delivered.set(1, (delivered.get(1) ?? 0) + 1);
      clock.advance(1000);
    }
    expect(reaped.map(([k]) => k)).toEqual([2]);
    clock.advance(11_000);
    expect(reaped.map(([k]) => k)).toEqual([2, 1]);
  });

  it('a busy key is not idle however long ago its last touch', () => {
    let busy = true;
    const { clock, reaper, reaped } = setup({ busy: () => busy });
    reaper.touch(1);
    clock.advance(100_000);
    expect(reaped).toEqual([]);
    busy = false;
    clock.advance(9_999);
    expect(reaped).toEqual([]);
    clock.advance(1);
    expect(reaped.map(([k]) => k)).toEqual([1]);
  });

  it('a reap that fails tracks the key again: tried once more after another idle time', async () => {
    let fail = true;
    const { clock, reaper, reaped } = setup({ reap: () => (fail ? Promise.reject(new Error('indexer away')) : undefined) });
    reaper.touch(1);
    clock.advance(11_000);
    await Promise.resolve();
    expect(reaper.has(1)).toBe(true);
    expect(reaper.reaped).toBe(0);
    fail = false;
    clock.advance(9_000);
    expect(reaped).toHaveLength(1);
    clock.advance(2_000);
    expect(reaped).toHaveLength(2);
    expect(reaper.reaped).toBe(1);
  });

  it('stop() stops looking; refuses a non-positive idle time', () => {
    const { clock, reaper, reaped } = setup();
    reaper.touch(1);
    reaper.stop();
    clock.advance(100_000);
    expect(reaped).toEqual([]);
    expect(clock.pending).toBe(0);
    expect(() => new IdleReaper({ idleMs: 0, reap: () => undefined })).toThrow(RangeError);
  });
});
