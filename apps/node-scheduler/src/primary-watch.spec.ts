import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { PrimaryWatch } from './primary-watch';

describe('duplicate server primary watch', () => {
  it('dead only when operations waited deadAfterMs with nothing heard; probed once halfway', () => {
    const clock = new ManualClock(0);
    const w = new PrimaryWatch(2000);
    expect(w.check(clock.now(), 0)).toBe('ok');
    w.busy(clock.now());
    clock.advance(999);
    expect(w.check(clock.now(), 3)).toBe('ok');
    clock.advance(1);
    expect(w.check(clock.now(), 3)).toBe('probe');
    clock.advance(500);
    expect(w.check(clock.now(), 3)).toBe('ok'); // probed already
    clock.advance(500);
    expect(w.check(clock.now(), 3)).toBe('dead');
  });

  it('a primary that answers (an operation, a keep-alive, the probe) is alive however long operations take', () => {
    const clock = new ManualClock(0);
    const w = new PrimaryWatch(2000);
    w.busy(clock.now());
    for (let i = 0; i < 10; i++) {
      clock.advance(1000);
      expect(w.check(clock.now(), 5)).toBe('probe'); // silent half the time again: asked again
      w.heard(clock.now());
    }
    clock.advance(1999);
    expect(w.check(clock.now(), 5)).not.toBe('dead');
  });

  it('idle, nothing is concluded: a primary silent for long is not dead until something waits on it', () => {
    const clock = new ManualClock(0);
    const w = new PrimaryWatch(2000);
    w.heard(clock.now());
    clock.advance(60_000);
    expect(w.check(clock.now(), 0)).toBe('ok');
    w.busy(clock.now()); // the silence before the operation does not count
    clock.advance(1500);
    expect(w.check(clock.now(), 1)).toBe('probe');
    clock.advance(500);
    expect(w.check(clock.now(), 1)).toBe('dead');
  });
});
