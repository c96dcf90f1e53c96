import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { HeartbeatSender, type HeartbeatSenderOptions } from './heartbeat-sender';
import { decodeLivenessMessage, encodeLivenessMessage } from './liveness-message';

/** A sender as an item processor has it: [name, frame] to its distributor node, nothing while not registered. */
function setup(opts: Partial<HeartbeatSenderOptions> = {}) {
  const clock = new ManualClock();
  const sent: { at: number; node: number; kind: string; name: string }[] = [];
  const gaps: number[] = [];
  const state = { node: undefined as number | undefined };
  const hb = new HeartbeatSender({
    intervalMs: 1000,
    readyAfterGap: true,
    clock,
    send: (frame) => {
      if (state.node === undefined) return false;
      const msg = decodeLivenessMessage(encodeLivenessMessage('ip-1', frame));
      if (msg.kind === 'malformed') throw new Error(msg.reason);
      sent.push({ at: clock.now(), node: state.node, kind: msg.kind, name: msg.name });
      return true;
    },
    onGap: (ms) => gaps.push(ms),
    ...opts,
  });
  return { clock, sent, gaps, state, hb };
}

describe('HeartbeatSender (PPP heartbeats, sending side)', () => {
  it('nothing while there is nobody to send to; READY first, then a HEARTBEAT every interval; nothing after stop', () => {
    const { clock, sent, state, hb } = setup();
    hb.start();
    clock.advance(3000);
    hb.ready(); // registered? not yet: READY stays due
    clock.advance(500);
    expect(sent).toEqual([]);
    expect(hb.sent).toBe(0);
    state.node = 4;
    clock.advance(500); // the beat at 4000 is the READY that was due
    clock.advance(3000);
    expect(sent.map((s) => [s.at, s.kind])).toEqual([
      [4000, 'ready'],
      [5000, 'heartbeat'],
      [6000, 'heartbeat'],
      [7000, 'heartbeat'],
    ]);
    expect(sent.every((s) => s.node === 4 && s.name === 'ip-1')).toBe(true);
    hb.stop();
    clock.advance(5000);
    expect(sent).toHaveLength(4);
    expect(hb.sent).toBe(4);
    expect(clock.pending).toBe(0);
  });

  it('ready() sends READY at once (a new registration, a link reset); the beats go on at their interval', () => {
    const { clock, sent, state, hb } = setup();
    state.node = 0;
    hb.start();
    clock.advance(1000);
    clock.advance(300);
    hb.ready();
    clock.advance(700);
    expect(sent.map((s) => [s.at, s.kind])).toEqual([
      [1000, 'heartbeat'],
      [1300, 'ready'],
      [2000, 'heartbeat'],
    ]);
  });

  it('readyAfterGap - READY when the beats were held up more than two intervals (the process was stopped)', () => {
    const { clock, sent, gaps, state, hb } = setup();
    state.node = 0;
    hb.ready();
    hb.beat();
    clock.advance(5000); // SIGSTOP: no timer ran
    hb.beat();
    hb.beat();
    expect(sent.map((s) => s.kind)).toEqual(['ready', 'heartbeat', 'ready', 'heartbeat']);
    expect(gaps).toEqual([5000]);
  });

  it('without readyAfterGap a late beat is a HEARTBEAT (a PPP worker learns from its queue instead)', () => {
    const { clock, sent, gaps, state, hb } = setup({ readyAfterGap: false });
    state.node = 0;
    hb.beat();
    clock.advance(5000);
    hb.beat();
    expect(sent.map((s) => s.kind)).toEqual(['heartbeat', 'heartbeat']);
    expect(gaps).toEqual([]);
  });

  it('a send that throws is reported and counts as not sent; a READY due stays due', () => {
    const clock = new ManualClock();
    const errors: string[] = [];
    const frames: number[] = [];
    let fail = true;
    const hb = new HeartbeatSender({
      clock,
      send: (frame) => {
        if (fail) throw new Error('no connection');
        frames.push(frame[0] ?? -1);
      },
      onError: (err) => errors.push((err as Error).message),
    });
    hb.ready();
    hb.start();
    clock.advance(1000);
    fail = false;
    clock.advance(1000);
    clock.advance(1000);
    expect(errors).toEqual(['no connection', 'no connection']);
    expect(frames).toEqual([0x01, 0x02]);
    expect(hb.sent).toBe(2);
  });

  it('stop inside send (the owner found its peer dead) ends the beats; stop and start there restarts them once', () => {
    const clock = new ManualClock();
    let n = 0;
    const hb: HeartbeatSender = new HeartbeatSender({
      clock,
      send: () => {
        n++;
        if (n === 2) hb.stop();
        if (n === 4) {
          hb.stop();
          hb.start();
        }
      },
    });
    hb.start();
    clock.advance(10_000);
    expect(n).toBe(2);
    hb.start();
    clock.advance(2000);
    expect(n).toBe(4);
    expect(clock.pending).toBe(1);
    clock.advance(1000);
    expect(n).toBe(5);
  });
});
