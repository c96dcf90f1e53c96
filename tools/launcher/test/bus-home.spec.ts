/**
 * The launcher's secured bus files: generated once into <home>/nats-auth and kept, owner-only, and a nats-server
 * running their configuration admits each process with the environment the launcher gives it, and nobody else.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { natsSecurity } from '@esp/cli-options';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_KEY_ENV } from '@esp/interfaces';
import { busRoleOf, ensureBusHome, processorNames, withBusIdentities } from '../src/bus/bus-home';
import { fillProfile } from '../src/node-control';
import { trySubscribe } from './bus-probes';
import { natsServerVersion } from '../src/nats-endpoint';

describe('the launcher\'s secured bus home', () => {
  let home: string;
  let ns: NatsServer | undefined;
  const quiet = createLogger('test', {}, { level: 'silent' });

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'esp-home-'));
  });
  afterAll(async () => {
    await ns?.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  it('writes passwords, certificate and configuration owner-only, and keeps the passwords and certificate across starts', () => {
    const first = ensureBusHome(home, '2.9.10');
    expect(statSync(first.dir).mode & 0o777).toBe(0o700);
    for (const f of ['passwords.json', 'server-key.pem', 'nats.conf', 'client.env', 'admin.env']) expect(statSync(join(first.dir, f)).mode & 0o077, f).toBe(0);
    const cert = readFileSync(first.caFile, 'utf8');
    const again = ensureBusHome(home, '2.10.1');
    expect(again.env('indexer')).toEqual(first.env('indexer'));
    expect(readFileSync(again.caFile, 'utf8')).toBe(cert);
    expect(readFileSync(again.configFile, 'utf8')).toContain('sync_interval: always');
    expect(readFileSync(join(again.dir, 'client.env'), 'utf8')).toContain('NATS_USER=client\n');
  });

  it('gives each process of the node profile its role\'s identity, and none to a process of no role', () => {
    const bus = ensureBusHome(home, '2.9.10');
    const profile = { node: 'n', processes: [{ name: 'indexer', env: { LOG_LEVEL: 'info' } }, { name: 'duplicate-server-replica' }, { name: 'my-tool' }] };
    const out = withBusIdentities(profile, bus) as typeof profile & { processes: Array<{ env?: Record<string, string> }> };
    expect(out.processes[0]?.env).toMatchObject({ LOG_LEVEL: 'info', NATS_USER: 'indexer', NATS_CA: bus.caFile });
    expect(out.processes[1]?.env).toMatchObject({ NATS_USER: 'duplicate-server' });
    expect(out.processes[2]?.env).toBeUndefined();
    expect(busRoleOf('admin')).toBeUndefined();
  });

  it('a nats-server on the generated file admits a process with its environment, and refuses one without', async () => {
    const bus = ensureBusHome(home, natsServerVersion('nats-server'));
    ns = await NatsServer.start({ config: readFileSync(bus.configFile, 'utf8') });
    const security = natsSecurity({}, bus.env('content-distributor'));
    if (typeof security === 'string') throw new Error(security);
    const mw = await Middleware.connect({ name: 'cd', servers: ns.url, security, logger: quiet });
    await mw.close();
    const anonymous = natsSecurity({}, { NATS_CA: bus.caFile });
    if (typeof anonymous === 'string') throw new Error(anonymous);
    await expect(Middleware.connect({ name: 'anon', servers: ns.url, security: anonymous, logger: quiet })).rejects.toThrow(/Check the NATS credentials/);
  });

  it('gives each item processor of the profile a user of its own, and the distributors and the indexer the batch key (owner-only, kept)', () => {
    const names = processorNames(fillProfile(join(import.meta.dirname, '../profiles/default.json'), {}));
    expect(names).toEqual(['item-processor-1', 'item-processor-2']);
    const bus = ensureBusHome(home, '2.9.10', { processors: names });
    expect(bus.processors).toEqual(['item-processor', 'item-processor-1', 'item-processor-2']);
    const key = readFileSync(bus.batchKeyFile);
    expect(key.length).toBe(32);
    expect(statSync(bus.batchKeyFile).mode & 0o077).toBe(0);
    expect(readFileSync(ensureBusHome(home, '2.9.10', { processors: names }).batchKeyFile)).toEqual(key);
    expect(bus.env('indexer')[BATCH_KEY_ENV]).toBe(bus.batchKeyFile);
    expect(bus.env('content-distributor')[BATCH_KEY_ENV]).toBe(bus.batchKeyFile);
    expect(bus.env('item-processor')[BATCH_KEY_ENV]).toBeUndefined();
    const p1 = bus.processorEnv('item-processor-1');
    expect(p1).toMatchObject({ NATS_USER: 'item-processor-1', NATS_CA: bus.caFile });
    expect(p1['NATS_PASSWORD_FILE'] && statSync(p1['NATS_PASSWORD_FILE']).mode & 0o077).toBe(0);
    const conf = readFileSync(bus.configFile, 'utf8');
    expect(conf).toContain('{ user: "item-processor-1"');
    expect(conf).toContain('"esp.obj.processing::processor_server.*.*.processor_server.item-processor-1.>"');
    // the profile's item processors: {name} is filled by the node controller with each instance's name
    const profile = { node: 'n', processes: [{ name: 'item-processor', instances: 2, env: { LOG_LEVEL: 'info' } }] };
    const out = withBusIdentities(profile, bus) as { processes: Array<{ env: Record<string, string> }> };
    expect(out.processes[0]?.env).toEqual({ LOG_LEVEL: 'info', NATS_USER: '{name}', NATS_PASSWORD_FILE: join(bus.dir, 'processors', '{name}', 'password'), NATS_CA: bus.caFile });
  });

  it("a processor's user, with the environment it is given, serves its own processor_server objects and no other's", async () => {
    const bus = ensureBusHome(home, natsServerVersion('nats-server'), { processors: ['item-processor-1', 'item-processor-2'] });
    await ns?.cleanup();
    ns = await NatsServer.start({ config: readFileSync(bus.configFile, 'utf8') });
    const security = natsSecurity({}, bus.processorEnv('item-processor-1'));
    if (typeof security === 'string') throw new Error(security);
    const mw = await Middleware.connect({ name: 'ip1', servers: ns.url, security, logger: quiet });
    try {
      expect(await trySubscribe(mw, 'esp.obj.processing::processor_server.h.16390.processor_server.item-processor-1.77')).toBe('allowed');
      expect(await trySubscribe(mw, 'esp.obj.processing::processor_server.h.16390.processor_server.item-processor-2.77')).toBe('denied');
      expect(await trySubscribe(mw, 'esp.obj.processing::processor_server.>')).toBe('denied');
    } finally {
      await mw.close();
    }
  });
});
