import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { LivenessTracker } from './liveness-tracker';

const INTERVAL = 1000;

function setup() {
  const clock = new ManualClock();
  const deaths: { name: string; at: number; silentMs: number }[] = [];
  const live = new LivenessTracker({ intervalMs: INTERVAL, liveness: 3, clock, onDead: (name, silentMs) => deaths.push({ name, at: clock.now(), silentMs }) });
  return { clock, deaths, live };
}

describe('LivenessTracker (PPP liveness, receiving side, interval 1000 ms, liveness 3)', () => {
  it('idle for 20 heartbeat intervals, heartbeating: nobody is declared dead, one timer in all', () => {
    const { clock, deaths, live } = setup();
    expect(live.track('a')).toBe('new');
    expect(live.track('b')).toBe('new');
    for (let i = 0; i < 20; i++) {
      clock.advance(INTERVAL);
      expect(live.track('a')).toBe('alive');
      expect(live.track('b')).toBe('alive');
      expect(clock.pending).toBe(1);
    }
    expect(deaths).toEqual([]);
    expect(live.isDead('a') || live.isDead('b')).toBe(false);
  });

  it('a silent peer is declared dead exactly liveness x interval after it was last heard of, once; the other lives on', () => {
    const { clock, deaths, live } = setup();
    live.track('a');
    live.track('b');
    // a stops (SIGSTOP) right after its last heartbeat; b keeps beating, off the beat of a
    clock.advance(400);
    live.track('b');
    for (let i = 0; i < 10; i++) {
      clock.advance(INTERVAL);
      live.track('b');
    }
    expect(deaths).toEqual([{ name: 'a', at: 3 * INTERVAL, silentMs: 3 * INTERVAL }]);
    expect(live.isDead('a')).toBe(true);
    expect(live.isTracked('a')).toBe(true);
    expect(live.lastHeard('a')).toBe(0);
    expect(live.isDead('b')).toBe(false);
  });

  it('peers die in the order they went silent, each at its own time', () => {
    const { clock, deaths, live } = setup();
    live.track('a');
    clock.advance(500);
    live.track('b');
    clock.advance(200);
    live.track('c');
    live.track('a'); // a renewed at 700: now the last
    clock.advance(10 * INTERVAL);
    expect(deaths.map((d) => [d.name, d.at])).toEqual([
      ['b', 3500],
      ['c', 3700],
      ['a', 3700],
    ]);
    expect(clock.pending).toBe(0);
  });

  it('renew (process reply, processed, lease renewal) keeps a tracked peer alive, but does not start tracking nor revive', () => {
    const { clock, deaths, live } = setup();
    expect(live.renew('untracked')).toBe(false);
    clock.advance(100 * INTERVAL);
    expect(deaths).toEqual([]);
    expect(live.isTracked('untracked')).toBe(false);
    live.track('a');
    for (let i = 0; i < 10; i++) {
      clock.advance(INTERVAL * 2);
      expect(live.renew('a')).toBe(true);
    }
    expect(deaths).toEqual([]);
    clock.advance(3 * INTERVAL);
    expect(deaths.map((d) => d.name)).toEqual(['a']);
    expect(live.renew('a')).toBe(false);
    expect(live.isDead('a')).toBe(true);
  });

  it('READY or HEARTBEAT (after SIGCONT) brings a dead peer back; it can die again', () => {
    const { clock, deaths, live } = setup();
    live.track('a');
    clock.advance(5 * INTERVAL);
    expect(live.isDead('a')).toBe(true);
    expect(live.track('a')).toBe('revived');
    expect(live.isDead('a')).toBe(false);
    for (let i = 0; i < 20; i++) {
      clock.advance(INTERVAL);
      expect(live.track('a')).toBe('alive');
    }
    expect(deaths).toHaveLength(1);
    clock.advance(3 * INTERVAL);
    expect(deaths).toHaveLength(2);
  });

  it('sweep - a caller on its own tick finds a peer dead whose timer is due at that moment (or held up), before it acts', () => {
    const { clock, deaths, live } = setup();
    // the caller's tick, due at 3000 like the tracker's timer but set before it, runs first; it sweeps
    let deadAtTick: boolean | undefined;
    clock.setTimeout(() => {
      live.sweep();
      deadAtTick = live.isDead('a');
    }, 3000);
    live.track('a');
    clock.advance(2999);
    live.sweep();
    expect(deaths).toEqual([]);
    clock.advance(1);
    expect(deadAtTick).toBe(true);
    expect(deaths.map((d) => [d.name, d.at])).toEqual([['a', 3000]]);
    clock.advance(10 * INTERVAL);
    expect(deaths).toHaveLength(1);
  });

  it('forget stops tracking (unregistered, or registered again until its READY); stop forgets all', () => {
    const { clock, deaths, live } = setup();
    live.track('a');
    live.forget('a');
    clock.advance(10 * INTERVAL);
    expect(deaths).toEqual([]);
    expect(live.isTracked('a')).toBe(false);
    expect(live.track('a')).toBe('new');
    live.track('b');
    live.stop();
    clock.advance(10 * INTERVAL);
    expect(deaths).toEqual([]);
    expect(clock.pending).toBe(0);
  });

  it('hold (our own link down): nobody is declared dead however long; release gives every peer a full liveness x interval again', () => {
    const { clock, deaths, live } = setup();
    live.track('a');
    live.track('b');
    clock.advance(500);
    live.hold();
    // the bus is down for 10 intervals: silence from everyone, which is ours
    for (let i = 0; i < 10; i++) clock.advance(INTERVAL);
    expect(deaths).toEqual([]);
    expect(clock.pending).toBe(0);
    live.release();
    expect(live.isHeld).toBe(false);
    // a comes back 1.5 intervals after the release; b died during the outage and stays silent
    clock.advance(1500);
    live.track('a');
    clock.advance(1499);
    expect(deaths).toEqual([]);
    clock.advance(1);
    expect(deaths).toEqual([{ name: 'b', at: 10_500 + 3 * INTERVAL, silentMs: 3 * INTERVAL }]);
    clock.advance(5 * INTERVAL);
    expect(deaths.map((d) => d.name)).toEqual(['b', 'a']);
  });

  it('declareDead: proof other than silence (the process is gone) declares a live peer dead at once, once', () => {
    const { clock, deaths, live } = setup();
    live.track('a');
    live.track('b');
    clock.advance(1200);
    expect(live.declareDead('a')).toBe(true);
    expect(deaths).toEqual([{ name: 'a', at: 1200, silentMs: 1200 }]);
    expect(live.declareDead('a')).toBe(false);
    expect(live.declareDead('nobody')).toBe(false);
    clock.advance(5 * INTERVAL);
    expect(deaths.map((d) => d.name)).toEqual(['a', 'b']);
    expect(live.track('a')).toBe('revived');
  });

  it('defaults are the RFC: 1000 ms x 3', () => {
    expect(new LivenessTracker({ onDead: () => undefined }).deadAfterMs).toBe(3000);
  });
});
