/**
 * Session replication with batches of real-size documents on the secured stack (`npm start`: its own nats-server
 * with TLS and one identity per role, two content distributors, two item processors). The feed CLI's batches fill
 * the bus's max_payload, so their SSR replicas are larger than it: they go to the buddy as chunks
 * (docs/decisions/0016-ssr-chunks.md). The distributor holding the session is killed (SIGKILL) after it has sent such
 * a replica, while the feed runs; the other reactivates the session from its replica, and nothing is lost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stackEnv } from '@esp/cli-options';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { expectationName, generateRealCorpus, waitFor, type CorpusManifest } from '@esp/testing';
// eslint-disable-next-line no-restricted-imports
import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../../..');
const CHUNKS_SENT = 'SSR message above max_payload sent as chunks (the first; later ones are counted, not logged)';

interface FeedReport {
  documents: number;
  completed: number;
  failed: number;
  unfinished: number;
  failures: { id: string; error?: { name: string; description: string } }[];
}

interface Line {
  /** The process that wrote it: `content-distributor-1`, ... (the node controller's prefix), else `launcher`. */
  from: string;
  text: string;
  json: Record<string, unknown> | undefined;
}

function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ESP_HOME: home, VITEST: '' };
  for (const k of ['NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_NKEY', 'NATS_CREDS', 'NATS_CA', 'NATS_CERT', 'NATS_KEY', 'LOG_LEVEL']) delete env[k];
  return env;
}

function parse(raw: string): Line {
  const m = /^\[([^\]]+)\] (.*)$/.exec(raw);
  const text = m ? (m[2] ?? '') : raw;
  let json: Record<string, unknown> | undefined;
  if (text.startsWith('{')) {
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
  }
  return { from: m ? (m[1] ?? 'launcher') : 'launcher', text, json };
}

