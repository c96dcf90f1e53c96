import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservePorts, waitFor } from '@esp/testing';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

describe('npm start --home, as every command line takes it', () => {
  const user = mkdtempSync(join(tmpdir(), 'esp-launcher-user-'));
  const name = `esp-home-${process.pid}-${Date.now()}`;
  afterAll(() => {
    rmSync(user, { recursive: true, force: true });
    rmSync(join(ROOT, name), { recursive: true, force: true });
  });

  it('a relative --home is relative to the directory npm start was typed in ($INIT_CWD), not to the repository', async () => {
    // a NATS_URL nobody listens on: the launcher makes its home, then waits for NATS; stopped once the home is there
    const [port] = await reservePorts(1);
    const env: NodeJS.ProcessEnv = { ...process.env, VITEST: '', INIT_CWD: user, npm_lifecycle_event: 'start', NATS_URL: `nats://127.0.0.1:${port}` };
    const p = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', name, '--crawl-nodes', '0'], { cwd: ROOT, env, stdio: 'ignore' });
    const exited = new Promise((r) => p.once('exit', r));
    try {
      await waitFor(() => existsSync(join(user, name, 'admin-secret')) || existsSync(join(ROOT, name)) || p.exitCode !== null, { timeoutMs: 40_000, what: 'the home made' });
    } finally {
      p.kill('SIGKILL');
      await exited;
    }
    expect(existsSync(join(user, name, 'admin-secret'))).toBe(true);
    expect(existsSync(join(ROOT, name))).toBe(false);
  }, 60_000);
});
