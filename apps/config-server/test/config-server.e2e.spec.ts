import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeXmlRpcRequest, encodeXmlRpcResponse, type XmlRpcValue } from '@esp/codecs';
import { CONFIG_SERVICE_NAME, configServiceInterface } from '@esp/interfaces';
import { Middleware, serveNameServer } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** Python xmlrpc.client; params are JSON, {"__bytes__": ...} never needed here. Binary results come back as base64 text. */
async function py(url: string, method: string, ...params: unknown[]): Promise<{ ok?: unknown; fault?: [number, string] }> {
  const script = `
import json, sys, xmlrpc.client, base64
s = xmlrpc.client.ServerProxy(sys.argv[1])
try:
    r = getattr(s, sys.argv[2])(*json.loads(sys.argv[3]))
    if isinstance(r, xmlrpc.client.Binary): r = {"binary": base64.b64encode(r.data).decode()}
    print(json.dumps({"ok": r}))
except xmlrpc.client.Fault as f:
    print(json.dumps({"fault": [f.faultCode, f.faultString]}))
`;
  const { stdout } = await run('python3', ['-c', script, url, method, JSON.stringify(params)]);
  return JSON.parse(stdout) as { ok?: unknown; fault?: [number, string] };
}

describe('config-server process', () => {
  let ns: NatsServer;
  let mw: Middleware;
  let cfg: ChildService;
  let url: string;
  let dir: string;
  let alertServer: Server;
  const alerts: { method: string; params: XmlRpcValue[] }[] = [];
  const writeCollections = (c: unknown) => writeFileSync(join(dir, 'collections.json'), JSON.stringify(c));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'config-server-'));
    writeCollections({ collections: [{ name: 'default', pipeline: 'default' }] });
    mkdirSync(join(dir, 'DocumentProcessor', 'formatdetector'), { recursive: true });
    writeFileSync(join(dir, 'DocumentProcessor', 'formatdetector', 'user_converter_rules.xml'), '<rules>ünï</rules>');
    ns = await NatsServer.start();
    mw = await Middleware.connect({ name: 'test', servers: ns.url, timeoutMs: 5000 });
    await serveNameServer(mw, {});
    cfg = await ChildService.start({ entry: 'apps/config-server/src/main.ts', args: ['--nats', ns.url, '--port', '0', '--listen', '127.0.0.1', '--config-dir', dir] });
    url = String(cfg.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    alertServer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { methodName, params } = decodeXmlRpcRequest(Buffer.concat(chunks));
        alerts.push({ method: methodName, params });
        res.writeHead(200, { 'Content-Type': 'text/xml' }).end(encodeXmlRpcResponse(1));
      });
    });
    await new Promise<void>((r) => alertServer.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await cfg?.kill();
    alertServer?.close();
    await mw?.close();
    await ns?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const configProxy = async () => (await mw.names.resolveProxy(configServiceInterface, CONFIG_SERVICE_NAME)).proxy;

  it('RegisterModule from Python; get_active_module_list("NodeControl") over the middleware returns it with the caller host', async () => {
    expect(await py(url, 'RegisterModule', { port: 16015, type: 'NodeControl', version: '1.0', name: 'NodeControl', alerts: [] })).toEqual({ ok: 1 });
    expect(await py(url, 'RegisterModule', { port: 16015, type: 'NodeControl', version: '1.0', name: 'NodeControl', alerts: [] })).toEqual({ ok: 1 }); // idempotent
    const proxy = await configProxy();
    const list = await proxy.get_active_module_list('NodeControl');
    expect(list).toEqual([{ port: 16015, type: 'NodeControl', version: '1.0', name: 'NodeControl', alerts: [], host: '127.0.0.1', registered_at: expect.any(Number) }]);
    expect(await proxy.get_active_module_list('ProcessorServer')).toEqual([]);
    expect(await proxy.get_collections()).toEqual([{ name: 'default', pipeline: 'default' }]);
    expect((await py(url, 'GetActiveModuleList', 'NodeControl')).ok).toMatchObject([{ port: 16015, host: '127.0.0.1' }]);
  });

  it('UnregisterModule removes it', async () => {
    expect(await py(url, 'RegisterModule', { port: 16016, type: 'NodeControl', version: '1.0', name: 'NodeControl', alerts: [], host: 'localhost' })).toEqual({ ok: 1 });
    expect(await py(url, 'UnregisterModule', { port: 16015, type: 'NodeControl', version: '1.0', name: 'NodeControl', alerts: [] })).toEqual({ ok: 1 });
    expect((await (await configProxy()).get_active_module_list('NodeControl')).map((m) => `${m.host}:${m.port}`)).toEqual(['localhost:16016']);
  });

  it('a module registers only its own address: another host is a fault, and nothing is listed for it', async () => {
    const foreign = { port: 16017, type: 'NodeControl', version: '1.0', name: 'NodeControl', alerts: ['collection'], host: '203.0.113.9' };
    expect((await py(url, 'RegisterModule', foreign)).fault).toEqual([4, expect.stringMatching(/not the caller's address/)]);
    expect((await py(url, 'RegisterProcessorPipelines', ['203.0.113.9', 13390], ['x'])).fault?.[0]).toBe(4);
    expect((await (await configProxy()).get_active_module_list('NodeControl')).map((m) => m.host)).not.toContain('203.0.113.9');
  });

  it('LoadConfigFile / LoadConfigFileBase64 read the config directory; a path outside it or a missing file is a fault', async () => {
    expect(await py(url, 'LoadConfigFile', 'DocumentProcessor', 'formatdetector/user_converter_rules.xml')).toEqual({ ok: '<rules>ünï</rules>' });
    expect(await py(url, 'LoadConfigFileBase64', 'DocumentProcessor', 'formatdetector/user_converter_rules.xml')).toEqual({ ok: { binary: Buffer.from('<rules>ünï</rules>').toString('base64') } });
    expect((await py(url, 'LoadConfigFile', 'DocumentProcessor', '../../etc/passwd')).fault).toEqual([1, expect.stringMatching(/outside the config directory/)]);
    expect((await py(url, 'LoadConfigFile', 'RTSearch', 'webcluster/fixmlmappings.xml')).fault).toEqual([1, expect.stringMatching(/no config file/)]);
  });

  it('RegisterProcessorPipelines takes [host, port] and pipelines; wrong types, unknown methods and bad XML are faults and it keeps serving', async () => {
    expect(await py(url, 'RegisterProcessorPipelines', ['localhost', 13390], ['Office14 (webcluster)'])).toEqual({ ok: 1 });
    expect((await py(url, 'RegisterProcessorPipelines', ['localhost'], ['x'])).fault?.[0]).toBe(-32602);
    expect((await py(url, 'RegisterModule', { port: 'x', type: 'T', version: '1', name: 'n', alerts: [] })).fault).toEqual([-32602, expect.stringMatching(/ModuleRegister.port must be/)]);
    expect((await py(url, 'RegisterModule', 'NodeControl')).fault).toEqual([-32602, expect.stringMatching(/must be struct, got string/)]);
    expect((await py(url, 'Nope')).fault?.[0]).toBe(-32601);
    const bad = await fetch(url, { method: 'POST', body: '<<<' });
    expect(await bad.text()).toMatch(/-32700/);
    expect(await py(url, 'ping')).toEqual({ ok: 'pong' });
  });

  it('ReloadConfig refuses an invalid collections.json (the old one stays) and alerts "collection" subscribers on a change', async () => {
    const port = (alertServer.address() as AddressInfo).port;
    await py(url, 'RegisterModule', { port, type: 'ProcessorServer', version: '1', name: 'ProcessorServer', alerts: ['collection', 'configfile'] });
    writeCollections({ collections: [{ name: 'a', pipeline: 'p' }, { name: 'a', pipeline: 'q' }] });
    expect((await py(url, 'ReloadConfig')).fault).toEqual([2, expect.stringMatching(/unique.*previous configuration stays/)]);
    expect(await (await configProxy()).get_collections()).toEqual([{ name: 'default', pipeline: 'default' }]);
    expect(alerts).toEqual([]);
    writeCollections({ collections: [{ name: 'default', pipeline: 'default' }, { name: 'news', pipeline: 'html' }] });
    expect(await py(url, 'ReloadConfig')).toEqual({ ok: { changed: true, collections: ['default', 'news'], pipelines: [] } });
    expect(alerts).toEqual([{ method: 'ConfigurationChanged', params: ['collection', ['default', 'news']] }]);
    expect(await py(url, 'GetCollections')).toEqual({ ok: [{ name: 'default', pipeline: 'default' }, { name: 'news', pipeline: 'html' }] });
    cfg.signal('SIGHUP'); // unchanged: no alert
    await waitFor(() => cfg.logs.filter((l) => l['msg'] === 'configuration reloaded').length === 2);
    expect(alerts).toHaveLength(1);
  });

  it('pipelines.json: checked with collections.json before it is taken; added / modified / removed pipelines are alerted by name', async () => {
    const port = (alertServer.address() as AddressInfo).port;
    await py(url, 'RegisterModule', { port, type: 'ProcessorServer', version: '1', name: 'ProcessorServer', alerts: ['collection', 'pipeline_added', 'pipeline_modified', 'pipeline_removed', 'pipelines'] });
    alerts.length = 0;
    const pipelinesFile = join(dir, 'DocumentProcessor', 'pipelines.json');
    const writePipelines = (p: unknown) => writeFileSync(pipelinesFile, typeof p === 'string' ? p : JSON.stringify(p));
    // collections.json names "default" and "html": a pipelines file without "html" is refused, and so is a bad shape
    writePipelines({ pipelines: { default: [{ type: 'utf8' }] } });
    expect((await py(url, 'ReloadConfig')).fault).toEqual([2, expect.stringMatching(/collection "news" names pipeline "html", which DocumentProcessor\/pipelines.json does not define.*previous configuration stays/)]);
    writePipelines({ pipelines: { default: [{ kind: 'utf8' }], html: [] } });
    expect((await py(url, 'ReloadConfig')).fault).toEqual([2, expect.stringMatching(/pipelines.default.0.type/)]);
    writePipelines('{ not json');
    expect((await py(url, 'ReloadConfig')).fault).toEqual([2, expect.stringMatching(/is not JSON/)]);
    expect(alerts).toEqual([]);
    const v1 = { pipelines: { default: [{ type: 'utf8' }], html: [{ type: 'html' }], old: [] }, default_pipeline: 'default' };
    writePipelines(v1);
    expect(await py(url, 'ReloadConfig')).toEqual({ ok: { changed: true, collections: ['default', 'news'], pipelines: ['default', 'html', 'old'] } });
    expect(alerts.map((a) => a.params)).toEqual([
      ['pipeline_added', ['default', 'html', 'old']],
      ['pipelines', ['default', 'html', 'old']], // the default pipeline was none before
    ]);
    alerts.length = 0;
    writePipelines({ ...v1, pipelines: { default: [{ type: 'utf8' }], html: [{ type: 'html' }, { type: 'normalize' }], fresh: [] } });
    expect((await py(url, 'ReloadConfig')).ok).toMatchObject({ changed: true });
    expect(alerts.map((a) => a.params)).toEqual([
      ['pipeline_added', ['fresh']],
      ['pipeline_modified', ['html']],
      ['pipeline_removed', ['old']],
    ]);
    expect((await py(url, 'LoadConfigFile', 'DocumentProcessor', 'pipelines.json')).ok).toMatch(/"fresh"/);
  });

  it('a module whose port refuses the alert (its process is gone) is unregistered; the others stay', async () => {
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const gonePort = (gone.address() as AddressInfo).port;
    await new Promise((r) => gone.close(r));
    await py(url, 'RegisterModule', { port: gonePort, type: 'ProcessorServer', version: '1', name: 'ProcessorServer', alerts: ['collection'] });
    expect((await py(url, 'GetActiveModuleList', 'ProcessorServer')).ok).toHaveLength(2);
    writeCollections({ collections: [{ name: 'default', pipeline: 'default' }, { name: 'news', pipeline: 'html' }, { name: 'more', pipeline: 'html' }] });
    expect((await py(url, 'ReloadConfig')).ok).toMatchObject({ changed: true });
    const left = (await py(url, 'GetActiveModuleList', 'ProcessorServer')).ok as { port: number }[];
    expect(left.map((m) => m.port)).toEqual([(alertServer.address() as AddressInfo).port]);
  });

  it('a restarted config server takes over its dead binding', async () => {
    await cfg.kill();
    await cfg.restart();
    url = String(cfg.logs.findLast((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    expect(await (await configProxy()).get_active_module_list('NodeControl')).toEqual([]);
    expect(cfg.logs.some((l) => l['msg'] === 'taking over the binding of a config server that is gone')).toBe(true);
  });
  it('add_collection (middleware) writes collections.json, reloads and alerts; a collection held already is left as it is', async () => {
    const proxy = await configProxy();
    const port = (alertServer.address() as AddressInfo).port;
    await py(url, 'RegisterModule', { port, type: 'ProcessorServer', version: '1', name: 'ProcessorServer', alerts: ['collection'] });
    const before = alerts.length;
    const r = await proxy.add_collection('crawled', '');
    expect(r.added).toBe(true);
    expect(r.collections.map((c) => c.name)).toContain('crawled');
    expect(JSON.parse(readFileSync(join(dir, 'collections.json'), 'utf8')).collections).toContainEqual({ name: 'crawled', pipeline: 'default' });
    expect(alerts.slice(before)).toContainEqual({ method: 'ConfigurationChanged', params: ['collection', expect.arrayContaining(['crawled'])] });
    expect((await proxy.get_collections()).map((c) => c.name)).toContain('crawled');
    expect((await proxy.add_collection('crawled', 'other')).added).toBe(false);
  });
});

describe('config-server process with an admin secret', () => {
  const SECRET = 'config-server-test-secret-0123456789';
  let ns: NatsServer;
  let cfg: ChildService;
  let url: string;
  let dir: string;
  let alertServer: Server;
  const authorizations: (string | undefined)[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'config-server-secret-'));
    writeFileSync(join(dir, 'collections.json'), JSON.stringify({ collections: [{ name: 'default', pipeline: 'default' }] }));
    writeFileSync(join(dir, 'admin-secret'), SECRET + '\n');
    ns = await NatsServer.start();
    const mw = await Middleware.connect({ name: 'test-ns', servers: ns.url });
    await serveNameServer(mw, {});
    cfg = await ChildService.start({
      entry: 'apps/config-server/src/main.ts',
      args: ['--nats', ns.url, '--port', '0', '--config-dir', dir],
      env: { ESP_ADMIN_SECRET_FILE: join(dir, 'admin-secret') },
    });
    url = String(cfg.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    alertServer = createServer((req, res) => {
      authorizations.push(req.headers.authorization);
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'text/xml' }).end(encodeXmlRpcResponse(1)));
    });
    await new Promise<void>((r) => alertServer.listen(0, '127.0.0.1', r));
    return async () => {
      await cfg?.kill();
      alertServer?.close();
      await mw.close();
      await ns?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    };
  });

  const withSecret = () => url.replace('http://', `http://esp:${SECRET}@`);
  /** Python xmlrpc.client; an HTTP error comes back as { http: status }. */
  async function pyCall(u: string, method: string, ...params: unknown[]): Promise<{ ok?: unknown; http?: number }> {
    const script = `
import json, sys, xmlrpc.client
try:
    print(json.dumps({"ok": getattr(xmlrpc.client.ServerProxy(sys.argv[1]), sys.argv[2])(*json.loads(sys.argv[3]))}))
except xmlrpc.client.ProtocolError as e:
    print(json.dumps({"http": e.errcode}))
`;
    const { stdout } = await run('python3', ['-c', script, u, method, JSON.stringify(params)]);
    return JSON.parse(stdout) as { ok?: unknown; http?: number };
  }

  it('listens on 127.0.0.1 by default', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/RPC2$/);
    expect(cfg.logs.find((l) => l['msg'] === 'ready')?.['listen']).toBe('127.0.0.1');
  });

  it('RegisterModule and ReloadConfig need the secret (HTTP 401 without); so do reads', async () => {
    const m = { port: (alertServer.address() as AddressInfo).port, type: 'ProcessorServer', version: '1', name: 'ProcessorServer', alerts: ['collection'] };
    expect(await pyCall(url, 'RegisterModule', m)).toEqual({ http: 401 });
    expect(await pyCall(url, 'ReloadConfig')).toEqual({ http: 401 });
    expect(await pyCall(url, 'GetActiveModuleList', 'ProcessorServer')).toEqual({ http: 401 });
    expect(await pyCall(withSecret(), 'GetActiveModuleList', 'ProcessorServer')).toEqual({ ok: [] });
    expect(await pyCall(withSecret(), 'RegisterModule', m)).toEqual({ ok: 1 });
    expect(cfg.logs.some((l) => l['msg'] === 'XML-RPC call refused: no admin secret' && l['method'] === 'RegisterModule')).toBe(true);
  });

  it('its alerts carry the secret to the modules', async () => {
    writeFileSync(join(dir, 'collections.json'), JSON.stringify({ collections: [{ name: 'default', pipeline: 'default' }, { name: 'news', pipeline: 'default' }] }));
    expect(await pyCall(withSecret(), 'ReloadConfig')).toMatchObject({ ok: { changed: true } });
    await waitFor(() => authorizations.length > 0, { timeoutMs: 5000, what: 'an alert' });
    expect(authorizations[0]).toBe(`Basic ${Buffer.from(`esp:${SECRET}`).toString('base64')}`);
  });
});

