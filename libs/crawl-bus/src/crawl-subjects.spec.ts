import { describe, expect, it } from 'vitest';
import { crawlAddress, parseCrawlAddress, parsePeerSpec } from './crawl-subjects';
import { PriorityQueue } from './priority-queue';

describe('crawl subjects', () => {
  it('an address is one subject per peer, and parses back, whatever the id holds', () => {
    const peer = { cluster: 'c.1', role: 'ns' as const, id: 'node 1.a/b' };
    const subject = crawlAddress(peer);
    expect(subject).toBe('esp.raw.fscmt.c%2E1.ns.node%201%2Ea%2Fb');
    expect(parseCrawlAddress(subject)).toEqual(peer);
    expect(parseCrawlAddress('esp.raw.ppp.x')).toBeUndefined();
    expect(parseCrawlAddress('esp.raw.fscmt.c.bad.x')).toBeUndefined();
  });

  it('peer specs on the command line are <role>/<id>', () => {
    expect(parsePeerSpec('dup/dup1', 'default')).toEqual({ cluster: 'default', role: 'dup', id: 'dup1' });
    expect(parsePeerSpec('web/x', 'default')).toMatch(/role one of mns, ns, dup, tcp/);
    expect(parsePeerSpec('mns', 'default')).toMatch(/<role>\/<id>/);
  });
});

describe('priority queue', () => {
  it('priority 1 before priority 0, each in arrival order', () => {
    const q = new PriorityQueue<string>();
    q.push('a', 0);
    q.push('b', 0);
    q.push('X', 1);
    q.push('c', 0);
    q.push('Y', 1);
    expect(q.length).toBe(5);
    expect(q.shift()).toBe('X');
    expect(q.drain()).toEqual(['Y', 'a', 'b', 'c']);
    expect(q.shift()).toBeUndefined();
  });

  it('stays correct across compaction with many items', () => {
    const q = new PriorityQueue<number>();
    for (let i = 0; i < 5000; i++) q.push(i, 0);
    const out: number[] = [];
    for (let i = 0; i < 3000; i++) out.push(q.shift()!);
    q.push(-1, 1);
    expect(q.shift()).toBe(-1);
    while (q.length) out.push(q.shift()!);
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});
