/**
 * `npm start` with no NATS_URL: its own nats-server with the generated configuration, every process with its role's
 * identity, and the feed, search and ping commands connecting with the identities of the home and no setup; a
 * client without credentials, or without TLS, is refused.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ESP_HOME: home, VITEST: '' };
  for (const k of ['NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_NKEY', 'NATS_CREDS', 'NATS_CA', 'NATS_CERT', 'NATS_KEY']) delete env[k];
  return env;
}

const run = (entry: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawnSync(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });

describe('npm start on the secured bus', () => {
  it('starts its own secured nats-server; the processes and the CLIs connect with their identities, nobody else does', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-secured-'));
    const env = cleanEnv(home);
    const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home, '--crawl-nodes', '0'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(() => stderr.includes('Ctrl-C stops everything') || proc.exitCode !== null, { timeoutMs: 90_000, what: 'launcher ready' });
      expect(proc.exitCode, stderr).toBeNull();
      expect(stderr).toMatch(/NATS at nats:\/\/127\.0\.0\.1:\d+ \(started here/);
      expect(stderr).not.toMatch(/[Pp]ermissions [Vv]iolation/);
      expect(statSync(join(home, 'nats-auth')).mode & 0o077).toBe(0);
      expect(statSync(join(home, 'node.json')).mode & 0o077).toBe(0);
      const nats = (JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { nats: string }).nats;
      // each item processor runs as its own user (the node controller fills {name}), which the server knows
      const profile = JSON.parse(readFileSync(join(home, 'node.json'), 'utf8')) as { processes: Array<{ name: string; env?: Record<string, string> }> };
      expect(profile.processes.find((p) => p.name === 'item-processor')?.env).toMatchObject({ NATS_USER: '{name}', NATS_PASSWORD_FILE: join(home, 'nats-auth', 'processors', '{name}', 'password') });
      const conf = readFileSync(join(home, 'nats-auth', 'nats.conf'), 'utf8');
      for (const user of ['item-processor-1', 'item-processor-2']) expect(conf).toContain(`{ user: "${user}"`);
      expect(statSync(join(home, 'nats-auth', 'batch-key')).mode & 0o077).toBe(0);

      const docs = join(home, 'docs');
      mkdirSync(docs);
      writeFileSync(join(docs, 'a.txt'), 'a secured stack finds the pangolin');
      const feed = run('apps/feed/src/main.ts', ['--collection', 'default', docs], env);
      expect(feed.status, feed.stderr).toBe(0);
      expect(feed.stdout).toMatch(/1 completed, 0 failed/);
      await waitFor(() => run('tools/search-cli/src/main.ts', ['pangolin', '--collection', 'default'], env).stdout.includes('a.txt'), { timeoutMs: 20_000, what: 'the document found' });
      expect(run('tools/launcher/src/ping.ts', [], env).status).toBe(0);

      const quiet = createLogger('t', {}, { level: 'silent' });
      const caFile = join(home, 'nats-auth', 'server.pem');
      await expect(Middleware.connect({ name: 'anon', servers: nats, security: { tls: { caFile } }, logger: quiet })).rejects.toThrow(/Check the NATS credentials/);
      await expect(Middleware.connect({ name: 'plain', servers: nats, security: { user: 'client', password: 'x' }, logger: quiet })).rejects.toThrow(/cannot connect/);

      const exited = new Promise<number | null>((r) => proc.once('exit', r));
      process.kill(-(proc.pid as number), 'SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (proc.exitCode === null) process.kill(-(proc.pid as number), 'SIGKILL');
      rmSync(home, { recursive: true, force: true });
    }
  }, 180_000);
});
