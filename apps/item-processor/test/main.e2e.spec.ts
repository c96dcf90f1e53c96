import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeXmlRpcRequest } from '@esp/codecs';
import { Middleware, serveNameServer } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDistributor } from './fakes';

const ENTRY = 'apps/item-processor/src/main.ts';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('item-processor as a process (main.ts)', () => {
  let ns: NatsServer;
  let nameServer: Middleware;
  let peers: Middleware;
  let cd: FakeDistributor;
  const procs: ChildService[] = [];

  beforeAll(async () => {
    ns = await NatsServer.start();
    nameServer = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nameServer);
    peers = await Middleware.connect({ name: 'peers', servers: ns.url });
    cd = await FakeDistributor.start(peers);
  });
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    await peers?.close();
    await nameServer?.close();
    await ns?.cleanup();
  });

  it('logs ready with name and status_url once registered; SIGTERM unregisters (handler, then master) and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ip-main-'));
    const config = join(dir, 'pipelines.json');
    writeFileSync(config, JSON.stringify({ pipelines: { default: [{ type: 'utf8' }, { type: 'normalize' }] } }));
    const p = await ChildService.start({ entry: ENTRY, args: ['--nats', ns.url, '--name', 'ip-main', '--host', '127.0.0.1', '--status-listen', '127.0.0.1', '--pipeline-config', config] });
    procs.push(p);
    const ready = p.logs.find((l) => l['msg'] === 'ready')!;
    expect(ready).toMatchObject({ name: 'ip-main', status_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/RPC2$/) });
    expect(p.logs.find((l) => l['msg'] === 'Status interface listening')).toMatchObject({ port: expect.any(Number) });
    expect(cd.logOf('ip-main')).toEqual(['master.register_procserver(ip-main)', 'master.assign_dispatcher(ip-main)', 'handler.register_procserver(ip-main)']);

    const pong = await fetch(String(ready['status_url']), { method: 'POST', body: encodeXmlRpcRequest('ping', []) });
    expect(await pong.text()).toMatch(/<string>pong<\/string>|<value>pong<\/value>/);

    expect(await p.stop()).toBe(0);
    expect(cd.logOf('ip-main').slice(-2)).toEqual(['handler.unregister_procserver(ip-main)', 'master.unregister_procserver(ip-main)']);
  });

  it('the Status method Shutdown stops the process the same way', async () => {
    const p = await ChildService.start({ entry: ENTRY, args: ['--nats', ns.url, '--name', 'ip-shutdown', '--host', '127.0.0.1', '--status-listen', '127.0.0.1'] });
    procs.push(p);
    const url = String(p.logs.find((l) => l['msg'] === 'ready')!['status_url']);
    const r = await fetch(url, { method: 'POST', body: encodeXmlRpcRequest('Shutdown', []) });
    expect(await r.text()).toMatch(/<int>1<\/int>/);
    await waitFor(() => !p.running, { what: 'process exit', timeoutMs: 10_000 });
    expect(cd.logOf('ip-shutdown').slice(-2)).toEqual(['handler.unregister_procserver(ip-shutdown)', 'master.unregister_procserver(ip-shutdown)']);
  });

  it('--help prints usage; a bad option exits 2; a bad pipeline configuration exits 1 saying what is wrong', () => {
    const node = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', ENTRY, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, LOG_FORMAT: 'json', VITEST: '' } });
    const help = node(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: item-processor/);
    const bad = node(['--status-port', 'many']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--status-port must be an integer/);
    const dir = mkdtempSync(join(tmpdir(), 'ip-main-'));
    writeFileSync(join(dir, 'p.json'), JSON.stringify({ pipelines: { default: [{ type: 'ocr' }] } }));
    const conf = node(['--nats', ns.url, '--pipeline-config', join(dir, 'p.json')]);
    expect(conf.status).toBe(1);
    expect(conf.stdout).toMatch(/unknown stage type \\"ocr\\"/);
  });
});
