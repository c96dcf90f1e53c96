import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedingClient } from '@esp/content-client';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
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

  it('starts the stack on NATS_URL, writes stack.json, feeds and finds a document, and stops cleanly on SIGINT', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-home-'));
    const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: ns.url, VITEST: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(() => stderr.includes('Ctrl-C stops everything'), { timeoutMs: 90_000, what: 'launcher ready' });
      const stack = JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { nats: string; processes: { name: string; pid: number }[] };
      expect(stack.nats).toBe(ns.url);
      const nameServer = stack.processes.find((p) => p.name === 'name-server');
      expect(nameServer?.pid).toBeGreaterThan(0);
      expect(stack.processes.map((p) => p.name)).toEqual(['name-server', 'indexer', 'content-distributor', 'item-processor-1', 'item-processor-2']);
      expect(stack.processes.find((p) => p.name === 'item-processor-1')).toMatchObject({ status_url: expect.stringMatching(/^http:\/\/.*\/RPC2$/) });
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
      proc.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(() => process.kill(nameServer!.pid, 0)).toThrow();
      expect(stderr).toMatch(/name-server stopped/);
    } finally {
      proc.kill('SIGKILL');
    }
    expect(existsSync(join(home, 'stack.json'))).toBe(true);
  }, 150_000);
});