describe('SSR replicas larger than max_payload on the secured stack (real-size documents, SIGKILL of the holder)', () => {
  let dir: string;
  let home: string;
  let launcher: ChildProcess;
  let manifest: CorpusManifest;
  const lines: Line[] = [];
  let stderr = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'esp-ssr-large-'));
    home = join(dir, 'home');
    // documents of every size up to several MiB: batches of the smaller ones fill max_payload
    manifest = await generateRealCorpus(join(dir, 'corpus'), { seed: 30, docs: 120, large: 3, largeMaxBytes: 6 * 1024 * 1024, huge: false, oversize: false, manifestFile: join(dir, 'manifest.json') });
    launcher = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home, '--crawl-nodes', '0'], { cwd: ROOT, env: cleanEnv(home), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const take = (chunk: Buffer, keep: boolean): void => {
      const s = chunk.toString();
      if (keep) stderr = (stderr + s).slice(-20_000);
      for (const raw of s.split('\n')) if (raw.trim() && lines.length < 500_000) lines.push(parse(raw));
    };
    launcher.stdout?.on('data', (d: Buffer) => take(d, false));
    launcher.stderr?.on('data', (d: Buffer) => take(d, true));
    await waitFor(() => stderr.includes('Ctrl-C stops everything') || launcher.exitCode !== null, { timeoutMs: 120_000, what: 'the stack ready' });
    expect(launcher.exitCode, stderr).toBeNull();
  }, 240_000);

  afterAll(async () => {
    if (launcher?.pid && launcher.exitCode === null) {
      const exited = new Promise((r) => launcher.once('exit', r));
      process.kill(-launcher.pid, 'SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
      if (launcher.exitCode === null) process.kill(-launcher.pid, 'SIGKILL');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every document ends in one final status, every completed one is found, no SSR message is dropped for its size', async () => {
    const corpus = join(dir, 'corpus');
    const reportFile = join(dir, 'report.json');
    const feed = spawn(process.execPath, ['--import', 'tsx', 'apps/feed/src/main.ts', '--collection', 'default', '--report', reportFile, '--quiet', corpus], { cwd: ROOT, env: cleanEnv(home), stdio: ['ignore', 'ignore', 'pipe'] });
    let feedErr = '';
    feed.stderr?.on('data', (d: Buffer) => (feedErr = (feedErr + d.toString()).slice(-4000)));
    const feedExit = new Promise<number | null>((r) => feed.once('exit', r));

    const env = stackEnv(cleanEnv(home), 'client');
    const mw = await Middleware.connect({
      name: 'e2e-search',
      servers: env['NATS_URL'] as string,
      security: { user: env['NATS_USER'], password: env['NATS_PASSWORD'], tls: { caFile: env['NATS_CA'] as string } },
      logger: createLogger('e2e', {}, { level: 'warn' }),
    });
    const fed = manifest.files.filter((f) => f.expect !== 'skipped');
    try {
      const { proxy: search } = await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
      // batches of these documents fill max_payload (their replicas were above the 900,000 bytes the transport used
      // to drop from the first batch on): once a quarter of the corpus is in the index, SIGKILL the session's holder
      const created = await waitFor(() => lines.find((l) => l.from.startsWith('content-distributor') && l.json?.['msg'] === 'session created'), { what: 'the session created', timeoutMs: 120_000, intervalMs: 50 });
      const holder = created.from;
      await waitFor(async () => (await search.count('default').catch(() => 0)) >= fed.length / 4, { what: 'a quarter of the corpus indexed', timeoutMs: 300_000, intervalMs: 100 });
      expect(feed.exitCode, 'the feed is still running at the kill').toBeNull();
      const stack = JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { processes: { name: string; pid: number }[] };
      const pid = stack.processes.find((p) => p.name === holder)?.pid;
      expect(pid, `${holder} in stack.json`).toBeGreaterThan(0);
      // up to the kill, the stack logged nothing at error level (pino 50 and above): nothing dropped, nothing refused
      const errorsBeforeKill = lines.filter((l) => typeof l.json?.['level'] === 'number' && (l.json['level'] as number) >= 50).map((l) => `${l.from}: ${l.text}`);
      process.kill(pid as number, 'SIGKILL');
      const killedAt = await search.count('default');
      expect(errorsBeforeKill).toEqual([]);

      expect(await feedExit, feedErr).toBe(1); // the broken documents of the corpus fail, by design
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as FeedReport;
      const expectedFailures = new Map(fed.filter((f) => typeof f.expect !== 'string').map((f) => [join(corpus, f.path), expectationName(f.expect)]));
      // one final status each, nothing left over, nothing failed that should not
      expect(report.unfinished).toBe(0);
      expect(report.documents).toBe(fed.length);
      expect(report.completed + report.failed).toBe(fed.length);
      expect(new Map(report.failures.map((f) => [f.id, f.error?.name]))).toEqual(expectedFailures);

      // the other distributor carried the session on from its replica
      expect(lines.some((l) => l.from.startsWith('content-distributor') && l.from !== holder && l.json?.['msg'] === 'session reactivated from its replica')).toBe(true);

      // every completed document is found by words of its own text
      const misses: string[] = [];
      for (const f of fed.filter((x) => x.expect === 'completed')) {
        for (const q of f.queries) {
          const r = await search.search('default', q, 5, 0);
          if (r.hits.map((h) => h.id).join() !== join(corpus, f.path)) misses.push(`${f.path}: "${q}" found ${r.hits.map((h) => h.id).join(', ') || 'nothing'}`);
        }
      }
      expect(misses).toEqual([]);
      expect(await search.count('default')).toBe(report.completed);

      // the large documents' content went through the object store and was deleted once final: the bucket is empty
      const adminEnv = stackEnv(cleanEnv(home), 'admin');
      const admin = await Middleware.connect({
        name: 'e2e-inspector',
        servers: adminEnv['NATS_URL'] as string,
        security: { user: adminEnv['NATS_USER'], password: adminEnv['NATS_PASSWORD'], tls: { caFile: adminEnv['NATS_CA'] as string } },
        logger: createLogger('e2e', {}, { level: 'warn' }),
      });
      try {
        const jsm = await jetstream(admin.nc).jetstreamManager();
        await expect.poll(async () => (await jsm.streams.info('OBJ_esp_content')).state.messages, { timeout: 30_000 }).toBe(0);
      } finally {
        await admin.close();
      }

      // no SSR message dropped, for its size or in its reassembly
      expect(lines.filter((l) => /payload limit|chunked SSR message dropped/.test(l.text)).map((l) => `${l.from}: ${l.text}`)).toEqual([]);
      const chunked = lines.filter((l) => l.json?.['msg'] === CHUNKS_SENT).length;
      console.log(`${holder} (holding the session) killed with ${killedAt} of ${fed.length} documents indexed; ${chunked} distributor(s) sent chunks; ${report.completed} completed, ${report.failed} failed (expected)`);
    } finally {
      await mw.close();
    }
  }, 900_000);
});
