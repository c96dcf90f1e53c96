import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { natsSecurity, NATS_SECURITY_ENV, NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS } from './nats-security';

const flags = (...args: string[]) => parseArgs({ args, options: NATS_SECURITY_OPTIONS, strict: true }).values;

describe('NATS security settings', () => {
  it('nothing given: no credentials, no TLS', () => {
    expect(natsSecurity({}, {})).toEqual({});
  });
  it('each way to authenticate, from flags and from the environment', () => {
    expect(natsSecurity(flags('--nats-user', 'u', '--nats-password', 'p'), {})).toEqual({ user: 'u', password: 'p' });
    expect(natsSecurity({}, { NATS_USER: 'u', NATS_PASSWORD: 'p' })).toEqual({ user: 'u', password: 'p' });
    expect(natsSecurity(flags('--nats-user', 'u', '--nats-password-file', '/run/pw'), {})).toEqual({ user: 'u', passwordFile: '/run/pw' });
    expect(natsSecurity({}, { NATS_USER: 'u', NATS_PASSWORD_FILE: '/run/pw' })).toEqual({ user: 'u', passwordFile: '/run/pw' });
    expect(natsSecurity(flags('--nats-token', 't'), {})).toEqual({ token: 't' });
    expect(natsSecurity({}, { NATS_TOKEN: 't' })).toEqual({ token: 't' });
    expect(natsSecurity(flags('--nats-nkey', '/k.nk'), {})).toEqual({ nkeySeedFile: '/k.nk' });
    expect(natsSecurity({}, { NATS_NKEY: '/k.nk' })).toEqual({ nkeySeedFile: '/k.nk' });
    expect(natsSecurity(flags('--nats-creds', '/u.creds'), {})).toEqual({ credsFile: '/u.creds' });
    expect(natsSecurity({}, { NATS_CREDS: '/u.creds' })).toEqual({ credsFile: '/u.creds' });
  });
  it('TLS files, from flags and from the environment', () => {
    expect(natsSecurity(flags('--nats-ca', '/ca.pem'), {})).toEqual({ tls: { caFile: '/ca.pem' } });
    expect(natsSecurity({}, { NATS_CA: '/ca.pem', NATS_CERT: '/c.pem', NATS_KEY: '/k.pem' })).toEqual({ tls: { caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/k.pem' } });
  });
  it('the command line replaces the environment group by group: a flag token never mixes with an environment user', () => {
    expect(natsSecurity(flags('--nats-token', 't'), { NATS_USER: 'u', NATS_PASSWORD: 'p', NATS_CA: '/ca.pem' })).toEqual({ token: 't', tls: { caFile: '/ca.pem' } });
    expect(natsSecurity(flags('--nats-ca', '/mine.pem'), { NATS_CA: '/ca.pem', NATS_CERT: '/c.pem', NATS_KEY: '/k.pem' })).toEqual({ tls: { caFile: '/mine.pem' } });
  });
  it('empty values count as not given', () => {
    expect(natsSecurity({}, { NATS_TOKEN: '', NATS_CA: '' })).toEqual({});
  });
  it('contradictions are one-line errors naming the flags', () => {
    expect(natsSecurity(flags('--nats-token', 't', '--nats-creds', '/u.creds'), {})).toMatch(/at most one of/);
    expect(natsSecurity({}, { NATS_TOKEN: 't', NATS_NKEY: '/k' })).toMatch(/at most one of/);
    expect(natsSecurity(flags('--nats-user', 'u'), {})).toMatch(/--nats-user and --nats-password \(or --nats-password-file\) go together/);
    expect(natsSecurity({}, { NATS_PASSWORD: 'p' })).toMatch(/go together/);
    expect(natsSecurity({}, { NATS_PASSWORD_FILE: '/run/pw' })).toMatch(/go together/);
    expect(natsSecurity({}, { NATS_USER: 'u', NATS_PASSWORD: 'p', NATS_PASSWORD_FILE: '/run/pw' })).toMatch(/not both/);
    expect(natsSecurity({}, { NATS_TOKEN: 't', NATS_PASSWORD_FILE: '/run/pw' })).toMatch(/at most one of/);
    expect(natsSecurity(flags('--nats-cert', '/c.pem'), {})).toMatch(/--nats-cert and --nats-key go together/);
  });
  it('the help names every flag and its environment variable', () => {
    for (const flag of Object.keys(NATS_SECURITY_OPTIONS)) expect(NATS_SECURITY_HELP).toContain(`--${flag}`);
    for (const name of NATS_SECURITY_ENV) expect(NATS_SECURITY_HELP).toContain(`$${name}`);
  });
});
