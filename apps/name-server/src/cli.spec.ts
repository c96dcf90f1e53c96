import { describe, expect, it } from 'vitest';
import { parseCli } from './cli';

describe('name-server cli', () => {
  it('defaults to NATS_URL and one replica', () => {
    expect(parseCli([], { NATS_URL: 'nats://a:1,nats://b:2' })).toEqual({ kind: 'run', nats: ['nats://a:1', 'nats://b:2'], replicas: 1, wait: false });
  });
  it('--help gives the usage text', () => {
    expect(parseCli(['--help'], {})).toMatchObject({ kind: 'help', text: expect.stringMatching(/Usage: name-server/) });
  });
  it('refuses an unknown option and a bad replica count with a clear message', () => {
    expect(parseCli(['--bogus'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/bogus/) });
    expect(parseCli(['--replicas', 'x'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--replicas/) });
  });
});
