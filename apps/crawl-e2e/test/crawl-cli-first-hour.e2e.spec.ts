import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { LocalWebSites, NatsServer, reservePorts, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function collect(p: ChildProcess): Promise<Run> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    p.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    p.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, VITEST: '', ...extra };
  for (const k of ['NATS_URL', 'INIT_CWD', 'npm_lifecycle_event']) if (!(k in extra)) delete env[k];
  return env;
}

/** `npm run crawl -- ...` with the stack's home. */
const crawl = (args: string[], home: string) =>
  collect(spawn(process.execPath, ['--import', 'tsx', 'tools/crawl-cli/src/main.ts', ...args], { cwd: ROOT, env: cleanEnv({ ESP_HOME: home }), stdio: ['ignore', 'pipe', 'pipe'] }));

/** The real thing from another folder: `npm --prefix <clone> run -s <script> -- ...` typed in `cwd`. */
const npmRun = (script: string, args: string[], cwd: string) =>
  collect(spawn('npm', ['--prefix', ROOT, 'run', '-s', script, '--', ...args], { cwd, env: cleanEnv({}), stdio: ['ignore', 'pipe', 'pipe'] }));

describe('npm run crawl in a first hour: a dead site, --max-pages, delete; and the user directory of every command', () => {
  let ns: NatsServer;
  let home: string;
  let launcher: ChildProcess;
  let launcherErr = '';
  let dead: string;

  beforeAll(async () => {
    ns = await NatsServer.start();
    home = mkdtempSync(join(tmpdir(), 'esp-crawl-first-hour-'));
    // a port nothing listens on: connections are refused
    dead = `http://127.0.0.1:${(await reservePorts(1))[0]}/`;
    launcher = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home, '--crawl-nodes', '1'], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: ns.url, VITEST: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    launcher.stderr?.on('data', (d: Buffer) => (launcherErr = (launcherErr + d.toString()).slice(-200_000)));
    await waitFor(() => launcherErr.includes('Ctrl-C stops everything') || launcher.exitCode !== null, { timeoutMs: 150_000, what: 'the stack ready' });
    expect(launcher.exitCode, launcherErr.slice(-5000)).toBeNull();
  }, 180_000);

  afterAll(async () => {
    if (launcher?.pid && launcher.exitCode === null) {
      const exited = new Promise((r) => launcher.once('exit', r));
      process.kill(-launcher.pid, 'SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 60_000))]);
      if (launcher.exitCode === null) process.kill(-launcher.pid, 'SIGKILL');
    }
    await ns?.cleanup();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 90_000);

  it('a site that refuses connections: the command says why it is held back (robots.txt unreachable, the next try), gives up after --give-up-after with exit 4, and the crawl is suspended', async () => {
    const r = await crawl(['--collection', 'dead', '--give-up-after', '4', dead], home);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/held back: robots\.txt unreachable \(http:\/\/127\.0\.0\.1:\d+\/robots\.txt: .*ECONNREFUSED.*\), next try in \d+ s/);
    expect(r.stderr).toMatch(/gave up: nothing fetched for 4 s \(--give-up-after\)/);
    expect(r.stderr).toMatch(/npm run crawl -- delete --collection dead/);
    expect(r.stderr).toContain(`home ${home} ($ESP_HOME)`);
    const st = await crawl(['status', '--collection', 'dead', '--json'], home);
    expect(JSON.parse(st.stdout)[0]).toMatchObject({ collection: 'dead', state: 'suspended_by_user', done: false });
  }, 90_000);

  it('delete removes the crawl and its configuration file: status no longer knows it', async () => {
    const files = () => readdirSync(home, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('dead.xml'));
    expect(files()).toHaveLength(1);
    const r = await crawl(['delete', '--collection', 'dead'], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('delete dead: CMD_ADM_CONF_REMOVE sent to 1 node\n');
    expect(files()).toEqual([]);
    const st = await crawl(['status', '--collection', 'dead'], home);
    expect(st.code).toBe(1);
    expect(st.stderr).toMatch(/no crawl of collection "dead" \[unknown_collection\]/);
    expect((await crawl(['delete', '--collection', 'dead'], home)).stderr).toMatch(/\[unknown_collection\]/);
  }, 60_000);

  it('--no-robots on a site that refuses connections: the crawl ends with exit 4 and the fetch error shown', async () => {
    const r = await crawl(['--collection', 'dead2', '--no-robots', '--delay', '0', dead], home);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/failed 1/);
    expect(r.stdout).toMatch(/last error: http:\/\/127\.0\.0\.1:\d+\/: .*ECONNREFUSED/);
    expect(r.stderr).toMatch(/fetch failed: http:\/\/127\.0\.0\.1:\d+\/: .*ECONNREFUSED/);
    expect(r.stderr).toMatch(/nothing could be fetched/);
    expect((await crawl(['delete', '--collection', 'dead2'], home)).code).toBe(0);
  }, 90_000);

  it('--max-pages 5 --delay 0: 5 pages fetched and fed at most, though the site has 30', async () => {
    const sites = await LocalWebSites.start({ hosts: 1, pagesPerHost: 30 });
    try {
      const r = await crawl(['--collection', 'few', '--max-pages', '5', '--delay', '0', '--json', '--quiet', ...sites.startUris], home);
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout) as { fetched: number; fed: number; stats: Record<string, number> };
      expect(summary.fetched, JSON.stringify(summary.stats)).toBeLessThanOrEqual(5);
      expect(summary.fed).toBeLessThanOrEqual(5);
      expect(summary.fetched).toBeGreaterThanOrEqual(3);
      // the site was asked for no more pages than that (its robots.txt, sitemaps and redirects aside)
      const pages = [...sites.hits].filter(([u, n]) => n > 0 && sites.contentPages.has(u)).length;
      expect(pages).toBeLessThanOrEqual(5);
    } finally {
      await sites.stop();
    }
  }, 120_000);

  it('from another folder: npm --prefix <clone> run feed / search / crawl take --home and paths relative to that folder', async () => {
    const user = mkdtempSync(join(tmpdir(), 'esp-user-dir-'));
    try {
      mkdirSync(join(user, 'docs'));
      writeFileSync(join(user, 'docs', 'pangolin.txt'), 'the pangolin of the first hour');
      const rel = relative(user, home);
      const feed = await npmRun('feed', ['--home', rel, '--collection', 'default', '--report', 'report.json', 'docs'], user);
      expect(feed.code, feed.stderr + feed.stdout).toBe(0);
      expect(feed.stdout).toMatch(/1 documents .* 1 completed, 0 failed/);
      expect(feed.stderr).toContain(`feed: home ${home} (--home); its stack at ${ns.url}`);
      expect(readdirSync(user)).toContain('report.json');
      await waitFor(async () => (await npmRun('search', ['--home', rel, 'pangolin'], user)).stdout.includes('docs/pangolin.txt'), { timeoutMs: 30_000, what: 'the document found' });
      // search -s is quiet about its home unless asked
      const quiet = await npmRun('search', ['--home', rel, 'pangolin'], user);
      expect(quiet.stderr).toBe('');
      expect((await npmRun('search', ['--home', rel, '-v', 'pangolin'], user)).stderr).toContain(`home ${home} (--home)`);
      const st = await npmRun('crawl', ['--home', rel, 'status'], user);
      expect(st.code, st.stderr).toBe(0);
      expect(st.stderr).toContain(`crawl: home ${home} (--home)`);
      // ESP_HOME relative to the folder too
      const env = await collect(spawn('npm', ['--prefix', ROOT, 'run', '-s', 'crawl', '--', 'status'], { cwd: user, env: cleanEnv({ ESP_HOME: rel }), stdio: ['ignore', 'pipe', 'pipe'] }));
      expect(env.code, env.stderr).toBe(0);
      expect(env.stderr).toContain(`crawl: home ${home} ($ESP_HOME)`);
    } finally {
      rmSync(user, { recursive: true, force: true });
    }
  }, 180_000);
});
