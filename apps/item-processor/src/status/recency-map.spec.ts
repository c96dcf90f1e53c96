import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecencyMap } from './recency-map';

/** What the Item Log did before: delete, set, then drop the first key while over the bound. */
function reference(ops: readonly [string, number][], max: number): [string, number][] {
  const m = new Map<string, number>();
  for (const [k, v] of ops) {
    m.delete(k);
    m.set(k, v);
    while (m.size > max) m.delete(m.keys().next().value as string);
  }
  return [...m];
}

describe('RecencyMap (the Status item and batch logs)', () => {
  it('keeps the last `max` written keys, a re-written key counting as new', () => {
    const m = new RecencyMap<string, number>(3);
    for (const k of ['a', 'b', 'c']) m.write(k, 1);
    m.write('a', 2); // a moves to the end: b is now the oldest
    m.write('d', 1);
    expect([...m]).toEqual([['c', 1], ['a', 2], ['d', 1]]);
    m.write('e', 1);
    m.write('f', 1);
    expect([...m.keys()]).toEqual(['d', 'e', 'f']);
  });

  it('after clear it fills and evicts again from the new entries', () => {
    const m = new RecencyMap<string, number>(2);
    for (const k of ['a', 'b', 'c', 'd']) m.write(k, 1);
    m.clear();
    expect(m.size).toBe(0);
    for (const k of ['x', 'y', 'z']) m.write(k, 1);
    expect([...m.keys()]).toEqual(['y', 'z']);
  });

  it('any sequence of writes leaves the same entries in the same order as delete-set-evict-first', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), fc.integer()), { maxLength: 200 }), fc.integer({ min: 1, max: 5 }), (ops, max) => {
        const m = new RecencyMap<string, number>(max);
        for (const [k, v] of ops) m.write(k, v);
        expect([...m]).toEqual(reference(ops, max));
      }),
    );
  });

  it('evicting from a full log costs about what writing without eviction does (it walked every hole earlier evictions left: 10x and more)', () => {
    const time = (write: (k: string, v: number) => void) => {
      for (let i = 0; i < 10_000; i++) write(`warm-${i}`, i);
      const t0 = performance.now();
      for (let i = 0; i < 50_000; i++) write(`doc-${i}`, i);
      return performance.now() - t0;
    };
    const ratios: number[] = [];
    for (let round = 0; round < 3; round++) {
      const plain = new Map<string, number>();
      const plainMs = time((k, v) => {
        plain.delete(k);
        plain.set(k, v);
      });
      const m = new RecencyMap<string, number>(10_000);
      ratios.push(time((k, v) => m.write(k, v)) / plainMs);
      expect(m.size).toBe(10_000);
    }
    // the best of three rounds, against a plain Map in the same round: a ratio, so a loaded machine does not matter
    expect(Math.min(...ratios)).toBeLessThan(4);
  });
});
