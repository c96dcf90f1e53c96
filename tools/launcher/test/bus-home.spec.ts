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
import { busRoleOf, ensureBusHome, withBusIdentities } from '../src/bus/bus-home';
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
});
