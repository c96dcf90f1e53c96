import { describe, expect, it } from 'vitest';
import { runChaos } from './chaos';

/**
 * The CI-sized chaos run: the same five processes, kills and rolling upgrade as `npm run ssr:chaos`, with 400
 * artifacts instead of 10,000.
 */
describe('ssr chaos (CI size)', () => {
  it('single and non-adjacent kills lose nothing; a buddy pair loses exactly the predicted set; rolling upgrade loses nothing, no zombie, every timer fires once', async () => {
    const lines: string[] = [];
    const r = await runChaos({ artifacts: 400, concurrency: 16, loadAfterKillMs: 1500, log: (l) => lines.push(l) });
    const [a, b, c, d] = r.phases;
    expect(a, lines.join('\n')).toMatchObject({ lost: 0, expectedLost: 0, zombies: 0 });
    expect(b, lines.join('\n')).toMatchObject({ lost: 0, expectedLost: 0, zombies: 0 });
    expect(c!.expectedLost, lines.join('\n')).toBeGreaterThan(0);
    expect(c, lines.join('\n')).toMatchObject({ lost: c!.expectedLost, sameSet: true, zombies: 0 });
    expect(d, lines.join('\n')).toMatchObject({ lost: 0, zombies: 0 });
    expect(r.timers, lines.join('\n')).toEqual({ total: 40, once: 40, twice: 0, never: 0 });
    expect(r.workload.anomalies, lines.join('\n')).toBe(0);
    expect(r.pass, lines.join('\n')).toBe(true);
  }, 240_000);
});
