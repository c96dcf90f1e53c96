/**
 * `npm start` on its secured bus, as a user meets it: a home made before (a 0644 file in a
 * 0755 folder) and everything the stack writes into it (index SQLite files, NATS store, logs, configuration) are
 * owner-only; the read-only XML-RPC methods need the admin secret; a feed of 200 documents, two of them over
 * 256 KiB, completes without a warning, is searchable, and leaves the content bucket empty.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { waitFor } from '@esp/testing';
import { xmlRpcCall } from '@esp/xmlrpc-http';
// the inspector's tool: the raw JetStream client, around the middleware
// eslint-disable-next-line no-restricted-imports
import { jetstream } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ESP_HOME: home, VITEST: '' };
  for (const k of ['NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_NKEY', 'NATS_CREDS', 'NATS_CA', 'NATS_CERT', 'NATS_KEY', 'ESP_ADMIN_SECRET_FILE', 'ESP_ADMIN_READ_OPEN']) delete env[k];
  return env;
}

const run = (entry: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawnSync(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });

/** Every path under `root` whose group or others bits are set, with its mode. */
function notOwnerOnly(root: string): string[] {
  const out: string[] = [];
  const visit = (p: string): void => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.mode & 0o077) out.push(`${p} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const n of readdirSync(p)) visit(join(p, n));
  };
  visit(root);
  return out;
}

function allFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).map((n) => join(root, n));
}

describe('npm start: an owner-only home, reads behind the secret, large content deleted', () => {
  it('tightens a home made before, writes nothing others can read; GetProcessList needs the secret; 200 documents fed and found, the bucket empty', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-home-modes-'));
    const cleanup = [home];
    // a home of before: a world-readable file in a world-readable folder
    mkdirSync(join(home, 'indexer'), { mode: 0o755 });
    chmodSync(join(home, 'indexer'), 0o755);
    writeFileSync(join(home, 'indexer', 'old.sqlite'), 'confidential', { mode: 0o644 });
    chmodSync(join(home, 'indexer', 'old.sqlite'), 0o644);
    const env = cleanEnv(home);
    const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home, '--crawl-nodes', '0'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(() => stderr.includes('Ctrl-C stops everything') || proc.exitCode !== null, { timeoutMs: 120_000, what: 'launcher ready' });
      expect(proc.exitCode, stderr).toBeNull();
      expect(stderr).toMatch(/JetStream: created OBJ_esp_content, KV_esp_names/);

      const docs = mkdtempSync(join(tmpdir(), 'esp-docs-')); // the user's files, outside the home
      cleanup.push(docs);
      for (let i = 0; i < 198; i++) writeFileSync(join(docs, `d${i}.txt`), `markmodesx document ${i} of the owner-only home`);
      writeFileSync(join(docs, 'big-1.txt'), 'markmodesx big one '.padEnd(400 * 1024, 'lorem ipsum '));
      writeFileSync(join(docs, 'big-2.txt'), 'markmodesx big two '.padEnd(2 * 1024 * 1024, 'dolor sit '));
      const feed = run('apps/feed/src/main.ts', ['--collection', 'default', docs], env);
      expect(feed.status, feed.stderr).toBe(0);
      expect(feed.stdout).toMatch(/200 completed, 0 failed/);
      expect(feed.stderr).not.toMatch(/deleting the stored content failed|[Pp]ermissions [Vv]iolation|"level":(40|50)/);
      const total = (): number => {
        const r = run('tools/search-cli/src/main.ts', ['markmodesx', '--collection', 'default', '--json'], env);
        return r.status === 0 ? (JSON.parse(r.stdout) as { total: number }).total : -1;
      };
      await waitFor(() => total() === 200, { timeoutMs: 30_000, what: '200 documents found' });

      // the content bucket is empty: the indexer deleted the client's objects and the processed text
      const adminEnv = Object.fromEntries(readFileSync(join(home, 'nats-auth', 'admin.env'), 'utf8').trim().split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]));
      const nats = (JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { nats: string }).nats;
      const admin = await Middleware.connect({ name: 'inspector', servers: nats, security: { user: adminEnv['NATS_USER'] as string, password: adminEnv['NATS_PASSWORD'] as string, tls: { caFile: adminEnv['NATS_CA'] as string } }, logger: createLogger('t', {}, { level: 'silent' }) });
      try {
        const jsm = await jetstream(admin.nc).jetstreamManager();
        await expect.poll(async () => (await jsm.streams.info('OBJ_esp_content')).state.messages, { timeout: 15_000 }).toBe(0);
      } finally {
        await admin.close();
      }

      // reads need the secret: a local user who reaches the port learns nothing
      const stack = JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { processes: { name: string; xmlrpc_url?: string }[] };
      const nc = stack.processes.find((p) => p.name === 'node-controller')?.xmlrpc_url as string;
      await expect(xmlRpcCall(nc, 'GetProcessList', [], { secret: null })).rejects.toThrow(/HTTP 401/);
      const secret = readFileSync(join(home, 'admin-secret'), 'utf8').trim();
      expect(((await xmlRpcCall(nc, 'GetProcessList', [], { secret })) as unknown[]).length).toBeGreaterThan(0);

      // every file under the home is owner-only: the old one tightened, the index, the NATS store, the logs
      expect(allFiles(home).some((f) => /\.sqlite$/.test(f) && !f.endsWith('old.sqlite'))).toBe(true);
      expect(allFiles(join(home, 'nats')).length).toBeGreaterThan(0);
      expect(notOwnerOnly(home)).toEqual([]);

      const exited = new Promise<number | null>((r) => proc.once('exit', r));
      process.kill(-(proc.pid as number), 'SIGINT');
      expect(await exited).toBe(0);
      expect(notOwnerOnly(home)).toEqual([]);
    } finally {
      if (proc.exitCode === null) process.kill(-(proc.pid as number), 'SIGKILL');
      for (const d of cleanup) rmSync(d, { recursive: true, force: true });
    }
  }, 300_000);
});
