import { describe, expect, it } from 'vitest';
import { parseCli } from './cli';

describe('indexer cli', () => {
  it('defaults: NATS_URL, .esp/indexer, collection "default", base port 16000, 64 queued batches', () => {
    expect(parseCli([], { NATS_URL: 'nats://a:1,nats://b:2' })).toEqual({
      kind: 'run',
      nats: ['nats://a:1', 'nats://b:2'],
      security: {},
      dataDir: '.esp/indexer',
      collections: ['default'],
      basePort: 16000,
      maxQueuedBatches: 64,
      configService: false,
      wait: false,
    });
  });
  it('takes every option', () => {
    expect(parseCli(['--nats', 'nats://x:4', '--data', '/d', '--collections', 'a, b,a', '--base-port', '13000', '--queue', '8', '--wait', '--config-service'], {})).toEqual({
      kind: 'run',
      nats: ['nats://x:4'],
      security: {},
      dataDir: '/d',
      collections: ['a', 'b'],
      basePort: 13000,
      maxQueuedBatches: 8,
      configService: true,
      wait: true,
    });
  });
  it('--help gives the usage text', () => {
    expect(parseCli(['-h'], {})).toMatchObject({ kind: 'help', text: expect.stringMatching(/Usage: indexer[\s\S]*--collections/) });
  });
  it('refuses unknown options, bad numbers and collection names that are not file names', () => {
    expect(parseCli(['--bogus'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/bogus/) });
    expect(parseCli(['--base-port', '-1'], {})).toMatchObject({ kind: 'error' });
    expect(parseCli(['--base-port', '1e3'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--base-port/) });
    expect(parseCli(['--queue', '0'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--queue/) });
    expect(parseCli(['--collections', '../etc'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/not a valid collection name/) });
    expect(parseCli(['--collections', ','], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/no collection/) });
  });
});
