import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsServer, reservePorts, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;
const FEED = 'apps/feed/src/main.ts';
const SEARCH = 'tools/search-cli/src/main.ts';
const CRAWL = 'tools/crawl-cli/src/main.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A command of the workspace as its own process, with an environment that names no stack and no server. */
function cli(entry: string, args: string[], env: NodeJS.ProcessEnv, onStderr?: (all: string) => void): Promise<Run> {
  const clean: NodeJS.ProcessEnv = { ...process.env, VITEST: '', ...env };
  for (const k of ['NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_CREDS', 'NATS_CA', 'INIT_CWD']) if (!(k in env)) delete clean[k];
  const started = Date.now();
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr);
    });
    p.once('exit', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

describe('the command lines and NATS: waiting for the first connection, and no fallback to an unknown server', () => {
  let dir: string;
  let doc: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'esp-cli-connect-'));
    doc = join(dir, 'a.txt');
    writeFileSync(doc, 'hello');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('feed, search and crawl started while NATS is down say that they wait, and connect once a nats-server comes up 3 s later', async () => {
    const [port] = await reservePorts(1);
    const url = `nats://127.0.0.1:${port}`;
    const waiting = new Set<string>();
    const said = (name: string) => (all: string) => {
      if (/waiting up to 30 s for NATS at nats:\/\/127\.0\.0\.1:\d+ .*--wait-for-nats/.test(all)) waiting.add(name);
    };
    const runs = Promise.all([
      cli(FEED, ['--collection', 'c', '--nats', url, '--quiet', doc], {}, said('feed')),
      cli(SEARCH, ['hello', '--nats', url], {}, said('search')),
      cli(CRAWL, ['status', '--nats', url], {}, said('crawl')),
    ]);
    await waitFor(() => waiting.size === 3, { timeoutMs: 20_000, what: 'the three commands waiting for NATS' });
    await new Promise((r) => setTimeout(r, 3000));
    const ns = await NatsServer.start({ port });
    try {
      const [feed, search, crawl] = await runs;
      // connected: each gets as far as the stack's roles, which this bare server does not have
      expect(feed.stderr).not.toMatch(/cannot connect/);
      expect(feed.stderr).toMatch(/cannot open a session on "c"/);
      expect(feed.code).toBe(1);
      expect(search.stderr).toMatch(/no object serves esp\.ns\.rpc|no indexer is bound/);
      expect(search.code).toBe(1);
      expect(crawl.stderr).toMatch(/no multinode scheduler answers/);
      expect(crawl.code).toBe(1);
      // one line each says that it waits, not one per attempt
      for (const r of [feed, search, crawl]) expect(r.stderr.match(/waiting up to/g)).toHaveLength(1);
    } finally {
      await ns.cleanup();
    }
  }, 90_000);

  it('the wait is bounded: --wait-for-nats 1 fails after about a second with the reason; 0 fails at once', async () => {
    const [port] = await reservePorts(1);
    const url = `nats://127.0.0.1:${port}`;
    const waited = await cli(FEED, ['--collection', 'c', '--nats', url, '--wait-for-nats', '1', doc], {});
    expect(waited.code).toBe(1);
    expect(waited.stderr).toMatch(/waiting up to 1 s/);
    expect(waited.stderr).toMatch(/cannot connect to NATS at nats:\/\/127\.0\.0\.1:\d+/);
    const atOnce = await cli(SEARCH, ['x', '--nats', url, '--wait-for-nats', '0'], {});
    expect(atOnce.code).toBe(1);
    expect(atOnce.stderr).not.toMatch(/waiting/);
    expect(atOnce.stderr).toMatch(/cannot connect to NATS/);
    expect(atOnce.ms).toBeLessThan(waited.ms);
  }, 60_000);

  it('no home, no --nats, no $NATS_URL: every command says it found no stack and makes no connection to 127.0.0.1:4222; with --nats it connects there', async () => {
    // a listener where the old fallback went (127.0.0.1:4222, when it is free here): it counts the connections a
    // command that still fell back to it would make (a local user's server there would get the feed)
    let fallbackConnections = 0;
    const trap = createServer((sock) => {
      fallbackConnections++;
      sock.destroy();
    });
    const trapped = await new Promise<boolean>((resolve) => {
      trap.once('error', () => resolve(false));
      trap.listen(4222, '127.0.0.1', () => resolve(true));
    });
    const ns = await NatsServer.start({ jetstream: false });
    const home = join(dir, 'no-stack-here');
    try {
      for (const [entry, args] of [
        [FEED, ['--collection', 'c', doc]],
        [SEARCH, ['x']],
        [CRAWL, ['status']],
      ] as const) {
        const r = await cli(entry, [...args], { ESP_HOME: home });
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toMatch(/found no stack: no stack\.json in .*no-stack-here \(from \$ESP_HOME\)/);
        expect(r.stderr).toMatch(/npm start/);
        expect(r.stderr).toMatch(/--nats <url>/);
        expect(r.stderr).not.toMatch(/waiting|cannot connect/);
        // --help works without a stack
        const help = await cli(entry, ['--help'], { ESP_HOME: home });
        expect(help.code).toBe(0);
        for (const s of ['--home', '$ESP_HOME', '$INIT_CWD', '--wait-for-nats']) expect(help.stdout).toContain(s);
      }
      if (trapped) expect(fallbackConnections).toBe(0);
      // with --nats it connects where it is told
      const told = await cli(SEARCH, ['x', '--nats', ns.url, '-v'], { ESP_HOME: home });
      expect(told.stderr).toMatch(/no object serves esp\.ns\.rpc|no indexer is bound/);
      expect(told.stderr).toContain(`NATS at ${ns.url} (--nats)`);
    } finally {
      await ns.cleanup();
      if (trapped) await new Promise((r) => trap.close(r));
    }
  }, 90_000);
});
