import { createLogger } from '@esp/logging';
import { decodeFrames, livenessSubject, parsePppMessage } from '@esp/ppp';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { HeartbeatSender } from './heartbeat';

const log = createLogger('heartbeat-test', {}, { level: 'silent' });

function setup() {
  const clock = new ManualClock();
  const sent: { subject: string; name: string; kind: string }[] = [];
  const state = { node: undefined as number | undefined, registrations: 0 };
  const hb = new HeartbeatSender({
    name: 'ip-1',
    intervalMs: 1000,
    dispatcherId: () => state.node,
    registrations: () => state.registrations,
    publish: (subject, data) => {
      const [id, ...rest] = decodeFrames(data);
      sent.push({ subject, name: new TextDecoder().decode(id), kind: parsePppMessage(rest).kind });
    },
    clock,
    log,
  });
  return { clock, sent, state, hb };
}

describe('HeartbeatSender (item processor → content distributor, PPP frames)', () => {
  it('nothing before registration; READY first, then a HEARTBEAT every interval to its node', () => {
    const { clock, sent, state, hb } = setup();
    hb.start();
    clock.advance(3000);
    expect(sent).toEqual([]);
    state.node = 4;
    state.registrations = 1;
    hb.beat();
    clock.advance(3000);
    expect(sent.map((s) => s.kind)).toEqual(['ready', 'heartbeat', 'heartbeat', 'heartbeat']);
    expect(sent.every((s) => s.subject === livenessSubject(4) && s.name === 'ip-1')).toBe(true);
    hb.stop();
    clock.advance(5000);
    expect(sent).toHaveLength(4);
  });

  it('READY again after a reregistration and after a gap (the process was stopped)', () => {
    const { clock, sent, state, hb } = setup();
    state.node = 0;
    state.registrations = 1;
    hb.beat();
    state.registrations = 2;
    hb.beat();
    hb.beat();
    // a stopped process: its timer fires late
    clock.advance(5000);
    hb.beat();
    hb.beat();
    expect(sent.map((s) => s.kind)).toEqual(['ready', 'ready', 'heartbeat', 'ready', 'heartbeat']);
  });
});
