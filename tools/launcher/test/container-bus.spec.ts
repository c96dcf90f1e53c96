/**
 * The secured bus of a container stack: a directory per role with its password and the CA, kept across runs, a
 * certificate for the names containers use, and the server version read from the image's tag.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsSecurity } from '@esp/cli-options';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBusHome } from '../src/bus/bus-home';
import { BUS_ROLES } from '../src/bus/bus-roles';
import { natsImageVersion, roleDir, writeRoleDirs } from '../src/bus/container-bus';
import { natsServerVersion } from '../src/nats-endpoint';

describe('the secured bus of a container stack', () => {
  let home: string;
  let ns: NatsServer | undefined;
  const hosts = ['nats', 'localhost', '127.0.0.1'];

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'esp-compose-bus-'));
  });
  afterAll(async () => {
    await ns?.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  it('natsImageVersion: the version in the tag, or none', () => {
    expect(natsImageVersion('nats:2.10-alpine')).toBe('2.10');
    expect(natsImageVersion('esp-local/nats:2.9')).toBe('2.9');
    expect(natsImageVersion('registry.example:5000/nats:v2.11.3-scratch')).toBe('2.11.3');
    expect(natsImageVersion('nats')).toBeUndefined();
    expect(natsImageVersion('nats:latest')).toBeUndefined();
    expect(natsImageVersion('registry.example:5000/nats')).toBeUndefined();
    expect(natsImageVersion('nats@sha256:0123abcd')).toBeUndefined();
  });

  it('one directory per role, its password owner-only and the CA; a second run writes the same', () => {
    const bus = ensureBusHome(home, '2.9', { hosts });
    const roles = join(bus.dir, 'roles');
    writeRoleDirs(bus, roles);
    const indexer = roleDir(roles, 'indexer');
    expect(statSync(indexer).mode & 0o777).toBe(0o700);
    expect(statSync(join(indexer, 'password')).mode & 0o777).toBe(0o600);
    for (const role of BUS_ROLES) {
      expect(readFileSync(join(roleDir(roles, role), 'password'), 'utf8')).toBe(`${bus.env(role)['NATS_PASSWORD']}\n`);
      expect(readFileSync(join(roleDir(roles, role), 'ca.pem'), 'utf8')).toBe(readFileSync(bus.caFile, 'utf8'));
    }
    // the batch key for the indexer and the distributors alone; a password per item processor in theirs
    const key = readFileSync(bus.batchKeyFile);
    for (const role of ['indexer', 'content-distributor'] as const) expect(readFileSync(join(roleDir(roles, role), 'batch-key'))).toEqual(key);
    expect(() => statSync(join(roleDir(roles, 'item-processor'), 'batch-key'))).toThrow();
    for (const name of ['item-processor-1', 'item-processor-2']) {
      const file = join(roleDir(roles, 'item-processor'), name, 'password');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toBe(readFileSync(bus.processorEnv(name)['NATS_PASSWORD_FILE'] as string, 'utf8'));
    }
    const again = ensureBusHome(home, '2.9', { hosts });
    writeRoleDirs(again, roles);
    expect(readFileSync(again.batchKeyFile)).toEqual(key);
    expect(again.env('indexer')).toEqual(bus.env('indexer'));
    expect(readFileSync(again.caFile, 'utf8')).toBe(readFileSync(bus.caFile, 'utf8'));
  });

  it('the certificate serves the names asked, and is made again when one is added', () => {
    const cert = readFileSync(ensureBusHome(home, '2.9', { hosts }).caFile, 'utf8');
    expect(new X509Certificate(cert).checkHost('nats')).toBe('nats');
    const more = readFileSync(ensureBusHome(home, '2.9', { hosts: [...hosts, 'nats.internal'] }).caFile, 'utf8');
    expect(more).not.toBe(cert);
    expect(new X509Certificate(more).checkHost('nats.internal')).toBe('nats.internal');
  });

  it('a process connects with its role\'s password file and the CA; without credentials it is refused', async () => {
    const bus = ensureBusHome(home, natsServerVersion('nats-server'), { hosts });
    const roles = join(bus.dir, 'roles');
    writeRoleDirs(bus, roles);
    ns = await NatsServer.startProcess({ config: readFileSync(bus.configFile, 'utf8') });
    const logger = createLogger('test', {}, { level: 'silent' });
    const dir = roleDir(roles, 'client');
    const security = natsSecurity({}, { NATS_USER: 'client', NATS_PASSWORD_FILE: join(dir, 'password'), NATS_CA: join(dir, 'ca.pem') });
    if (typeof security === 'string') throw new Error(security);
    const mw = await Middleware.connect({ name: 'client', servers: ns.url, security, logger });
    await mw.close();
    // an item processor of docker.json, as the node controller starts it: NATS_USER={name}, its password's file
    const ip = natsSecurity({}, { NATS_USER: 'item-processor-2', NATS_PASSWORD_FILE: join(roleDir(roles, 'item-processor'), 'item-processor-2', 'password'), NATS_CA: join(dir, 'ca.pem') });
    if (typeof ip === 'string') throw new Error(ip);
    await (await Middleware.connect({ name: 'item-processor-2', servers: ns.url, security: ip, logger })).close();
    await expect(Middleware.connect({ name: 'anon', servers: ns.url, security: { tls: { caFile: join(dir, 'ca.pem') } }, logger })).rejects.toThrow(/Check the NATS credentials/);
  });
});
