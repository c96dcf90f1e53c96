import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Middleware } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

describe('npm start (launcher)', () => {
  let ns: NatsServer;
  beforeAll(async () => {
    ns = await NatsServer.start();
  });
  afterAll(async () => {
    await ns?.cleanup();
  });

  it('starts the stack on NATS_URL, writes stack.json, serves the name server, and stops cleanly on SIGINT', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-home-'));
    const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: ns.url, VITEST: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(() => stderr.includes('Ctrl-C stops everything'), { timeoutMs: 30_000, what: 'launcher ready' });
      const stack = JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { nats: string; processes: { name: string; pid: number }[] };
      expect(stack.nats).toBe(ns.url);
      const nameServer = stack.processes.find((p) => p.name === 'name-server');
      expect(nameServer?.pid).toBeGreaterThan(0);
      const mw = await Middleware.connect({ name: 't', servers: ns.url });
      await mw.names.ping();
      await mw.close();
      const exited = new Promise<number | null>((r) => proc.once('exit', r));
      proc.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(() => process.kill(nameServer!.pid, 0)).toThrow();
      expect(stderr).toMatch(/name-server stopped/);
    } finally {
      proc.kill('SIGKILL');
    }
    expect(existsSync(join(home, 'stack.json'))).toBe(true);
  }, 60_000);
});
