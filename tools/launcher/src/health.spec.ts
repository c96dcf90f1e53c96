import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeXmlRpcFault, encodeXmlRpcResponse } from '@esp/codecs';
import { crawlAddress } from '@esp/crawl-bus';
import { defineInterface, method } from '@esp/interfaces';
import { Middleware, serveNameServer } from '@esp/middleware';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allProcessesRunning, boundAndAnswering, crawlPeerListening, nameServerAnswers, ProbeFailed, xmlRpcAnswers } from './health-probes';

const ROOT = new URL('../../../', import.meta.url).pathname;
const probeInterface = defineInterface({ type: 'test::probe', version: '1.0', methods: { hello: method({ params: [], returns: z.string() }) } });

/** An XML-RPC server whose every answer is `body`. */
async function xmlRpcServer(body: () => string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'text/xml' }).end(body()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/RPC2`, server };
}

describe('health probes on a real nats-server', () => {
  let ns: NatsServer;
  let nsHost: Middleware;
  let mw: Middleware;
  beforeAll(async () => {
    ns = await NatsServer.start();
    mw = await Middleware.connect({ name: 'health-spec', servers: ns.url });
  });
  afterAll(async () => {
    await mw?.close();
    await nsHost?.close();
    await ns?.cleanup();
  });

  it('the name server: fails while none serves, passes once one does', async () => {
    await expect(nameServerAnswers(mw)).rejects.toBeInstanceOf(ProbeFailed);
    nsHost = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nsHost);
    await nameServerAnswers(mw);
  });

  it('a bound name: fails when nothing is bound, passes while its object answers, fails once the object is gone', async () => {
    await expect(boundAndAnswering(mw, 'probe/a')).rejects.toThrow(/nothing is bound at probe\/a/);
    const obj = await mw.activate(probeInterface, { hello: () => 'hi' }, { object_id: 'probe_a', port: 17201 });
    await mw.names.bind('probe/a', obj.aor);
    await boundAndAnswering(mw, 'probe/a');
    // a name that only starts like it is another name
    await expect(boundAndAnswering(mw, 'probe')).rejects.toThrow(/nothing is bound at probe$/);
    await mw.deactivate(obj);
    await expect(boundAndAnswering(mw, 'probe/a')).rejects.toThrow(/probe_a \(test::probe\) bound at probe\/a does not answer/);
  });

  it('a crawl peer: fails when nobody listens on its address, passes while something does', async () => {
    await expect(crawlPeerListening(mw, 'c1', 'dup/dup1')).rejects.toThrow(/nobody listens at/);
    const stop = await mw.bus.subscribe(crawlAddress({ cluster: 'c1', role: 'dup', id: 'dup1' }), () => undefined);
    await crawlPeerListening(mw, 'c1', 'dup/dup1');
    await stop();
    await expect(crawlPeerListening(mw, 'c1', 'dup/dup1')).rejects.toBeInstanceOf(ProbeFailed);
    await expect(crawlPeerListening(mw, 'c1', 'x/dup1')).rejects.toThrow(/not a crawl peer/);
  });

  it('the CLI exits 1 with one line when a check fails and 0 when all pass', async () => {
    // not spawnSync: the name server runs in this process and must go on answering
    const run = (...args: string[]) =>
      new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/health.ts', '--nats', ns.url, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        p.on('exit', (status) => resolve({ status, stderr }));
      });
    const ok = await run();
    expect(ok.status, ok.stderr).toBe(0);
    const bad = await run('--crawl', 'mns/main');
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^health: nobody listens at /)]);
  }, 60_000);
});

describe('health probes over XML-RPC', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));
  const serve = async (body: () => string) => {
    const s = await xmlRpcServer(body);
    servers.push(s.server);
    return s.url;
  };

  it('ping: passes on an answer, fails on a fault and on a closed port', async () => {
    await xmlRpcAnswers(await serve(() => encodeXmlRpcResponse(1)));
    await expect(xmlRpcAnswers(await serve(() => encodeXmlRpcFault(-32601, 'no such method')))).rejects.toThrow(/fault -32601/);
    const closed = await xmlRpcServer(() => '');
    await new Promise((r) => closed.server.close(r));
    await expect(xmlRpcAnswers(closed.url)).rejects.toThrow(/does not answer/);
  });

  it('the node controller: passes when every process runs, fails naming those that do not, and when it runs none', async () => {
    let rows = [
      { name: 'item-processor-1', pid: 10, ppid: 9, state: 'running', restarts: 0, uptime: 5 },
      { name: 'item-processor-2', pid: 12, ppid: 11, state: 'running', restarts: 0, uptime: 5 },
    ];
    const url = await serve(() => encodeXmlRpcResponse(rows));
    await allProcessesRunning(url);
    rows = [rows[0]!, { ...rows[1]!, state: 'restarting' }];
    await expect(allProcessesRunning(url)).rejects.toThrow(/not running: item-processor-2 restarting/);
    rows = [];
    await expect(allProcessesRunning(url)).rejects.toThrow(/runs no process/);
  });
});
