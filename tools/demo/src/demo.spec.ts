import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenDocuments, paragraphs } from './generate-corpus';

const ROOT = new URL('../../../', import.meta.url).pathname;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function runDemo(natsUrl: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/demo/src/main.ts', ...args], { cwd: ROOT, env: { ...process.env, NATS_URL: natsUrl, VITEST: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const kill = setTimeout(() => proc.kill('SIGKILL'), 170_000);
  return new Promise((resolve) =>
    proc.once('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function stackGone(home: string): Promise<void> {
  const stack = JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { processes: { name: string; pid: number }[] };
  // name server, config server, node controller, indexer, two content distributors, two item processors, and the
  // crawl roles: a duplicate server and its replica, the multinode scheduler, a node scheduler
  expect(stack.processes.length).toBe(12);
  expect(stack.processes.filter((p) => /scheduler|duplicate-server/.test(p.name)).length).toBe(4);
  expect(stack.processes.filter((p) => p.name.startsWith('content-distributor-')).length).toBe(2);
  await waitFor(() => stack.processes.every((p) => !alive(p.pid)), { timeoutMs: 10_000, what: 'every process of the demo stack gone' });
}

describe('generate-corpus', () => {
  it('joins short paragraphs (headings) to the next one', () => {
    expect(paragraphs('TITLE\n\n  Preamble\n\nThe licenses for most software are designed to take away your freedom to share and change it. By contrast, this is long enough.\n\n\nEND')).toEqual([
      'TITLE\n\nPreamble\n\nThe licenses for most software are designed to take away your freedom to share and change it. By contrast, this is long enough.',
      'END',
    ]);
  });
  it('the committed corpus has the broken documents the generator makes', () => {
    for (const [name, bytes] of Object.entries(brokenDocuments())) expect(new Uint8Array(readFileSync(join(ROOT, 'tools/demo/corpus/broken', name)))).toEqual(bytes);
  });
});

describe('npm run demo', () => {
  let ns: NatsServer;
  const dirs: string[] = [];
  beforeAll(async () => {
    ns = await NatsServer.start();
  });
  afterAll(async () => {
    await ns?.cleanup();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('starts the stack on NATS_URL, feeds the corpus, reports the broken documents as failed, finds documents, stops and exits 0', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-demo-'));
    dirs.push(home);
    const { code, stdout, stderr } = await runDemo(ns.url, ['--home', home]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/^ {2}item-processor-2 +pid \d+ +XML-RPC http:\/\/\S+\/RPC2$/m);
    expect(stdout).toMatch(/^Fed 307 documents \(.*\.xml.*\.txt.*\.html.*\) in [\d.]+ s: [\d.]+ docs\/s$/m);
    expect(stdout).toMatch(/^ {2}completed +302$/m);
    expect(stdout).toMatch(/^ {2}failed +5 \(3 xml_error, 2 utf8_error\), 5 expected$/m);
    expect(stdout).toContain('failed tools/demo/corpus/broken/latin1-declared-utf8.html: utf8_error');
    expect(stdout).toContain('failed tools/demo/corpus/broken/two-roots.xml: xml_error');
    expect(stdout).toMatch(/^ {2}"patent license": \d+ hits\n {4}1\. \S+/m);
    expect(stdout).not.toContain('UNEXPECTED');
    expect(stdout.trimEnd().endsWith('demo passed')).toBe(true);
    await stackGone(home);
  }, 180_000);

  it('exits 1 and says why when a document fails that was not expected to', async () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-demo-'));
    const corpus = mkdtempSync(join(tmpdir(), 'esp-demo-corpus-'));
    dirs.push(home, corpus);
    mkdirSync(join(corpus, 'broken'));
    writeFileSync(join(corpus, 'good.txt'), 'Free software and its source code come with no warranty; see the patent license and the trademark terms.\n');
    writeFileSync(join(corpus, 'bad.xml'), '<document><para>not closed</document>');
    const { code, stdout } = await runDemo(ns.url, ['--home', home, '--corpus', corpus]);
    expect(code, stdout).toBe(1);
    expect(stdout).toContain('UNEXPECTED:');
    expect(stdout).toContain(`documents failed that should not have: ${join(corpus, 'bad.xml')}`);
    expect(stdout.trimEnd().endsWith('demo FAILED')).toBe(true);
    await stackGone(home);
  }, 180_000);
});
