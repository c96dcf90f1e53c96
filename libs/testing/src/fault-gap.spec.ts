import { describe, expect, it } from 'vitest';
import { longestGap, unexpectedRestarts } from './fault-gap';

describe('longestGap', () => {
  it('counts from the fault to the first completion after it', () => {
    expect(longestGap([0, 10, 20, 1020, 1030], 25)).toEqual({ ms: 995, start: 25, end: 1020 });
  });

  it('takes the longest stretch between completions after the fault, ignoring those before it', () => {
    expect(longestGap([0, 5000, 6000, 6100, 9100, 9200], 5500)).toEqual({ ms: 3000, start: 6100, end: 9100 });
  });

  it('with an end, the tail after the last completion counts too', () => {
    expect(longestGap([100, 200], 0, 5000)).toEqual({ ms: 4800, start: 200, end: 5000 });
    expect(longestGap([100, 200, 300], 0, 250)).toEqual({ ms: 100, start: 0, end: 100 });
  });

  it('no completion after the fault: the whole window, or Infinity without an end', () => {
    expect(longestGap([1, 2], 10, 40)).toEqual({ ms: 30, start: 10, end: 40 });
    expect(longestGap([1, 2], 10).ms).toBe(Infinity);
  });
});

describe('unexpectedRestarts', () => {
  const before = [
    { name: 'indexer', restarts: 0 },
    { name: 'item-processor-1', restarts: 2 },
    { name: 'item-processor-2', restarts: 0 },
  ];

  it('the victim restarted once and nothing else: none', () => {
    expect(unexpectedRestarts(before, [{ name: 'indexer', restarts: 0 }, { name: 'item-processor-1', restarts: 3 }, { name: 'item-processor-2', restarts: 0 }], 'item-processor-1')).toEqual([]);
  });

  it('a healthy process restarted, or the victim not or twice: named', () => {
    expect(unexpectedRestarts(before, [{ name: 'indexer', restarts: 1 }, { name: 'item-processor-1', restarts: 2 }, { name: 'item-processor-2', restarts: 0 }], 'item-processor-1')).toEqual([
      'indexer: 1 restart(s), expected 0',
      'item-processor-1: 0 restart(s), expected 1',
    ]);
    expect(unexpectedRestarts(before, [{ name: 'indexer', restarts: 0 }, { name: 'item-processor-1', restarts: 2 }, { name: 'item-processor-2', restarts: 0 }], undefined)).toEqual([]);
  });
});
