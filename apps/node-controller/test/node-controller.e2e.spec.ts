import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ChildService, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ENTRY = 'apps/node-controller/src/main.ts';
const SLEEPER = 'apps/node-controller/test/fixtures/sleeper.ts';

interface Info {
  name: string;
  pid: number;
  ppid: number;
  state: string;
  restarts: number;
  uptime: number;
}

/** Calls the node controller with Python's xmlrpc.client; prints {"ok": value} or {"fault": [code, string]}. */
async function py(url: string, method: string, ...params: unknown[]): Promise<{ ok?: unknown; fault?: [number, string] }> {
  const script = `
import json, sys, xmlrpc.client
s = xmlrpc.client.ServerProxy(sys.argv[1])
try:
    print(json.dumps({"ok": getattr(s, sys.argv[2])(*json.loads(sys.argv[3]))}))
except xmlrpc.client.Fault as f:
    print(json.dumps({"fault": [f.faultCode, f.faultString]}))
`;
  const { stdout } = await run('python3', ['-c', script, url, method, JSON.stringify(params)]);
  return JSON.parse(stdout) as { ok?: unknown; fault?: [number, string] };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

describe('node-controller process on a node profile', () => {
  let dir: string;
  let nc: ChildService;
  let url: string;
  const list = async () => (await py(url, 'GetProcessList')).ok as Info[];
  const row = async (name: string) => (await list()).find((p) => p.name === name) as Info;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'node-controller-'));
    const profile = {
      node: 'test-node',
      processes: [
        { name: 'worker', entry: SLEEPER, instances: 2, args: ['{name}'] },
        { name: 'hung', entry: SLEEPER, args: ['hung'], env: { SLEEPER_IGNORE_TERM: '1' } },
      ],
    };
    writeFileSync(join(dir, 'node.json'), JSON.stringify(profile));
    nc = await ChildService.start({
      entry: ENTRY,
      args: ['--profile', join(dir, 'node.json'), '--port', '0', '--listen', '127.0.0.1', '--restart-delay-ms', '100', '--stop-timeout-ms', '1000'],
    });
    url = String(nc.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
  });
  afterAll(async () => {
    await nc?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts every instance of the profile; GetProcessList from Python gives ProcessInfo structs whose pid is the app and ppid its parent', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/RPC2$/);
    await waitFor(async () => (await list()).every((p) => p.state === 'running'));
    const rows = await list();
    expect(rows.map((p) => p.name)).toEqual(['worker-1', 'worker-2', 'hung']);
    for (const p of rows) {
      expect(p).toMatchObject({ state: 'running', restarts: 0 });
      expect(alive(p.pid)).toBe(true);
      expect(parentOf(p.pid)).toBe(p.ppid);
      expect(parentOf(p.ppid)).toBe(nc.pid);
    }
  });

  it('a SIGKILLed process is restarted with a new pid and restarts=1', async () => {
    const before = await row('worker-1');
    process.kill(before.pid, 'SIGKILL');
    await waitFor(async () => {
      const r = await row('worker-1');
      return r.state === 'running' && r.pid !== before.pid;
    });
    const after = await row('worker-1');
    expect(after.restarts).toBe(1);
    expect(alive(before.pid)).toBe(false);
    expect(alive(after.pid)).toBe(true);
  });

  it('RestartProcess from Python restarts the named processes; a hung one is SIGKILLed after the stop timeout', async () => {
    const w2 = await row('worker-2');
    const hung = await row('hung');
    expect(await py(url, 'RestartProcess', ['worker-2', 'hung'])).toEqual({ ok: 1 });
    const rows = await list();
    const nw2 = rows.find((p) => p.name === 'worker-2') as Info;
    const nhung = rows.find((p) => p.name === 'hung') as Info;
    expect(nw2.pid).not.toBe(w2.pid);
    expect(nhung.pid).not.toBe(hung.pid);
    expect(nw2.restarts).toBe(1);
    expect(nhung.restarts).toBe(1);
    expect(alive(w2.pid) || alive(hung.pid)).toBe(false);
    expect(nc.logs.some((l) => l['msg'] === 'did not stop in time; SIGKILL' && l['process'] === 'hung')).toBe(true);
  });

  it('StopProcess keeps a process stopped (no restart); StartProcess starts it again', async () => {
    const w1 = await row('worker-1');
    expect(await py(url, 'StopProcess', 'worker-1')).toEqual({ ok: 1 });
    expect(await row('worker-1')).toMatchObject({ state: 'stopped', pid: 0, ppid: 0, uptime: 0 });
    expect(alive(w1.pid)).toBe(false);
    expect(await py(url, 'StartProcess', 'worker-1')).toEqual({ ok: 1 });
    await waitFor(async () => (await row('worker-1')).state === 'running');
    expect((await row('worker-1')).pid).not.toBe(w1.pid);
  });

  it('malformed XML, unknown methods, wrong types and unknown names are faults; the server keeps serving', async () => {
    const bad = await fetch(url, { method: 'POST', body: '<methodCall><methodName>GetProcessList</methodName' });
    expect(bad.status).toBe(200);
    expect(await bad.text()).toMatch(/<fault>[\s\S]*-32700[\s\S]*not valid XML-RPC/);
    expect((await py(url, 'Reboot')).fault).toEqual([-32601, expect.stringMatching(/unknown method "Reboot".*GetProcessList/)]);
    expect((await py(url, 'RestartProcess', 'worker-1')).fault).toEqual([-32602, expect.stringMatching(/parameter processes must be string\[\], got string/)]);
    expect((await py(url, 'RestartProcess', [1])).fault?.[0]).toBe(-32602);
    expect((await py(url, 'StartProcess', 5)).fault).toEqual([-32602, expect.stringMatching(/parameter name must be string, got int/)]);
    expect((await py(url, 'StopProcess')).fault).toEqual([-32602, expect.stringMatching(/takes 1 parameters, got 0/)]);
    expect((await py(url, 'RestartProcess', ['worker-1', 'nope'])).fault).toEqual([1, expect.stringMatching(/no process named "nope"/)]);
    const big = await fetch(url, { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect((await list()).map((p) => p.name)).toEqual(['worker-1', 'worker-2', 'hung']);
  });

  it('SIGTERM stops every process in reverse order, then the node controller exits 0', async () => {
    const pids = (await list()).map((p) => p.pid);
    expect(await nc.stop(15_000)).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    const order = nc.logs.filter((l) => l['msg'] === 'process stopped').slice(-3).map((l) => l['process']);
    expect(order).toEqual(['hung', 'worker-2', 'worker-1']);
  });
});

