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
      sessionIdleMs: 1_200_000,
      callbackGiveUpMs: 600_000,
      configService: false,
      wait: false,
    });
  });
  it('takes every option', () => {
    expect(parseCli(['--nats', 'nats://x:4', '--data', '/d', '--collections', 'a, b,a', '--base-port', '13000', '--queue', '8', '--wait', '--config-service', '--session-idle-ms', '5000', '--callback-give-up-ms', '0'], {})).toEqual({
      kind: 'run',
      nats: ['nats://x:4'],
      security: {},
      dataDir: '/d',
      collections: ['a', 'b'],
      basePort: 13000,
      maxQueuedBatches: 8,
      sessionIdleMs: 5000,
      callbackGiveUpMs: 0,
      configService: true,
      wait: true,
    });
  });
  it('the idle time and the give-up time also come from the environment; a flag wins', () => {
    expect(parseCli([], { ESP_SESSION_IDLE_MS: '7000', ESP_CALLBACK_GIVE_UP_MS: '9000' })).toMatchObject({ sessionIdleMs: 7000, callbackGiveUpMs: 9000 });
    expect(parseCli(['--session-idle-ms', '1'], { ESP_SESSION_IDLE_MS: '7000' })).toMatchObject({ sessionIdleMs: 1 });
    expect(parseCli(['--session-idle-ms', '-1'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--session-idle-ms/) });
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
