import { describe, expect, it } from 'vitest';
import { InputError } from './input-error';
import { InputTally, peakRssMb } from './input-tally';

describe('input tally', () => {
  it('counts skipped files by reason and lists them, the most frequent reasons first in the summary', () => {
    const t = new InputTally();
    expect(t.skippedSummary()).toBe('0');
    for (const [id, reason] of [['a.png', 'image/png'], ['b.png', 'image/png'], ['c.ttf', 'font/ttf'], ['.git', 'hidden'], ['d.zip', 'application/zip']]) t.skip({ id: id!, reason: reason! });
    t.skip({ id: 'l', reason: 'same file', sameAs: 'x' });
    expect(t.skippedSummary()).toBe('6 (image/png 2, application/zip 1, font/ttf 1, ...)');
    expect(t.report().skipped).toEqual({
      count: 6,
      by_reason: { 'image/png': 2, 'font/ttf': 1, hidden: 1, 'application/zip': 1, 'same file': 1 },
      files: [
        { id: 'a.png', reason: 'image/png' },
        { id: 'b.png', reason: 'image/png' },
        { id: 'c.ttf', reason: 'font/ttf' },
        { id: '.git', reason: 'hidden' },
        { id: 'd.zip', reason: 'application/zip' },
        { id: 'l', reason: 'same file', same_as: 'x' },
      ],
    });
  });

  it('lists input errors and skipped files up to a bound, counts all', () => {
    const t = new InputTally(2);
    for (let i = 0; i < 5; i++) {
      t.error(new InputError(`e${i}`));
      t.skip({ id: `f${i}`, reason: 'image/gif' });
    }
    expect(t.report()).toMatchObject({ input_error_count: 5, input_errors: ['e0', 'e1'], skipped: { count: 5, by_reason: { 'image/gif': 5 }, files: [{ id: 'f0' }, { id: 'f1' }] } });
  });

  it('peak RSS in MB is this process’s own, from resourceUsage (KiB)', () => {
    const mb = peakRssMb();
    expect(mb).toBeGreaterThan(process.memoryUsage().rss / 1024 / 1024 - 1);
    expect(mb).toBeLessThan(16_384);
  });
});
