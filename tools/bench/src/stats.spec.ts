import { describe, expect, it } from 'vitest';
import { fmt, median, percentile } from './stats';

describe('benchmark statistics', () => {
  it('percentile uses the nearest rank on sorted values', () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(v, 50)).toBe(50);
    expect(percentile(v, 99)).toBe(99);
    expect(percentile(v, 100)).toBe(100);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
  it('median sorts a copy and leaves the input alone', () => {
    const v = [5, 1, 3];
    expect(median(v)).toBe(3);
    expect(v).toEqual([5, 1, 3]);
  });
  it('fmt prints fixed digits and keeps non-finite values readable', () => {
    expect(fmt(1.23456)).toBe('1.23');
    expect(fmt(12.5, 0)).toBe('13');
    expect(fmt(NaN)).toBe('NaN');
  });
});
