import { describe, expect, it } from 'vitest';
import { parseCli } from './cli';

describe('ppp-gateway cli', () => {
  it('--help - prints the usage', () => {
    const cli = parseCli(['--help'], {});
    expect(cli.kind).toBe('help');
    expect(cli.kind === 'help' && cli.text).toMatch(/--frontend <endpoint>/);
  });

  it('defaults - ports 5555 / 5556, heartbeat 1000 ms, liveness 3, NATS_URL', () => {
    expect(parseCli([], { NATS_URL: 'nats://h:4222' })).toMatchObject({
      kind: 'run',
      nats: ['nats://h:4222'],
      frontend: 'tcp://127.0.0.1:5555',
      backend: 'tcp://127.0.0.1:5556',
      heartbeatMs: 1000,
      liveness: 3,
      queue: false,
    });
  });

  it('bad values - a clear message', () => {
    expect(parseCli(['--heartbeat-ms', 'x'], {})).toEqual({ kind: 'error', message: '--heartbeat-ms must be an integer from 10 to 600000, got "x"' });
    expect(parseCli(['--backend', 'localhost:1'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/ZeroMQ endpoint/) });
    expect(parseCli(['--bogus'], {}).kind).toBe('error');
  });
});
