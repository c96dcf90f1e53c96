import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A Python node scheduler (socket + marshal v0) joins a real multinode scheduler through the gateway, all three as
// separate processes on a real nats-server.
const PYTHON = '/usr/bin/python3';
const PEER = fileURLToPath(new URL('./peers/node_scheduler.py', import.meta.url));
const CLUSTER = 'pyns';

let ns: NatsServer;
let dir: string;
let mns: ChildService;
let gw: ChildService;
let py: ChildProcess | undefined;

beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  dir = mkdtempSync(join(tmpdir(), 'pyns-'));
  const config = join(dir, 'crawl.xml');
  writeFileSync(
    config,
    `<CrawlerConfig><DomainSpecification name="web">
       <attrib name="start_uris" type="list-string"><member>http://127.0.0.1:18080/</member><member>http://127.0.0.1:18081/a.html</member></attrib>
       <attrib name="delay" type="real">0.1</attrib>
     </DomainSpecification></CrawlerConfig>`,
  );
  mns = await ChildService.start({
    entry: 'apps/multinode-scheduler/src/main.ts',
    args: ['--nats', ns.url, '--cluster', CLUSTER, '--config', config, '--keepalive-ms', '300'],
  });
  gw = await ChildService.start({ entry: 'apps/fscmt-gateway/src/main.ts', args: ['--nats', ns.url, '--cluster', CLUSTER, '--listen', '127.0.0.1:0=mns/main'] });
});
afterAll(async () => {
  if (py && py.exitCode === null) py.kill('SIGKILL');
  await gw?.stop();
  await mns?.stop();
  await ns?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('a Python node scheduler through the fscmt-gateway', () => {
  it('sends CMD_UM_INIT, receives CMD_ADM_CONF_ADD, CMD_UM_ASK_ROUTE, routes and CMD_UM_URI entries, and answers keep-alives', async () => {
    const port = (gw.logs.find((l) => l['msg'] === 'ready') as { listeners: Array<{ port: number }> }).listeners[0]!.port;
    const lines: Array<Record<string, unknown>> = [];
    py = spawn(PYTHON, [PEER, '127.0.0.1', String(port), 'py-node'], { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: py.stdout! }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    const recv = (cmd: number) => lines.filter((l) => l['event'] === 'recv' && l['cmd'] === cmd);

    await waitFor(() => recv(1).length >= 1 && recv(25).length >= 2 && recv(10).length >= 3, { timeoutMs: 20_000, what: `frames in ${JSON.stringify(lines.map((l) => l['cmd']))}` });
    expect(recv(1)).toHaveLength(1); // CMD_ADM_CONF_ADD, once
    expect(recv(7).length).toBeGreaterThanOrEqual(2); // CMD_UM_ADD_ROUTE for both sites
    expect(recv(25).length).toBeGreaterThanOrEqual(2); // CMD_UM_URI for both start URIs
    // the multinode scheduler registered the node, and heard an answer to every keep-alive it sent
    expect(mns.logs.find((l) => l['msg'] === 'node scheduler registered' && l['node'] === 'py-node')).toBeTruthy();
    const sent = (cmd: number) => lines.filter((l) => l['event'] === 'sent' && l['cmd'] === cmd);
    await waitFor(() => sent(11).length >= 3);
    expect(recv(8)).toHaveLength(1); // CMD_UM_ASK_ROUTE, answered with CMD_UM_LAST_ROUTE (routing waited for it)
    expect(sent(9)).toHaveLength(1);
    expect(mns.logs.filter((l) => String(l['msg']).startsWith('no CMD_UM_KEEPALIVE_ACK'))).toEqual([]);
  }, 40_000);
});
