/**
 * The realistic corpus (libs/testing generateRealCorpus, fixed seed) through the whole stack with the real feed CLI
 * and the default pipeline: log-normal sizes, large documents and the 60 MiB one, PDF and DOCX, Latin-1,
 * Windows-1252 and Shift_JIS pages, broken files, binaries and a 200 MiB file over the limit.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { DEFAULT_PIPELINE_CONFIG } from '@esp/pipeline';
import { expectationName, generateRealCorpus, type CorpusManifest } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chain } from './chain';

interface FeedReport {
  documents: number;
  completed: number;
  failed: number;
  unfinished: number;
  failures: { id: string; error?: { name: string; description: string } }[];
  skipped: { count: number; by_reason: Record<string, number> };
  input_error_count: number;
  peak_rss_mb: { feed: number };
}

/** Peak resident set size of a live process, MiB. */
function peakRssMib(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

function runFeed(args: string[]): Promise<{ code: number | null; stderr: string; peakMib: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/feed/src/main.ts', ...args], { cwd: join(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let peakMib = 0;
    const poll = setInterval(() => (peakMib = Math.max(peakMib, child.pid ? peakRssMib(child.pid) : 0)), 100);
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      resolve({ code, stderr, peakMib });
    });
  });
}

describe('a realistic corpus through the stack with the defaults', () => {
  let chain: Chain;
  let dir: string;
  let manifest: CorpusManifest;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'esp-real-corpus-'));
    // the suite runs a smaller corpus of the same shape (80 ordinary documents, 3 large ones up to 8 MiB, the 60 MiB
    // one); ESP_REAL_CORPUS=full runs the whole one (300 ordinary, 20 of 1-20 MiB), as bench:feed-real feeds it
    const full = process.env['ESP_REAL_CORPUS'] === 'full';
    manifest = await generateRealCorpus(join(dir, 'corpus'), { seed: 42, ...(full ? {} : { docs: 80, large: 3, largeMaxBytes: 8 * 1024 * 1024 }), huge: true, manifestFile: join(dir, 'manifest.json') });
    chain = await Chain.start({ collections: ['real'], processors: 2, pipeline: DEFAULT_PIPELINE_CONFIG });
  }, 180_000);
  afterAll(async () => {
    await chain?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every document ends in one final status: the valid ones searchable by their own words, the broken ones with their stage error, the oversize one too large; no object left', async () => {
    const corpus = join(dir, 'corpus');
    const reportFile = join(dir, 'report.json');
    const feed = await runFeed(['--nats', chain.ns.url, '--collection', 'real', '--report', reportFile, '--quiet', corpus]);
    expect(feed.code, feed.stderr).toBe(1); // the broken documents fail, by design
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as FeedReport;
    const fed = manifest.files.filter((f) => f.expect !== 'skipped');
    const expectedFailures = new Map(fed.filter((f) => typeof f.expect !== 'string').map((f) => [join(corpus, f.path), expectationName(f.expect)]));

    // exactly one final status each, nothing left over
    expect(report.unfinished).toBe(0);
    expect(report.input_error_count).toBe(0);
    expect(report.documents).toBe(fed.length);
    expect(report.completed + report.failed).toBe(fed.length);
    const unexpected = report.failures.filter((f) => expectedFailures.get(f.id) !== f.error?.name).map((f) => `${f.id}: ${f.error?.name} ${f.error?.description}`);
    expect(unexpected).toEqual([]);
    expect(new Map(report.failures.map((f) => [f.id, f.error?.name]))).toEqual(expectedFailures);
    expect(report.failures.find((f) => f.error?.name === 'document_too_large')?.error?.description).toMatch(/104857600/);
    expect(report.skipped.count).toBe(manifest.files.length - fed.length);

    // found by words of their own text: PDF, DOCX, legacy charsets decoded, the last words of the large ones
    const { proxy: search } = await chain.client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    const misses: string[] = [];
    for (const f of fed.filter((x) => x.expect === 'completed')) {
      for (const q of f.queries) {
        const r = await search.search('real', q, 5, 0);
        if (r.hits.map((h) => h.id).join() !== join(corpus, f.path)) misses.push(`${f.path} (${f.kind}, ${f.charset}): "${q}" found ${r.hits.map((h) => h.id).join(', ') || 'nothing'}`);
      }
    }
    expect(misses).toEqual([]);
    expect(await search.count('real')).toBe(report.completed);

    // bounded memory: the 60 MiB document was streamed, not read whole
    const rss = { feed: feed.peakMib, indexer: peakRssMib(chain.indexer.pid), distributor: peakRssMib(chain.distributor.pid), ...Object.fromEntries(chain.processors.map((p, i) => [`ip${i + 1}`, peakRssMib(p.pid)])) };
    console.log(`peak RSS (MiB) feeding ${(manifest.totals.bytes / 1048576).toFixed(0)} MiB of corpus: ${JSON.stringify(rss)}; the feed CLI's own report: ${report.peak_rss_mb.feed} MB`);
    expect(feed.peakMib).toBeLessThan(250);

    const store = await chain.client.blobs();
    expect(await store.names()).toEqual([]);
  }, 600_000);
});
