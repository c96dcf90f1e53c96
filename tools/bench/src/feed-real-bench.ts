/**
 * bench:feed-real — the realistic corpus (generateRealCorpus, seed 42: about 300 ordinary documents, 20 of 1-20 MiB,
 * one of 60 MiB, PDF, DOCX, legacy charsets, broken files, binaries, a 200 MiB file over the limit) fed through the
 * whole stack by the feed CLI (a process: the content client, object store for large documents) into 1 content
 * distributor, 2 item processors and 1 indexer (processes), against the in-process baseline of the same documents
 * (apps/indexer/src/bench-real-baseline-main.ts: the default pipeline and the indexer's store in one process).
 *
 *   npm run bench:feed-real [-- --docs 300 --large 20 --no-huge --rounds 3 --keep]
 *
 * Each round runs the baseline (a fresh data directory) and then the feed (a collection of its own), back to back.
 * Both throughputs are in MB/s of the indexable corpus (the files the baseline takes: not the skipped binaries, not
 * the file over the limit), over each side's own measured seconds (the baseline's processing loop; the feed CLI's
 * report: first document fed until the last final status). The peak RSS (VmHWM) of every process is printed: the
 * children's read from /proc while they run, the services' at the end. The feed CLI exits 1 by design (the broken
 * documents fail); its report says what completed. Last line real_feed_vs_inprocess=<median of the rounds' feed /
 * baseline MB/s>. Goal >= 0.5.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ChildService, expectationName, generateRealCorpus, NatsServer, type CorpusManifest } from '@esp/testing';
import { fmt, median } from './stats';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '300' },
    large: { type: 'string', default: '20' },
    'no-huge': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    'batch-size': { type: 'string', default: '100' },
    keep: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const BATCH = values['batch-size'];
const SEED = 42;
const MAX_DOCUMENT_BYTES = 100 * 1024 * 1024;
const MB = 1e6;
const childEnv = { LOG_LEVEL: 'info' };

/** Peak resident set size (VmHWM) of a process in MiB, 0 when unknown. */
function peakRssMib(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallSeconds: number;
  peakRssMib: number;
}

/** Runs a workspace entry as `node --import tsx` and watches its peak RSS until it exits. */
function runChild(entry: string, args: string[]): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { env: { ...process.env, ...childEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-64_000)));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-16_000)));
    const poll = setInterval(() => {
      if (child.pid) peak = Math.max(peak, peakRssMib(child.pid));
    }, 100);
    child.on('error', (err) => {
      clearInterval(poll);
      reject(err);
    });
    child.on('exit', (code) => {
      clearInterval(poll);
      resolve({ code, stdout, stderr, wallSeconds: (performance.now() - t0) / 1000, peakRssMib: peak });
    });
  });
}

interface BaselineResult {
  docs: number;
  bytes: number;
  seconds: number;
  completed: number;
  failed: number;
  errors: Record<string, number>;
  rss_peak_mb: number;
}

interface FeedReport {
  documents: number;
  completed: number;
  failed: number;
  unfinished: number;
  seconds: number;
  failures: { id: string; error?: { name?: string; description?: string } }[];
  /** The feed CLI's own peak RSS, as it measured it. */
  peak_rss_mb?: { feed?: number };
}

