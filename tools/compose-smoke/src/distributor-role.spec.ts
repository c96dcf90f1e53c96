import { describe, expect, it } from 'vitest';
import { lastRole } from './distributor-role';

const line = (msg: string, time: number) => JSON.stringify({ level: 30, time, msg, node: 1 });

describe('lastRole', () => {
  it('is the last role message of the log', () => {
    const log = [line('content distributor is backup', 1), line('dispatcher registered', 2), line('content distributor is master', 3)].join('\n');
    expect(lastRole(log)).toEqual({ role: 'master', at: 3 });
    expect(lastRole(`${log}\n${line('content distributor is backup', 4)}`)).toEqual({ role: 'backup', at: 4 });
  });

  it('reads lines with a compose prefix and skips what is not JSON', () => {
    const log = `content-distributor-1  | ${line('content distributor is master', 7)}\nnot json {oops\n\n{"msg": 3}`;
    expect(lastRole(log)).toEqual({ role: 'master', at: 7 });
  });

  it('reads ISO times (the stack logs them so)', () => {
    const log = JSON.stringify({ time: '2026-11-27T20:00:00.000Z', msg: 'content distributor is master' });
    expect(lastRole(log)).toEqual({ role: 'master', at: Date.parse('2026-11-27T20:00:00.000Z') });
  });

  it('is unknown when no role was logged', () => {
    expect(lastRole(line('starting', 1))).toEqual({ role: 'unknown' });
    expect(lastRole('')).toEqual({ role: 'unknown' });
  });
});
