import { describe, expect, it } from 'vitest';
import { formatJson, formatText, parseCli, type SearchOptions } from './cli';

const opts = (o: Partial<SearchOptions> = {}): SearchOptions => ({ query: 'storm', collection: 'news', limit: 10, offset: 0, nats: [], security: {}, json: false, verbose: false, waitForNatsMs: 30_000, ...o });

describe('search cli: arguments', () => {
  it('the positional words are the query; defaults: collection "default", 10 hits, NATS_URL', () => {
    expect(parseCli(['north', 'sea'], { NATS_URL: 'nats://n:1' })).toEqual({ kind: 'run', query: 'north sea', collection: 'default', limit: 10, offset: 0, nats: ['nats://n:1'], security: {}, json: false, verbose: false, waitForNatsMs: 30_000 });
  });
  it('takes every option, long and short', () => {
    expect(parseCli(['"a b" c*', '-c', 'news', '-n', '5', '--offset', '10', '--nats', 'nats://x:2,nats://y:3', '--json', '-v', '--home', 'h', '--wait-for-nats', '5'], {})).toEqual({
      kind: 'run',
      query: '"a b" c*',
      collection: 'news',
      limit: 5,
      offset: 10,
      nats: ['nats://x:2', 'nats://y:3'],
      security: {},
      json: true,
      verbose: true,
      waitForNatsMs: 5000,
    });
  });
  it('--help; no query, a bad number or an unknown option is a usage error with a clear message', () => {
    expect(parseCli(['--help'], {})).toMatchObject({ kind: 'help', text: expect.stringMatching(/Usage: npm run -s search/) });
    expect(parseCli([], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/what to search for/) });
    expect(parseCli(['  '], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/empty/) });
    expect(parseCli(['x', '--limit', '0'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--limit must be an integer from 1 to 1000/) });
    expect(parseCli(['x', '--limit', '5000'], {})).toMatchObject({ kind: 'error' });
    expect(parseCli(['x', '--offset', '-3'], {})).toMatchObject({ kind: 'error' });
    expect(parseCli(['x', '--bogus'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/bogus/) });
  });
});

describe('search cli: output', () => {
  const hits = [
    { id: 'storm', score: 4.21234, title: 'Storm over the North Sea', snippet: 'Gale force [winds]\nand rain' },
    { id: 'calm', score: 1.5, title: '', snippet: '' },
  ];
  it('text: a header, then rank, score, id, title and the snippet on one line each', () => {
    expect(formatText(opts(), { total: 2, hits })).toBe(
      '2 hits for "storm" in news\n1. 4.212  storm  Storm over the North Sea\n   Gale force [winds] and rain\n2. 1.500  calm\n',
    );
    expect(formatText(opts({ offset: 9 }), { total: 30, hits })).toMatch(/^30 hits for "storm" in news, showing 10-11\n10\. 4\.212/);
    expect(formatText(opts(), { total: 0, hits: [] })).toBe('no hits for "storm" in news\n');
  });
  it('json: one object with ranks counted from the offset', () => {
    expect(JSON.parse(formatJson(opts({ offset: 5 }), { total: 7, hits }))).toEqual({
      query: 'storm',
      collection: 'news',
      total: 7,
      offset: 5,
      hits: [
        { rank: 6, score: 4.21234, id: 'storm', title: 'Storm over the North Sea', snippet: 'Gale force [winds]\nand rain' },
        { rank: 7, score: 1.5, id: 'calm', title: '', snippet: '' },
      ],
    });
  });
});
