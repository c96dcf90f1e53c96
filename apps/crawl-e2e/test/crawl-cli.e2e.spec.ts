import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { LocalWebSites, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

/** Runs a tool of the workspace as `npm run <tool>` would, with the stack's home (and so its stack.json) only. */
function tool(entry: string, args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ESP_HOME: home, VITEST: '' };
    delete env['NATS_URL'];
    const p = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
const crawl = (args: string[], home: string) => tool('tools/crawl-cli/src/main.ts', args, home);

describe('npm start (two node schedulers), then npm run crawl: one command crawls sites into a new collection of the feeding chain', () => {
  let ns: NatsServer;
  let sites: LocalWebSites;
  let home: string;
  let launcher: ChildProcess;
  let mw: Middleware;
  let launcherErr = '';

  beforeAll(async () => {
    ns = await NatsServer.start();
    // one site: both node schedulers would crawl 127.0.0.1, and the spec's per-IP permission lets one node at a time
    sites = await LocalWebSites.start({ hosts: 1, pagesPerHost: 30 });
    home = mkdtempSync(join(tmpdir(), 'esp-crawl-cli-'));
    launcher = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home, '--crawl-nodes', '2'], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: ns.url, VITEST: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    launcher.stderr?.on('data', (d: Buffer) => (launcherErr = (launcherErr + d.toString()).slice(-200_000)));
    await waitFor(() => launcherErr.includes('Ctrl-C stops everything') || launcher.exitCode !== null, { timeoutMs: 120_000, what: 'the stack ready' });
    expect(launcher.exitCode, launcherErr.slice(-5000)).toBeNull();
    mw = await Middleware.connect({ name: 'crawl-cli-e2e', servers: ns.url, logger: createLogger('crawl-cli-e2e', {}, { level: 'warn' }) });
  }, 150_000);

  afterAll(async () => {
    await mw?.close();
    if (launcher?.pid && launcher.exitCode === null) {
      const exited = new Promise((r) => launcher.once('exit', r));
      process.kill(-launcher.pid, 'SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 60_000))]);
      if (launcher.exitCode === null) process.kill(-launcher.pid, 'SIGKILL');
    }
    await sites?.stop();
    await ns?.cleanup();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 90_000);

  it('crawl --collection x <url> exits 0 when done with a summary of every allowed page; the pages are searchable', async () => {
    const r = await crawl(['--collection', 'x', '--delay', '0.02', '--json', ...sites.startUris], home);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { done: boolean; fetched: number; failed: number; stats: Record<string, number>; sites: { site: string; node: string; fetched: number }[] };
    expect(summary.done).toBe(true);
    // every allowed page fetched once: 2xx answers are `fetched`, the redirect sources `redirects`
    expect(summary.fetched + (summary.stats['redirects'] ?? 0)).toBe(sites.expectedFetches.size);
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(1);
    expect(sites.totalHits).toBe(sites.expectedFetches.size);
    expect(summary.failed).toBe(0);
    expect(summary.sites.reduce((n, s) => n + s.fetched, 0)).toBe(summary.fetched);
    // one node crawled the site, and done waited for the other's idle reports too
    expect(summary.sites).toHaveLength(1);
    expect(['node1', 'node2']).toContain(summary.sites[0]?.node);
    // progress went to stderr
    expect(r.stderr).toMatch(/crawl x: fetched \d+/);
    // done means indexed: every page fed has completed in the feeding chain
    const { proxy: search } = await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect(summary.stats['fed']).toBeGreaterThan(0);
    expect(await search.count('x')).toBe(summary.stats['fed']);

    // the collection is the feeding chain's: a search finds a page by its token
    const [page, token] = [...sites.tokenOf].find(([u]) => sites.contentPages.has(u)) ?? [];
    let last = '';
    await waitFor(
      async () => {
        const s = await tool('tools/search-cli/src/main.ts', ['--collection', 'x', '--json', '--nats', ns.url, String(token)], home);
        last = s.stdout + s.stderr;
        return s.code === 0 && (JSON.parse(s.stdout) as { hits: { id: string }[] }).hits.some((h) => h.id === page);
      },
      { timeoutMs: 30_000, what: `${page} found by "${token}"` },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the search said ${last}; launcher: ${launcherErr.split('\n').filter((l) => /error|warn|"level":[45]0/.test(l)).slice(-10).join('\n')}`);
    });

    const status = await crawl(['status', '--collection', 'x'], home);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/crawl of x: done/);
  }, 180_000);

  it('delete-site: the node crawling the site removes what the site fed from the index', async () => {
    const site = new URL(sites.startUris[0] as string).host;
    const { proxy: search } = await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect(await search.count('x')).toBeGreaterThan(0);
    const r = await crawl(['delete-site', site, '--collection', 'x'], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`delete-site x: CMD_UM_DELETE_SITE sent to 2 nodes\n`);
    await waitFor(async () => (await search.count('x')) === 0, { timeoutMs: 30_000, what: 'the site removed from the index' });
    // the site's copies of deleted pages are deleted with it: the duplicate server's promotion recrawls none of them
    await new Promise((r) => setTimeout(r, 1500));
    expect(await search.count('x')).toBe(0);
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(1);
  }, 60_000);

  it('suspend stops fetching, resume goes on; crawling again with the same settings waits for the end', async () => {
    const slow = await LocalWebSites.start({ hosts: 1, pagesPerHost: 12 });
    try {
      const set = await crawl(['--collection', 'y', '--delay', '0.3', '--no-wait', ...slow.startUris], home);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toMatch(/^crawl of y created/);
      await waitFor(() => slow.totalHits >= 3, { timeoutMs: 30_000, what: 'the crawl of y under way' });
      expect((await crawl(['suspend', '--collection', 'y'], home)).stdout).toBe('suspend y: CMD_ADM_CONF_SUSPEND sent to 2 nodes\n');
      await new Promise((r) => setTimeout(r, 700)); // a request in flight may still end
      const atSuspend = slow.totalHits;
      await new Promise((r) => setTimeout(r, 1500));
      expect(slow.totalHits).toBe(atSuspend);
      expect(atSuspend).toBeLessThan(slow.expectedFetches.size);
      const st = await crawl(['status', '--collection', 'y', '--json'], home);
      expect(JSON.parse(st.stdout)[0]).toMatchObject({ collection: 'y', state: 'suspended_by_user', done: false });
      expect((await crawl(['resume', '--collection', 'y'], home)).code).toBe(0);
      const done = await crawl(['--collection', 'y', '--delay', '0.3', '--json', '--quiet', ...slow.startUris], home);
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).toBe('');
      expect(slow.totalHits).toBe(slow.expectedFetches.size);
      const summary = JSON.parse(done.stdout) as { fetched: number; stats: Record<string, number> };
      // every URL asked once: 2xx answers, redirects, and the one link to a page that is not there (HTTP 404)
      expect(summary.fetched + (summary.stats['redirects'] ?? 0) + (summary.stats['errors'] ?? 0), JSON.stringify(summary.stats)).toBe(slow.expectedFetches.size);
    } finally {
      await slow.stop();
    }
  }, 120_000);

  it('an unknown collection and a stack that is not there are errors with their code', async () => {
    const r = await crawl(['suspend', '--collection', 'nope'], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no crawl of collection "nope" \[unknown_collection\]/);
    const gone = await crawl(['status', '--mns', 'elsewhere'], home);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no multinode scheduler answers at .*elsewhere\.admin/);
  }, 60_000);
});
