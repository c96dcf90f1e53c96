import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedingClient } from '@esp/content-client';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeCollections, withCrawlNodes } from './crawl-roles';
import { getProcessList } from './node-control';
import { LastLines, notReady } from './not-ready';
import { parseReadyLine } from './supervisor';

const ROOT = new URL('../../../', import.meta.url).pathname;

interface StackJson {
  nats: string;
  processes: { name: string; pid: number; xmlrpc_url?: string; state?: string; node_controller?: string }[];
}

const health = (natsUrl: string, args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'tools/launcher/src/health.ts', '--nats', natsUrl, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
const ping = (natsUrl: string) => spawnSync(process.execPath, ['--import', 'tsx', 'tools/launcher/src/ping.ts', '--nats', natsUrl], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('crawl roles of the profile', () => {
  const profile = { processes: [{ name: 'indexer' }, { name: 'duplicate-server' }, { name: 'multinode-scheduler' }, { name: 'node-scheduler', instances: 1 }] };
  it('--crawl-nodes sets the node schedulers, 0 drops every crawl role', () => {
    expect((withCrawlNodes(profile, 3) as typeof profile).processes.find((p) => p.name === 'node-scheduler')?.instances).toBe(3);
    expect((withCrawlNodes(profile, 0) as typeof profile).processes.map((p) => p.name)).toEqual(['indexer']);
  });
  it('keeps the collections a crawl added beside those asked for', () => {
    expect(mergeCollections([{ name: 'web', pipeline: 'default' }, { name: 'default', pipeline: 'news' }], ['default'])).toEqual([
      { name: 'default', pipeline: 'news' },
      { name: 'web', pipeline: 'default' },
    ]);
  });
});

describe('readiness lines', () => {
  it('parses a readiness line, its own or a process of a node controller; anything else is none', () => {
    expect(parseReadyLine('{"ready":true,"pid":7,"xmlrpc_url":"http://h:1/RPC2"}')).toEqual({ ready: true, pid: 7, process: undefined, status_url: undefined, xmlrpc_url: 'http://h:1/RPC2' });
    expect(parseReadyLine('{"ready":true,"process":"item-processor-2","status_url":"http://h:2/RPC2"}')).toMatchObject({ process: 'item-processor-2', status_url: 'http://h:2/RPC2' });
    expect(parseReadyLine('{"msg":"ready"}')).toBeUndefined();
    expect(parseReadyLine('not json')).toBeUndefined();
  });
  it('a start-up timeout names the processes not ready, with their state and their last lines', () => {
    const lines = new LastLines();
    lines.add('[indexer] {"level":60,"msg":"cannot start","err":"default.sqlite is locked"}');
    lines.add('not a process line');
    const rows = [
      { name: 'indexer', pid: 0, ppid: 0, state: 'restarting', restarts: 3, uptime: 0 },
      { name: 'item-processor-1', pid: 5, ppid: 4, state: 'running', restarts: 0, uptime: 9 },
      { name: 'item-processor-2', pid: 6, ppid: 4, state: 'starting', restarts: 0, uptime: 9 },
    ];
    const text = notReady(rows, lines, 120_000);
    expect(text).toMatch(/^not ready within 120 s: indexer, item-processor-2 \(1 of 3 ready\)/);
    expect(text).toContain('indexer: restarting, restarted 3 times; its last lines:\n    {"level":60,"msg":"cannot start","err":"default.sqlite is locked"}');
    expect(text).toContain('item-processor-2: starting; it wrote nothing');
  });
});

describe('npm start (launcher)', () => {
  let ns: NatsServer;
  beforeAll(async () => {
    ns = await NatsServer.start();
  });
  afterAll(async () => {
    await ns?.cleanup();
  });

  it('starts config server and node controller with the default profile on NATS_URL, writes stack.json, feeds and finds a document, and stops everything in order on Ctrl-C (SIGINT to its process group)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-home-'));
    const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: ns.url, VITEST: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
      // its own process group, as a shell gives a foreground job: Ctrl-C goes to the whole group
      detached: true,
    });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let pids: number[] = [];
    try {
      await waitFor(() => stderr.includes('Ctrl-C stops everything') || proc.exitCode !== null, { timeoutMs: 90_000, what: 'launcher ready' });
      expect(proc.exitCode, stderr).toBeNull();
      const stack = JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as StackJson;
      expect(stack.nats).toBe(ns.url);
      expect(stack.processes.map((p) => p.name)).toEqual(['name-server', 'config-server', 'node-controller', 'indexer', 'content-distributor-1', 'content-distributor-2', 'item-processor-1', 'item-processor-2', 'duplicate-server-replica', 'duplicate-server', 'multinode-scheduler', 'node-scheduler']);
      pids = stack.processes.map((p) => p.pid);
      for (const p of stack.processes) expect(p.pid, p.name).toBeGreaterThan(0);
      const byName = Object.fromEntries(stack.processes.map((p) => [p.name, p]));
      expect(byName['config-server']?.xmlrpc_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/RPC2$/);
      expect(byName['item-processor-1']?.xmlrpc_url).toMatch(/^http:\/\/.*\/RPC2$/);
      expect(byName['item-processor-2']?.node_controller).toBe('node-controller');
      // what stack.json says is what the node controller says
      // reads need the admin secret too
      await expect(getProcessList(byName['node-controller']?.xmlrpc_url ?? '')).rejects.toThrow(/HTTP 401/);
      const rows = await getProcessList(byName['node-controller']?.xmlrpc_url ?? '', 5000, readFileSync(join(home, 'admin-secret'), 'utf8').trim());
      expect(rows.map((r) => [r.name, r.pid, r.state])).toEqual(stack.processes.slice(3).map((p) => [p.name, p.pid, 'running']));
      // the printed table names every process
      for (const p of stack.processes) expect(stderr).toContain(`${p.name.padEnd(22)} pid ${p.pid}`);

      // the health check of docker-compose.yml
      expect(ping(ns.url).status).toBe(0);
      // the crawl roles listen on the crawl cluster, their configuration in <home>/config/crawl
      const crawl = health(ns.url, ['--crawl', 'mns/main', '--crawl', 'ns/node1', '--crawl', 'dup/dup1', '--crawl', 'dup/dup1r']);
      expect(crawl.status, crawl.stderr).toBe(0);
      expect(existsSync(join(home, 'config', 'crawl'))).toBe(true);

      const mw = await Middleware.connect({ name: 't', servers: ns.url });
      await mw.names.ping();
      const client = await FeedingClient.open({ mw, collection: 'default', log: createLogger('t', {}, { level: 'warn' }) });
      await client.feed({ id: 'hello', attributes: { title: 'Hello launcher', body: 'the stack works', content_type: 'text/plain' } });
      const { stats } = await client.drain(30_000);
      expect(stats.completed).toBe(1);
      const { proxy: search } = await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
      expect((await search.search('default', 'launcher', 5, 0)).hits.map((h) => h.id)).toEqual(['hello']);
      await client.close();
      await mw.close();

      const exited = new Promise<number | null>((r) => proc.once('exit', r));
      // Ctrl-C in a terminal: SIGINT to the launcher's process group
      const group = proc.pid;
      if (!group) throw new Error('the launcher has no pid');
      process.kill(-group, 'SIGINT');
      expect(await exited).toBe(0);
      await waitFor(() => pids.every((pid) => !alive(pid)), { timeoutMs: 10_000, what: 'every process of the stack gone' });
      // in reverse order: the node controller's processes, then the config server, then the name server
      const order = ['node-controller stopped', 'config-server stopped', 'name-server stopped'].map((s) => stderr.indexOf(s));
      expect(order.every((i) => i >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      const down = ping(ns.url);
      expect(down.status).toBe(1);
      expect(down.stderr).toMatch(/^ping: the name server does not answer on /);
    } finally {
      proc.kill('SIGKILL');
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(home, { recursive: true, force: true });
    }
  }, 150_000);
});
