import { describe, expect, it } from 'vitest';
import { BoundedLog } from './bounded-log';

describe('BoundedLog', () => {
  it('keeps the newest lines, oldest first, and counts what fell out', () => {
    const log = new BoundedLog<number>(3);
    for (let i = 1; i <= 2; i++) log.push(i);
    expect(log.lines()).toEqual([1, 2]);
    for (let i = 3; i <= 7; i++) log.push(i);
    expect(log.lines()).toEqual([5, 6, 7]);
    expect(log.size).toBe(3);
    expect(log.dropped).toBe(4);
  });

  it('refuses a capacity under one', () => {
    expect(() => new BoundedLog(0)).toThrow(RangeError);
  });
});
