import { describe, expect, it } from 'vitest';
import { hashKey } from './artifact';
import { ConsistentHashRouter } from './consistent-hash';

const keys = Array.from({ length: 10_000 }, (_, i) => hashKey(`session-${i}`));

describe('consistent-hash router', () => {
  it('spreads 10,000 keys over 5 instances within ±35 % of the mean', () => {
    const r = new ConsistentHashRouter(['a', 'b', 'c', 'd', 'e']);
    const count = new Map<string, number>();
    for (const k of keys) count.set(r.home(k) as string, (count.get(r.home(k) as string) ?? 0) + 1);
    expect([...count.keys()].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    for (const n of count.values()) expect(Math.abs(n - 2000)).toBeLessThan(700);
  });

  it('a departure moves only the departed instance range; a return gives it back exactly', () => {
    const five = new ConsistentHashRouter(['a', 'b', 'c', 'd', 'e']);
    const four = new ConsistentHashRouter(['a', 'b', 'd', 'e']);
    for (const k of keys) if (five.home(k) !== 'c') expect(four.home(k)).toBe(five.home(k));
    const back = new ConsistentHashRouter(['e', 'd', 'c', 'b', 'a']);
    for (const k of keys) expect(back.home(k)).toBe(five.home(k));
  });

  it('an empty view has no home', () => {
    expect(new ConsistentHashRouter([]).home(1)).toBeUndefined();
  });
});
