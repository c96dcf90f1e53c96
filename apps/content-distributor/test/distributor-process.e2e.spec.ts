import { DISPATCHER_NAME, sessionFactoryInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware, serveNameServer } from '@esp/middleware';
import { ChildService, NatsServer } from '@esp/testing';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ENTRY = 'apps/content-distributor/src/main.ts';
const ROOT = new URL('../../../', import.meta.url).pathname;

describe('content-distributor process', () => {
  let ns: NatsServer;
  let mw: Middleware;
  const procs: ChildService[] = [];
  beforeAll(async () => {
    ns = await NatsServer.start();
    mw = await Middleware.connect({ name: 't', servers: ns.url, logger: createLogger('t', {}, { level: 'warn' }) });
    await serveNameServer(mw);
  });
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    await mw?.close();
    await ns?.cleanup();
  });

  it('killed with -9 and started again: it takes over its own stale bindings and is master again', async () => {
    const cd = await ChildService.start({ entry: ENTRY, args: ['--nats', ns.url, '--collections', 'news'] });
    procs.push(cd);
    const before = await mw.names.resolve(DISPATCHER_NAME, sessionFactoryInterface.type, sessionFactoryInterface.version);
    await cd.kill();
    // the binding outlives the process (it is in JetStream KV), pointing at an object nobody serves
    await expect(mw.proxy(sessionFactoryInterface, before.aor).__ping()).rejects.toMatchObject({ code: 'object_not_exist' });
    await cd.restart();
    const after = await mw.names.resolve(DISPATCHER_NAME, sessionFactoryInterface.type, sessionFactoryInterface.version);
    await expect(mw.proxy(sessionFactoryInterface, after.aor).__ping()).resolves.toBeUndefined();
  });

  it('a second distributor while the master lives is refused with a clear message, and the master keeps its binding', async () => {
    // not spawnSync: the name server of this test runs in this process and must keep answering
    const proc = spawn(process.execPath, ['--import', 'tsx', ENTRY, '--nats', ns.url, '--collections', 'news', '--base-port', '17000'], {
      cwd: ROOT,
      env: { ...process.env, LOG_FORMAT: 'json', VITEST: '' },
    });
    let stdout = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const status = await new Promise<number | null>((r) => proc.once('exit', r));
    expect(status).toBe(1);
    expect(stdout).toMatch(/held by a live object/);
    const b = await mw.names.resolve(DISPATCHER_NAME, sessionFactoryInterface.type, sessionFactoryInterface.version);
    await expect(mw.proxy(sessionFactoryInterface, b.aor).__ping()).resolves.toBeUndefined();
  });

  it('--help and bad options', () => {
    const help = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: content-distributor/);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, '--lease-seconds', '0'], { cwd: ROOT, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--lease-seconds must be an integer from 1/);
  });

  it('a second distributor with the same host, base port and node id is refused before it touches any binding', async () => {
    const master = await mw.names.resolve(DISPATCHER_NAME, sessionFactoryInterface.type, sessionFactoryInterface.version);
    const proc = spawn(process.execPath, ['--import', 'tsx', ENTRY, '--nats', ns.url, '--collections', 'news'], { cwd: ROOT, env: { ...process.env, LOG_FORMAT: 'json', VITEST: '' } });
    let stdout = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    expect(await new Promise<number | null>((r) => proc.once('exit', r))).toBe(1);
    expect(stdout).toMatch(/another content distributor already serves node id 0/);
    const still = await mw.names.resolve(DISPATCHER_NAME, sessionFactoryInterface.type, sessionFactoryInterface.version);
    expect(still.revision).toBe(master.revision);
    await expect(mw.proxy(sessionFactoryInterface, still.aor).__ping()).resolves.toBeUndefined();
  });
});