function corpusStats(m: CorpusManifest): string {
  const ordinary = m.files.filter((f) => !/^(large|pdf|docx|charsets|broken|binary)\//.test(f.path)).map((f) => f.size);
  ordinary.sort((a, b) => a - b);
  const q = (p: number) => ordinary[Math.min(ordinary.length - 1, Math.floor(ordinary.length * p))] ?? 0;
  return `${m.totals.files} files, ${fmt(m.totals.bytes / 1024 / 1024, 1)} MiB (${ordinary.length} ordinary: median ${fmt(q(0.5) / 1024, 1)} KiB, p90 ${fmt(q(0.9) / 1024, 1)} KiB)`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'esp-bench-feed-real-'));
  const corpus = join(dir, 'corpus');
  const manifestFile = join(dir, 'manifest.json');
  const procs: ChildService[] = [];
  let ns: NatsServer | undefined;
  try {
    const g0 = performance.now();
    // the manifest beside the corpus: the feed of the directory holds the corpus only
    const manifest = await generateRealCorpus(corpus, { seed: SEED, docs: Number(values.docs), large: Number(values.large), huge: !values['no-huge'], manifestFile });
    console.log(`corpus (seed ${SEED}): ${corpusStats(manifest)}, generated in ${fmt((performance.now() - g0) / 1000)} s`);
    const indexable = manifest.files.filter((f) => f.expect !== 'skipped' && f.size <= MAX_DOCUMENT_BYTES);
    const indexableBytes = indexable.reduce((a, f) => a + f.size, 0);
    const expected = new Map<string, number>();
    for (const f of manifest.files) expected.set(expectationName(f.expect), (expected.get(expectationName(f.expect)) ?? 0) + 1);
    console.log(`indexable: ${indexable.length} documents, ${fmt(indexableBytes / MB, 1)} MB; expected outcomes: ${[...expected].map(([k, v]) => `${k} ${v}`).join(', ')}`);

    ns = await NatsServer.start({ jetstream: true });
    const nats = ns.url;
    const collections = Array.from({ length: ROUNDS }, (_, r) => `real${r + 1}`);
    const svc = async (entry: string, args: string[]) => {
      const s = await ChildService.start({ entry, args: ['--nats', nats, ...args], env: childEnv, startTimeoutMs: 60_000 });
      procs.push(s);
      return s;
    };
    await svc('apps/name-server/src/main.ts', []);
    const [indexer, distributor] = await Promise.all([
      svc('apps/indexer/src/main.ts', ['--data', join(dir, 'index'), '--collections', collections.join(',')]),
      svc('apps/content-distributor/src/main.ts', ['--collections', collections.join(',')]),
    ]);
    const ips = await Promise.all([1, 2].map((i) => svc('apps/item-processor/src/main.ts', ['--name', `bench-real-ip-${i}`, '--status-port', '0'])));

    const ratios: number[] = [];
    const baseRates: number[] = [];
    const feedRates: number[] = [];
    const rss: Record<string, number> = {};
    const noteRss = (name: string, mib: number) => (rss[name] = Math.max(rss[name] ?? 0, mib));
    for (let r = 0; r < ROUNDS; r++) {
      // (a) the baseline: the same documents through the same stages into the same store, one process
      const base = await runChild('apps/indexer/src/bench-real-baseline-main.ts', ['--corpus', corpus, '--manifest', manifestFile, '--data', join(dir, `baseline-${r + 1}`), '--batch-size', BATCH]);
      const line = base.stdout.trim().split('\n').pop() ?? '';
      if (base.code !== 0 || !line.startsWith('{')) throw new Error(`baseline failed (exit ${base.code}): ${base.stderr.slice(-2000)}`);
      const b = JSON.parse(line) as BaselineResult;
      noteRss('baseline', base.peakRssMib);
      const baseRate = indexableBytes / MB / b.seconds;
      baseRates.push(baseRate);
      console.log(
        `round ${r + 1} baseline: ${fmt(baseRate)} MB/s, ${fmt(b.docs / b.seconds, 1)} docs/s (${b.docs} documents in ${fmt(b.seconds)} s, wall ${fmt(base.wallSeconds)} s; completed ${b.completed}, failed ${b.failed} ${JSON.stringify(b.errors)}; peak RSS ${fmt(base.peakRssMib, 0)} MiB)`,
      );

      // (b) the stack: the feed CLI over the corpus directory into a collection of its own
      const reportFile = join(dir, `feed-report-${r + 1}.json`);
      const feed = await runChild('apps/feed/src/main.ts', ['--nats', nats, '--collection', collections[r] as string, '--batch-size', BATCH, '--report', reportFile, '--quiet', corpus]);
      noteRss('feed-cli', feed.peakRssMib);
      if (!existsSync(reportFile)) {
        console.log(`round ${r + 1} feed: no report (exit ${feed.code}, wall ${fmt(feed.wallSeconds)} s): ${(feed.stderr || feed.stdout).trim().slice(-1500)}`);
        continue;
      }
      const rep = JSON.parse(readFileSync(reportFile, 'utf8')) as FeedReport;
      const feedRate = indexableBytes / MB / rep.seconds;
      // a round counts when the feed finished every document and completed at least what the baseline completed (the
      // same stages): a feed that failed documents the baseline indexed was not doing the same work
      const counted = rep.unfinished === 0 && rep.completed >= b.completed;
      if (counted) {
        feedRates.push(feedRate);
        ratios.push(feedRate / baseRate);
      }
      const byError = new Map<string, number>();
      for (const f of rep.failures) {
        const name = f.error?.name ?? 'unknown';
        byError.set(name, (byError.get(name) ?? 0) + 1);
      }
      console.log(
        `round ${r + 1} feed: ${fmt(feedRate)} MB/s, ${fmt(rep.documents / rep.seconds, 1)} docs/s (${rep.documents} documents in ${fmt(rep.seconds)} s, wall ${fmt(feed.wallSeconds)} s, exit ${feed.code}; completed ${rep.completed}, failed ${rep.failed} ${JSON.stringify(Object.fromEntries(byError))}, unfinished ${rep.unfinished}; peak RSS ${fmt(feed.peakRssMib, 0)} MiB${rep.peak_rss_mb?.feed !== undefined ? `, by its report ${rep.peak_rss_mb.feed} MB` : ''}) ratio ${fmt(feedRate / baseRate)}${counted ? '' : ' [not counted: the feed completed fewer documents than the baseline]'}`,
      );
    }
    noteRss('nats-server', peakRssMib(ns.pid));
    noteRss('indexer', peakRssMib(indexer.pid));
    noteRss('distributor', peakRssMib(distributor.pid));
    ips.forEach((p, i) => noteRss(`ip${i + 1}`, peakRssMib(p.pid)));
    console.log(`peak RSS (MiB): ${Object.entries(rss).map(([k, v]) => `${k} ${fmt(v, 0)}`).join(', ')}`);
    console.log(`rounds=${ROUNDS} batch=${BATCH} item_processors=2 indexable_mb=${fmt(indexableBytes / MB, 1)} indexable_docs=${indexable.length}`);
    console.log(`baseline_mb_per_s=${fmt(median(baseRates))}`);
    console.log(`feed_mb_per_s=${feedRates.length ? fmt(median(feedRates)) : 'n/a'}`);
    console.log(`real_feed_vs_inprocess=${ratios.length ? `${fmt(median(ratios))} (goal >= 0.5)` : 'n/a (no round where the feed completed what the baseline completed)'}`);
  } finally {
    await Promise.all(procs.map((p) => p.stop(5000)));
    await ns?.cleanup();
    if (values.keep) console.error(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
