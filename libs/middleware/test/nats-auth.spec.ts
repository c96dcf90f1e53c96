/**
 * Credentials and TLS against real nats-servers that require them: each way to authenticate connects, and the
 * wrong credentials, a missing file or a file of the wrong kind fail at connect with a clear message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsServer, selfSignedCertificate } from '@esp/testing';
import { createUser } from '@nats-io/nkeys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Middleware, NatsCredentialsError, RawBus } from '../src';
import { operatorSetup } from './fixtures/nats-jwt';

const dir = mkdtempSync(join(tmpdir(), 'nats-auth-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const servers: NatsServer[] = [];
const nkeyUser = createUser();
const seedFile = file('user.nk', new TextDecoder().decode(nkeyUser.getSeed()) + '\n');
const cert = selfSignedCertificate({ commonName: 'nats test server' });
const certFile = file('server.pem', cert.cert);
const keyFile = file('server.key', cert.key);
const operator = operatorSetup();
const credsFile = file('user.creds', operator.creds);

let usersUrl: string;
let tokenUrl: string;
let tlsUrl: string;
let operatorUrl: string;

beforeAll(async () => {
  const start = async (config: string) => {
    // processes in either test mode: the TLS server's configuration names certificate files of this machine
    const ns = await NatsServer.startProcess({ jetstream: false, config });
    servers.push(ns);
    return ns.url;
  };
  [usersUrl, tokenUrl, tlsUrl, operatorUrl] = await Promise.all([
    start(`authorization { users = [ { user: alice, password: "s3cret" }, { nkey: ${nkeyUser.getPublicKey()} } ] }`),
    start('authorization { token: "t0ken" }'),
    start(`tls { cert_file: "${certFile}", key_file: "${keyFile}" }\nauthorization { user: bob, password: "pw" }`),
    start(operator.config),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.cleanup()));
  rmSync(dir, { recursive: true, force: true });
});

/** Connects, proves the connection carries messages, closes. */
async function roundTrip(servers: string, security: Parameters<typeof Middleware.connect>[0]['security']): Promise<void> {
  const mw = await Middleware.connect({ name: 'auth-test', servers, security });
  try {
    const got: number[] = [];
    const subject = RawBus.subject('test', 'auth');
    const stop = await mw.bus.subscribe(subject, (m) => got.push(m.data.length));
    mw.bus.publish(subject, new Uint8Array(3));
    await mw.bus.flush();
    for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual([3]);
    await stop();
  } finally {
    await mw.close();
  }
}

describe('NATS credentials', () => {
  it('a user and password, a token, an nkey seed file and a .creds file each connect', async () => {
    await roundTrip(usersUrl, { user: 'alice', password: 's3cret' });
    await roundTrip(usersUrl, { user: 'alice', passwordFile: file('alice.password', 's3cret\n') });
    await roundTrip(tokenUrl, { token: 't0ken' });
    await roundTrip(usersUrl, { nkeySeedFile: seedFile });
    await roundTrip(operatorUrl, { credsFile });
  });

  it('TLS with the server checked against a CA file', async () => {
    await roundTrip(tlsUrl, { user: 'bob', password: 'pw', tls: { caFile: certFile } });
  });

  it('the environment is read when no settings are given', async () => {
    const saved = { ...process.env };
    try {
      process.env['NATS_TOKEN'] = 't0ken';
      await roundTrip(tokenUrl, undefined);
    } finally {
      process.env = saved;
    }
  });

  it('no credentials, or wrong ones: refused at connect, with a message that points at the credentials', async () => {
    for (const url of [usersUrl, tokenUrl, operatorUrl]) await expect(Middleware.connect({ name: 'auth-test', servers: url, security: {} })).rejects.toThrow(/Check the NATS credentials/);
    await expect(Middleware.connect({ name: 'auth-test', servers: tlsUrl, security: { user: 'bob', password: 'pw' } })).rejects.toThrow(/cannot connect/);
    await expect(Middleware.connect({ name: 'auth-test', servers: usersUrl, security: { user: 'alice', password: 'wrong' } })).rejects.toThrow(/Check the NATS credentials/);
    await expect(Middleware.connect({ name: 'auth-test', servers: tokenUrl, security: { token: 'nope' } })).rejects.toThrow(/Check the NATS credentials/);
    await expect(Middleware.connect({ name: 'auth-test', servers: usersUrl, security: { nkeySeedFile: file('other.nk', new TextDecoder().decode(createUser().getSeed())) } })).rejects.toThrow(
      /Check the NATS credentials/,
    );
  });

  it('TLS without the CA that signed the server certificate is refused', async () => {
    const other = file('other-ca.pem', selfSignedCertificate().cert);
    await expect(Middleware.connect({ name: 'auth-test', servers: tlsUrl, security: { user: 'bob', password: 'pw', tls: { caFile: other } } })).rejects.toThrow(/cannot connect/);
  });

  it('a missing file, or a file of the wrong kind, is a NatsCredentialsError before any connection', async () => {
    const cases = [
      { nkeySeedFile: join(dir, 'missing.nk') },
      { user: 'alice', passwordFile: join(dir, 'missing.password') },
      { user: 'alice', passwordFile: file('empty.password', '\n') },
      { nkeySeedFile: certFile },
      { credsFile: seedFile },
      { credsFile: join(dir, 'missing.creds') },
      { tls: { caFile: join(dir, 'missing.pem') } },
    ];
    for (const security of cases) {
      const err = await Middleware.connect({ name: 'auth-test', servers: usersUrl, security }).catch((e: unknown) => e);
      expect(err, JSON.stringify(security)).toBeInstanceOf(NatsCredentialsError);
      expect((err as NatsCredentialsError).code).toBe('nats_credentials');
    }
    const saved = { ...process.env };
    try {
      process.env['NATS_TOKEN'] = 't';
      process.env['NATS_CREDS'] = credsFile;
      await expect(Middleware.connect({ name: 'auth-test', servers: usersUrl })).rejects.toThrow(/at most one of/);
    } finally {
      process.env = saved;
    }
  });
});
