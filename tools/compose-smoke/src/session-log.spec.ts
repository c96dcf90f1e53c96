import { describe, expect, it } from 'vitest';
import { sessionsCreated } from './session-log';

describe('sessionsCreated', () => {
  it('every "session created" line, with its session id and time, in log order', () => {
    const log = [
      JSON.stringify({ time: '2026-11-27T20:00:00.000Z', msg: 'session created', session: 3, collection: 'default' }),
      JSON.stringify({ time: 5, msg: 'session destroyed', session: 3 }),
      `content-distributor-1  | ${JSON.stringify({ time: 9, msg: 'session created', session: 4 })}`,
    ].join('\n');
    expect(sessionsCreated(log)).toEqual([
      { session: 3, at: Date.parse('2026-11-27T20:00:00.000Z') },
      { session: 4, at: 9 },
    ]);
  });

  it('skips what is not JSON, a line without a session id, and a reactivated session', () => {
    const log = ['not json {', JSON.stringify({ msg: 'session created' }), JSON.stringify({ msg: 'session reactivated from its replica', session: 2 }), JSON.stringify({ msg: 'session created', session: 1 })].join('\n');
    expect(sessionsCreated(log)).toEqual([{ session: 1 }]);
  });
});
