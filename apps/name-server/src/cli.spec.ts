import { describe, expect, it } from 'vitest';
import { parseCli } from './cli';

describe('name-server cli', () => {
  it('defaults to NATS_URL and one replica', () => {
    expect(parseCli([], { NATS_URL: 'nats://a:1,nats://b:2' })).toEqual({ kind: 'run', nats: ['nats://a:1', 'nats://b:2'], security: {}, replicas: 1, wait: false, clearBindings: false });
    expect(parseCli(['--clear-bindings'], {})).toMatchObject({ kind: 'run', clearBindings: true });
  });
  it('--help gives the usage text', () => {
    expect(parseCli(['--help'], {})).toMatchObject({ kind: 'help', text: expect.stringMatching(/Usage: name-server/) });
  });
  it('refuses an unknown option and a bad replica count with a clear message', () => {
    expect(parseCli(['--bogus'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/bogus/) });
    expect(parseCli(['--replicas', 'x'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--replicas/) });
  });
  it('NATS credentials and TLS from flags, else the environment; contradictions are errors; --help lists them', () => {
    expect(parseCli(['--nats-creds', '/u.creds', '--nats-ca', '/ca.pem'], {})).toMatchObject({ kind: 'run', security: { credsFile: '/u.creds', tls: { caFile: '/ca.pem' } } });
    expect(parseCli([], { NATS_USER: 'u', NATS_PASSWORD: 'p' })).toMatchObject({ kind: 'run', security: { user: 'u', password: 'p' } });
    expect(parseCli(['--nats-token', 't', '--nats-nkey', '/k.nk'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/at most one of/) });
    expect(parseCli(['--help'], {})).toMatchObject({ kind: 'help', text: expect.stringContaining('--nats-creds <file>') });
  });
});