describe('node-controller process with an admin secret', () => {
  const SECRET = 'node-controller-test-secret-0123456789';
  let dir: string;
  let nc: ChildService;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'node-controller-secret-'));
    writeFileSync(join(dir, 'node.json'), JSON.stringify({ node: 'test-node', processes: [{ name: 'worker', entry: SLEEPER, args: ['{name}'] }] }));
    writeFileSync(join(dir, 'admin-secret'), SECRET);
    nc = await ChildService.start({ entry: ENTRY, args: ['--profile', join(dir, 'node.json'), '--port', '0'], env: { ESP_ADMIN_SECRET_FILE: join(dir, 'admin-secret') } });
    url = String(nc.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
  });
  afterAll(async () => {
    await nc?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('StopProcess without the secret is refused (HTTP 401) and the process keeps running; with it, it stops', async () => {
    const script = `
import json, sys, xmlrpc.client
try:
    print(json.dumps({"ok": xmlrpc.client.ServerProxy(sys.argv[1]).StopProcess("worker")}))
except xmlrpc.client.ProtocolError as e:
    print(json.dumps({"http": e.errcode}))
`;
    const call = async (u: string) => JSON.parse((await run('python3', ['-c', script, u])).stdout) as { ok?: unknown; http?: number };
    // reads need the secret too
    const authed = url.replace('http://', `http://esp:${SECRET}@`);
    await waitFor(async () => ((await py(authed, 'GetProcessList')).ok as Info[]).every((p) => p.state === 'running'));
    expect(await call(url)).toEqual({ http: 401 });
    expect(((await py(authed, 'GetProcessList')).ok as Info[])[0]!.state).toBe('running');
    expect(await call(authed)).toEqual({ ok: 1 });
    await waitFor(async () => ((await py(authed, 'GetProcessList')).ok as Info[])[0]!.state === 'stopped');
  });
});
