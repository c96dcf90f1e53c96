import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { decodeXmlRpcRequest, encodeXmlRpcFault, encodeXmlRpcRequest, encodeXmlRpcResponse, type XmlRpcInput } from '@esp/codecs';
import { createLogger } from '@esp/logging';
import { Middleware, serveNameServer } from '@esp/middleware';
import { ChildService, NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restartThroughNodeController } from './node-controller-restart';

/** A fake node controller: GetProcessList answers `rows`, RestartProcess calls are recorded. */
async function fakeNodeController(rows: { name: string; pid: number }[]) {
  const restarts: string[][] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { methodName, params } = decodeXmlRpcRequest(Buffer.concat(chunks));
      let body: string;
      if (methodName === 'GetProcessList') body = encodeXmlRpcResponse(rows.map((r) => ({ ...r, ppid: 1, state: 'running', restarts: 0, uptime: 5 })) as XmlRpcInput);
      else if (methodName === 'RestartProcess') {
        restarts.push(params[0] as string[]);
        body = encodeXmlRpcResponse(1);
      } else body = encodeXmlRpcFault(-32601, 'unknown method');
      res.writeHead(200, { 'Content-Type': 'text/xml' }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, restarts, port: (server.address() as AddressInfo).port };
}

describe('restartThroughNodeController (MS-FSDPD 3.5.5)', () => {
  const log = createLogger('test');
  let ns: NatsServer;
  let mw: Middleware;
  let cfg: ChildService | undefined;
  let cfgUrl = '';
  const servers: Server[] = [];
  let worker: ChildProcess;

  const register = (port: number) =>
    fetch(cfgUrl, { method: 'POST', body: encodeXmlRpcRequest('RegisterModule', [{ port, type: 'NodeControl', version: '1.0', name: 'NodeControl', alerts: [] }]) });

  beforeAll(async () => {
    ns = await NatsServer.start();
    mw = await Middleware.connect({ name: 'test-distributor', servers: ns.url, timeoutMs: 5000 });
    await serveNameServer(mw, {});
    worker = spawn('sleep', ['60'], { stdio: 'ignore' });
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    for (const s of servers) s.close();
    await cfg?.kill();
    await mw?.close();
    await ns?.cleanup();
  });

  it('no config server bound: nothing restarted, the reason says so', async () => {
    const r = await restartThroughNodeController(mw, { name: 'procserver_1', pid: 1234, host: 'h' }, { log });
    expect(r).toMatchObject({ restarted: false, reason: expect.stringMatching(/no config server at fds\/configservice/) });
  });

  it('a config server without NodeControl modules: nothing restarted', async () => {
    cfg = await ChildService.start({ entry: 'apps/config-server/src/main.ts', args: ['--nats', ns.url, '--port', '0', '--listen', '127.0.0.1'] });
    cfgUrl = String(cfg.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    const r = await restartThroughNodeController(mw, { name: 'procserver_1', pid: 1234, host: 'h' }, { log });
    expect(r).toMatchObject({ restarted: false, reason: expect.stringMatching(/knows no node controller/) });
  });

  it('finds the ProcessInfo whose pid is the processor pid and calls RestartProcess([its name]) on that node controller only', async () => {
    const other = await fakeNodeController([{ name: 'indexer', pid: 5555 }]);
    const mine = await fakeNodeController([
      { name: 'name-server', pid: 4321 },
      { name: 'item-processor-1', pid: 1234 },
    ]);
    servers.push(other.server, mine.server);
    await register(other.port);
    await register(mine.port);
    const r = await restartThroughNodeController(mw, { name: 'procserver_1', pid: 1234, host: 'h' }, { log });
    expect(r).toEqual({ restarted: true, process: 'item-processor-1', node_controller: `http://127.0.0.1:${mine.port}/RPC2` });
    expect(mine.restarts).toEqual([['item-processor-1']]);
    expect(other.restarts).toEqual([]);
  });

  it('or the ProcessInfo whose pid is the parent of the processor pid (a local processor, parent from /proc)', async () => {
    const wrapper = await fakeNodeController([{ name: 'wrapped-processor', pid: process.pid }]);
    servers.push(wrapper.server);
    await register(wrapper.port);
    const r = await restartThroughNodeController(mw, { name: 'procserver_2', pid: worker.pid as number, host: hostname() }, { log });
    expect(r).toMatchObject({ restarted: true, process: 'wrapped-processor' });
    expect(wrapper.restarts).toEqual([['wrapped-processor']]);
  });

  it('no node controller runs that pid: nothing restarted, the reason names the pid', async () => {
    const r = await restartThroughNodeController(mw, { name: 'procserver_3', pid: 999_999, host: 'h' }, { log });
    expect(r).toMatchObject({ restarted: false, reason: 'no node controller runs pid 999999' });
  });
});
