/**
 * A home across the starts and stops a user makes, on the secured stack as `npm start` runs it (its own
 * nats-server, no NATS_URL): a second start while one runs is refused at once and the first goes on; a launcher
 * killed with SIGKILL leaves a home the next start takes over; a crawled collection is searched after restarts and
 * its crawl keeps its counts; LOG_LEVEL=warn changes nothing about readiness.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalWebSites, waitFor } from '@esp/testing';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

function cleanEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ESP_HOME: home, VITEST: '', ...extra };
  for (const k of ['NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_NKEY', 'NATS_CREDS', 'NATS_CA', 'NATS_CERT', 'NATS_KEY']) delete env[k];
  return env;
}

const run = (entry: string, args: string[], env: NodeJS.ProcessEnv, timeout = 120_000) =>
  spawnSync(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout });

/** An async run (the crawl CLI waits while the stack works: a sync run would block nothing here, but keeps the test's timers honest). */
function runAsync(entry: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Stack {
  proc: ChildProcess;
  err: () => string;
  /** Ctrl-C (SIGINT to the process group); resolves with the exit code. */
  stop: () => Promise<number | null>;
}

const started: ChildProcess[] = [];

async function start(home: string, args: string[], extra: Record<string, string> = {}): Promise<Stack> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home, ...args], {
    cwd: ROOT,
    env: cleanEnv(home, extra),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  started.push(proc);
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-300_000)));
  await waitFor(() => err.includes('Ctrl-C stops everything') || proc.exitCode !== null, { timeoutMs: 150_000, what: 'the stack ready' }).catch((e: Error) => {
    throw new Error(`${e.message}; launcher: ${launcherLines(err)}`);
  });
  expect(proc.exitCode, launcherLines(err)).toBeNull();
  return {
    proc,
    err: () => err,
    stop: () => {
      const exited = new Promise<number | null>((r) => proc.once('exit', r));
      if (proc.exitCode === null) process.kill(-(proc.pid as number), 'SIGINT');
      return exited;
    },
  };
}

const launcherLines = (err: string) => err.split('\n').filter((l) => l.startsWith('[launcher]') || /"level":[56]0/.test(l)).slice(-40).join('\n');

afterEach(() => {
  for (const p of started.splice(0)) if (p.exitCode === null && p.signalCode === null) process.kill(-(p.pid as number), 'SIGKILL');
});

