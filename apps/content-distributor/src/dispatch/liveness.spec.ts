import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { ProcessorLiveness } from './liveness';

const INTERVAL = 1000;

function setup() {
  const clock = new ManualClock();
  const deaths: { name: string; at: number }[] = [];
  const live = new ProcessorLiveness({ intervalMs: INTERVAL, liveness: 3, clock, onDead: (name) => deaths.push({ name, at: clock.now() }) });
  return { clock, deaths, live };
}

describe('ProcessorLiveness (PPP liveness of item processors)', () => {
  it('idle for 20 heartbeat intervals, heartbeating: nobody is declared dead', () => {
    const { clock, deaths, live } = setup();
    live.ppp('a');
    live.ppp('b');
    for (let i = 0; i < 20; i++) {
      clock.advance(INTERVAL);
      live.ppp('a');
      live.ppp('b');
    }
    expect(deaths).toEqual([]);
    expect(live.isDead('a') || live.isDead('b')).toBe(false);
  });

  it('a silent processor is declared dead after liveness x interval (3 intervals, +/- one), once; the other lives on', () => {
    const { clock, deaths, live } = setup();
    live.ppp('a');
    live.ppp('b');
    // a stops (SIGSTOP) right after its last heartbeat; b keeps beating
    for (let i = 0; i < 10; i++) {
      clock.advance(INTERVAL);
      live.ppp('b');
    }
    expect(deaths.map((d) => d.name)).toEqual(['a']);
    const at = deaths[0]?.at ?? -1;
    expect(at).toBeGreaterThanOrEqual(2 * INTERVAL);
    expect(at).toBeLessThanOrEqual(4 * INTERVAL);
    expect(live.isDead('a')).toBe(true);
    expect(live.isDead('b')).toBe(false);
  });

  it('any sign of life (process reply, processed, renew) renews, but does not start tracking nor revive', () => {
    const { clock, deaths, live } = setup();
    live.life('untracked');
    clock.advance(100 * INTERVAL);
    expect(deaths).toEqual([]);
    expect(live.isTracked('untracked')).toBe(false);
    live.ppp('a');
    for (let i = 0; i < 10; i++) {
      clock.advance(INTERVAL * 2);
      live.life('a');
    }
    expect(deaths).toEqual([]);
    clock.advance(3 * INTERVAL);
    expect(deaths.map((d) => d.name)).toEqual(['a']);
    live.life('a');
    expect(live.isDead('a')).toBe(true);
  });

  it('READY (after SIGCONT) brings a dead processor back; it can die again', () => {
    const { clock, deaths, live } = setup();
    live.ppp('a');
    clock.advance(5 * INTERVAL);
    expect(live.isDead('a')).toBe(true);
    expect(live.ppp('a')).toBe('revived');
    expect(live.isDead('a')).toBe(false);
    for (let i = 0; i < 20; i++) {
      clock.advance(INTERVAL);
      expect(live.ppp('a')).toBe('alive');
    }
    expect(deaths).toHaveLength(1);
    clock.advance(3 * INTERVAL);
    expect(deaths).toHaveLength(2);
  });

  it('forget stops tracking (unregistered, or registered again until its READY)', () => {
    const { clock, deaths, live } = setup();
    live.ppp('a');
    live.forget('a');
    clock.advance(10 * INTERVAL);
    expect(deaths).toEqual([]);
    expect(live.ppp('a')).toBe('new');
    live.stop();
    clock.advance(10 * INTERVAL);
    expect(deaths).toEqual([]);
  });
});
