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
const others: ChildProcess[] = [];

/** A Python node scheduler with id `id` on the gateway's port; its JSON lines land in `lines`. */
function pythonPeer(id: string): { proc: ChildProcess; lines: Array<Record<string, unknown>>; recv: (cmd: number) => Array<Record<string, unknown>> } {
  const port = (gw.logs.find((l) => l['msg'] === 'ready') as { listeners: Array<{ port: number }> }).listeners[0]!.port;
  const lines: Array<Record<string, unknown>> = [];
  const proc = spawn(PYTHON, [PEER, '127.0.0.1', String(port), id], { stdio: ['ignore', 'pipe', 'inherit'] });
  createInterface({ input: proc.stdout! }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  return { proc, lines, recv: (cmd) => lines.filter((l) => l['event'] === 'recv' && l['cmd'] === cmd) };
}

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
  for (const p of [py, ...others]) if (p && p.exitCode === null) p.kill('SIGKILL');
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

  it('a second connection with the same node id is refused and closed; after the first disconnects, the id registers again and gets its sites back', async () => {
    const registered = () => mns.logs.filter((l) => l['msg'] === 'node scheduler registered' && l['node'] === 'py-node');
    expect(registered()).toHaveLength(1);

    // the node is still connected: a second py-node is refused, and the gateway closes its connection saying why
    const twin = pythonPeer('py-node');
    others.push(twin.proc);
    await waitFor(() => twin.lines.some((l) => l['event'] === 'closed'), { timeoutMs: 15_000, what: 'the refused connection closed' });
    expect(mns.logs.find((l) => l['msg'] === 'refused a node scheduler connection' && l['reason'] === 'node id py-node is already registered')).toBeTruthy();
    expect(gw.logs.find((l) => String(l['msg']).startsWith('disconnected: refused by ') && String(l['msg']).endsWith('node id py-node is already registered'))).toBeTruthy();
    expect(twin.recv(1)).toEqual([]); // it was never sent a configuration

    // the first one goes away: the gateway tells the scheduler, which drops the node and frees its id at once
    py!.kill('SIGKILL');
    await waitFor(() => mns.logs.some((l) => l['msg'] === 'node scheduler dropped: its sites go to the live nodes' && l['node'] === 'py-node'), {
      timeoutMs: 15_000,
      what: 'the node dropped after its connection closed',
    });
    const dropped = mns.logs.find((l) => l['msg'] === 'node scheduler dropped: its sites go to the live nodes')!;
    expect(dropped['reason']).toBe('peer closed the connection');
    expect(dropped['sites']).toBe(2);

    // it comes back with the same id on a new connection: taken back, and its two sites (requeued when it left) with it
    const back = pythonPeer('py-node');
    others.push(back.proc);
    await waitFor(() => back.recv(1).length >= 1 && back.recv(25).length >= 2, { timeoutMs: 20_000, what: `frames in ${JSON.stringify(back.lines.map((l) => l['cmd']))}` });
    expect(registered()).toHaveLength(2);
    const uris = back.recv(25).map((l) => Buffer.from(String(l['hex']), 'hex').toString('latin1'));
    expect(uris.some((u) => u.includes('http://127.0.0.1:18080/'))).toBe(true);
    expect(uris.some((u) => u.includes('http://127.0.0.1:18081/a.html'))).toBe(true);
    expect(back.lines.some((l) => l['event'] === 'closed')).toBe(false);
  }, 60_000);
});