describe('a home across starts and stops (npm start, secured)', () => {
  it('a second start while one runs is refused at once and the first goes on; after kill -9 of the launcher a start (LOG_LEVEL=warn) takes the home over and works', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-home-lock-'));
    try {
      const first = await start(home, ['--crawl-nodes', '0']);
      const lock = JSON.parse(readFileSync(join(home, 'launcher.lock'), 'utf8')) as { pid: number; nats_pid: number };
      expect(lock.pid).toBe(first.proc.pid);
      expect(lock.nats_pid).toBeGreaterThan(0);

      const t0 = Date.now();
      const second = run('tools/launcher/src/main.ts', ['--home', home], cleanEnv(home));
      const refusedMs = Date.now() - t0;
      expect(second.status, second.stderr).toBe(3);
      expect(second.stderr).toContain(`[launcher] another launcher runs on ${home} (pid ${first.proc.pid}`);
      expect(second.stderr).toMatch(/\[home_in_use\]\n$/);
      // it started nothing: no NATS line, no second nats-server on the store
      expect(second.stderr).not.toMatch(/NATS at/);
      // at once: what it costs is loading the launcher's first module (seconds on a loaded CI machine)
      expect(refusedMs).toBeLessThan(20_000);
      expect(first.proc.exitCode).toBeNull();
      expect(run('tools/launcher/src/ping.ts', [], cleanEnv(home)).status).toBe(0);

      // kill -9 of the launcher alone: its guards take its processes and its nats-server down
      process.kill(first.proc.pid as number, 'SIGKILL');
      await waitFor(() => first.proc.exitCode !== null || first.proc.signalCode !== null, { timeoutMs: 10_000, what: 'the launcher gone' });

      const again = await start(home, ['--crawl-nodes', '0'], { LOG_LEVEL: 'warn' });
      expect(again.err()).toContain(`[launcher] took over the lock of launcher pid ${first.proc.pid}`);
      expect(again.err()).not.toMatch(/nothing is bound|start failed/);
      // under LOG_LEVEL=warn no process logs "ready", yet every one was seen ready, and the URLs are known
      expect(again.err()).not.toMatch(/"msg":"ready"/);
      const stack = JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { processes: { name: string; xmlrpc_url?: string; state?: string }[] };
      expect(stack.processes.find((p) => p.name === 'item-processor-1')?.xmlrpc_url).toMatch(/^http:\/\/.*\/RPC2$/);
      for (const p of stack.processes.filter((x) => x.state)) expect(p.state, p.name).toBe('running');

      const docs = join(home, 'docs');
      mkdirSync(docs);
      writeFileSync(join(docs, 'a.txt'), 'after a kill the home still finds the okapi');
      const feed = run('apps/feed/src/main.ts', ['--collection', 'default', docs], cleanEnv(home));
      expect(feed.status, feed.stderr).toBe(0);
      expect(feed.stdout).toMatch(/1 completed, 0 failed/);
      await waitFor(() => run('tools/search-cli/src/main.ts', ['okapi', '--collection', 'default'], cleanEnv(home)).stdout.includes('a.txt'), { timeoutMs: 30_000, what: 'the document found' });

      expect(await again.stop()).toBe(0);
      expect(existsSync(join(home, 'launcher.lock'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 420_000);

  it('start, stop, start, crawl a site into a new collection, stop, start: the crawled collection is searched and its crawl keeps its counts', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-home-restarts-'));
    const sites = await LocalWebSites.start({ hosts: 1, pagesPerHost: 8 });
    try {
      expect(await (await start(home, [])).stop()).toBe(0);

      const second = await start(home, []);
      const crawl = await runAsync('tools/crawl-cli/src/main.ts', ['--collection', 'web', '--delay', '0', '--json', ...sites.startUris], cleanEnv(home));
      expect(crawl.code, crawl.stderr).toBe(0);
      const summary = JSON.parse(crawl.stdout) as { done: boolean; fetched: number; fed: number };
      expect(summary.done).toBe(true);
      expect(summary.fed).toBeGreaterThan(0);
      expect(JSON.parse(readFileSync(join(home, 'config', 'collections.json'), 'utf8'))).toMatchObject({ collections: expect.arrayContaining([expect.objectContaining({ name: 'web' })]) });
      expect(await second.stop()).toBe(0);

      const third = await start(home, []);
      const [page, token] = [...sites.tokenOf].find(([u]) => sites.contentPages.has(u)) ?? [];
      let said = '';
      await waitFor(
        async () => {
          const s = await runAsync('tools/search-cli/src/main.ts', [String(token), '--collection', 'web', '--json'], cleanEnv(home));
          said = s.stdout + s.stderr;
          return s.code === 0 && (JSON.parse(s.stdout) as { hits: { id: string }[] }).hits.some((h) => h.id === page);
        },
        { timeoutMs: 30_000, what: `${page} found by "${token}" after the restart` },
      ).catch((err: Error) => {
        throw new Error(`${err.message}; the search said ${said}`);
      });
      const status = await runAsync('tools/crawl-cli/src/main.ts', ['status', '--collection', 'web', '--json'], cleanEnv(home));
      expect(status.code, status.stderr).toBe(0);
      const [after] = JSON.parse(status.stdout) as { fetched: number; fed: number }[];
      expect(after).toMatchObject({ fetched: summary.fetched, fed: summary.fed });
      expect(await third.stop()).toBe(0);
    } finally {
      await sites.stop();
      rmSync(home, { recursive: true, force: true });
    }
  }, 600_000);
});
