/**
 * bench:feed — documents of about 1 KB, batches of 100, through 1 content distributor, 2 item processors and 1
 * indexer (separate processes) until every one is completed (searchable), against a baseline in the same run: the
 * same documents as plain NATS requests to a subscriber that does the same store writes (the indexer's SQLite store,
 * one transaction per batch, answered once committed).
 *
 *   npm run bench:feed [-- --docs 20000 --rounds 3 --warmup 40000 --timings]
 *
 * It also prints the messages and bytes published into nats-server per batch (its /varz counters), and the CPU time
 * each process spent per batch of 100 in the feed and in the baseline (from /proc:
 * independent of the load of the shared machine, unlike docs/s), and feed_vs_baseline_by_cpu = baseline / feed CPU
 * per batch: the ratio to expect where both sides are CPU-bound on the same cores. --timings runs the item
 * processors and the indexer at log level debug and prints the medians of their per-batch timings (pipeline_ms: the
 * stages; forward_ms: handing the batch to the indexer until it is committed; the indexer's write_ms per commit).
 *
 * Each round runs the baseline and then the feed back to back. Prints the medians over the rounds of
 * feed_docs_per_s and baseline_docs_per_s; last line feed_vs_baseline=<median of the rounds' feed / baseline>: the
 * two halves of a round ran under about the same load of the shared machine, so the per-round ratio is the steadier
 * figure (the same rule as bench:codecs).
 * Goals: ratio >= 0.5 and >= 10,000 docs/s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { createLogger } from '@esp/logging';
import { Middleware, packValue, RawBus, unpackValue } from '@esp/middleware';
import { ChildService, NatsServer } from '@esp/testing';
import { cpuDelta, cpuOf } from './proc-cpu';
import { fmt, median } from './stats';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' }, warmup: { type: 'string', default: '40000' }, inflight: { type: 'string', default: '8' }, timings: { type: 'boolean', default: false } } });
const DOCS = Number(values.docs);
const ROUNDS = Number(values.rounds);
/** Documents of the warm-up round (both sides, not counted); 0: none. */
const WARMUP = Number(values.warmup);
const INFLIGHT = Number(values.inflight);
const BATCH = 100;
const WORDS = 'the quick brown fox jumps over the lazy dog while seven wizards quietly hex jolly zebras and boxing kangaroos'.split(' ');

function makeDoc(round: string, i: number): FeedDocument {
  let body = '';
  for (let k = 0; body.length < 1000; k++) body += WORDS[(i + k * 7) % WORDS.length] + ' ';
  return { id: `${round}-doc-${i}`, attributes: { title: `Document ${i} of round ${round}`, body, content_type: 'text/plain' } };
}

const log = createLogger('bench-feed', {}, { level: 'warn' });
// info, not less: services say "ready" at info; nothing per document is logged at info
const childEnv = { LOG_LEVEL: 'info' };

async function main(): Promise<void> {
  const ns = await NatsServer.start();
  const dir = mkdtempSync(join(tmpdir(), 'esp-bench-feed-'));
  const procs: ChildService[] = [];
  const svc = async (entry: string, args: string[]) => {
    const s = await ChildService.start({ entry, args: ['--nats', ns.url, ...args], env: childEnv, startTimeoutMs: 60_000 });
    procs.push(s);
    return s;
  };
  const mw = await Middleware.connect({ name: 'bench-feed', servers: ns.url, logger: log });
  try {
    const pipeline = join(dir, 'pipeline.json');
    writeFileSync(pipeline, JSON.stringify({ pipelines: { standard: process.env['BENCH_EMPTY_PIPELINE'] ? [] : [{ type: 'utf8' }, { type: 'xml' }, { type: 'html' }, { type: 'normalize' }] }, default_pipeline: 'standard' }));
    await svc('apps/name-server/src/main.ts', []);
    // --timings: the item processors and the indexer log each batch (debug)
    const debugEnv = values.timings ? { LOG_LEVEL: 'debug' } : childEnv;
    const [indexer, distributor] = await Promise.all([
      ChildService.start({ entry: 'apps/indexer/src/main.ts', args: ['--nats', ns.url, '--data', join(dir, 'index'), '--collections', 'bench'], env: debugEnv, startTimeoutMs: 60_000 }).then((s) => {
        procs.push(s);
        return s;
      }),
      svc('apps/content-distributor/src/main.ts', ['--collections', 'bench']),
    ]);
    const ipArgs = (i: number) => ['--name', `bench-ip-${i}`, '--status-port', '0', '--pipeline-config', pipeline];
    const ips = await Promise.all(
      [1, 2].map((i) => ChildService.start({ entry: 'apps/item-processor/src/main.ts', args: ['--nats', ns.url, ...ipArgs(i)], env: debugEnv, startTimeoutMs: 60_000 })),
    );
    procs.push(...ips);
    const subject = RawBus.subject('bench', 'feed-baseline');
    const baseline = await svc('apps/indexer/src/bench-baseline-main.ts', ['--data', join(dir, 'baseline'), '--subject', subject]);
    const pids: Record<string, number> = { nats: ns.pid, bench: process.pid, indexer: indexer.pid, distributor: distributor.pid, baseline: baseline.pid };
    ips.forEach((p, i) => (pids[`ip${i + 1}`] = p.pid));
    const feedCpu: Record<string, number>[] = [];
    const baseCpu: Record<string, number>[] = [];
    // messages and bytes through nats-server (its /varz counters): what each side asks of the bus, whatever the load
    const varz = async (): Promise<{ msgs: number; bytes: number }> => {
      const v = (await (await fetch(`${ns.monitorUrl}/varz`)).json()) as { in_msgs: number; in_bytes: number };
      return { msgs: v.in_msgs, bytes: v.in_bytes };
    };
    const feedBus = { msgs: 0, bytes: 0 };
    const baseBus = { msgs: 0, bytes: 0 };
    const addBus = (into: { msgs: number; bytes: number }, a: { msgs: number; bytes: number }, b: { msgs: number; bytes: number }) => {
      into.msgs += b.msgs - a.msgs;
      into.bytes += b.bytes - a.bytes;
    };

    const feedRates: number[] = [];
    const baseRates: number[] = [];
    /** One round: the baseline, then the feed, on the same documents (ids of their own per round). */
    const runRound = async (label: string, ids: string, count: number, counted: boolean): Promise<void> => {
      // baseline: the same documents, plain requests, up to INFLIGHT batches at once
      const docs = Array.from({ length: count }, (_, i) => makeDoc(ids, i));
      let next = 0;
      const v0 = await varz();
      const c0 = cpuOf(pids);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: INFLIGHT }, async () => {
          for (;;) {
            const start = next;
            next += BATCH;
            if (start >= count) return;
            const reply = unpackValue(await mw.bus.request(subject, packValue(docs.slice(start, start + BATCH)), 30_000));
            if (reply !== true) throw new Error(`baseline write failed: ${String(reply)}`);
          }
        }),
      );
      const baseRate = count / ((performance.now() - t0) / 1000);
      const baseUsed = cpuDelta(c0, cpuOf(pids));
      const v0b = await varz();

      // the feeding chain: from the first document fed until the last is completed
      const client = await FeedingClient.open({ mw, collection: 'bench', log, batchSize: BATCH });
      const v1 = await varz();
      const c1 = cpuOf(pids);
      const t1 = performance.now();
      for (const d of docs) await client.feed(d);
      const { stats, unfinished } = await client.drain(600_000);
      const secs = (performance.now() - t1) / 1000;
      const feedUsed = cpuDelta(c1, cpuOf(pids));
      const v1b = await varz();
      if (unfinished.length || stats.completed !== count) throw new Error(`feed did not complete: ${JSON.stringify(stats)}`);
      const feedRate = count / secs;
      await client.close();
      if (counted) {
        baseRates.push(baseRate);
        baseCpu.push(baseUsed);
        addBus(baseBus, v0, v0b);
        feedRates.push(feedRate);
        feedCpu.push(feedUsed);
        addBus(feedBus, v1, v1b);
      }
      console.log(`${label}: baseline ${fmt(baseRate, 0)} docs/s, feed ${fmt(feedRate, 0)} docs/s, ratio ${fmt(feedRate / baseRate)} (${stats.batches} batches, ${stats.busyRetries} busy retries)${counted ? '' : ' [warm-up, not counted]'}`);
    };
    // every process of both sides runs a warm-up round first: what is measured is services that have been running,
    // not V8 compiling them (in a cold round each process spends up to a second of CPU in its optimizing compiler)
    if (WARMUP > 0) await runRound('warm-up', 'w', WARMUP, false);
    for (let round = 0; round < ROUNDS; round++) await runRound(`round ${round + 1}`, `r${round}`, DOCS, true);
    const feed = median(feedRates);
    const base = median(baseRates);
    const ratio = median(feedRates.map((f, i) => f / (baseRates[i] ?? NaN)));
    if (values.timings) {
      const batches = ips.flatMap((p) => p.logs.filter((l) => l['msg'] === 'batch processed'));
      const ms = (k: string) => median(batches.map((l) => Number(l[k])));
      console.log(`item processor timings (median of ${batches.length} batches): pipeline_ms=${ms('pipeline_ms')} forward_ms=${ms('forward_ms')}`);
      const commits = indexer.logs.filter((l) => l['msg'] === 'committed');
      console.log(
        `indexer commits (median of ${commits.length}): batches=${median(commits.map((l) => Number(l['batches'])))} write_ms=${median(commits.map((l) => Number(l['write_ms'])))}`,
      );
    }
    // CPU per batch of every process, summed over the rounds: what each side costs, whatever the load was
    const perBatch = (runs: Record<string, number>[]) => {
      const sum: Record<string, number> = {};
      for (const r of runs) for (const [k, v] of Object.entries(r)) sum[k] = (sum[k] ?? 0) + v;
      const batchCount = (runs.length * DOCS) / BATCH;
      const parts = Object.entries(sum).filter(([, v]) => v > 0);
      const total = parts.reduce((a, [, v]) => a + v, 0) / batchCount;
      return { total, text: `${fmt(total)} ms (${parts.map(([k, v]) => `${k} ${fmt(v / batchCount)}`).join(', ')})` };
    };
    const feedCpuPerBatch = perBatch(feedCpu);
    const baseCpuPerBatch = perBatch(baseCpu);
    console.log(`cpu per batch, feed: ${feedCpuPerBatch.text}`);
    console.log(`cpu per batch, baseline: ${baseCpuPerBatch.text}`);
    // messages published into nats-server per batch (requests and replies; heartbeats of the services included)
    const batchesRun = (ROUNDS * DOCS) / BATCH;
    const busText = (b: { msgs: number; bytes: number }) => `${fmt(b.msgs / batchesRun, 1)} messages, ${fmt(b.bytes / batchesRun / 1024, 0)} KiB`;
    console.log(`nats per batch, feed: ${busText(feedBus)}; baseline: ${busText(baseBus)}`);
    // what the ratio would be where both sides are CPU-bound on the same cores (no other load): baseline / feed CPU
    console.log(`feed_vs_baseline_by_cpu=${fmt(baseCpuPerBatch.total / feedCpuPerBatch.total)}`);
    console.log(`docs=${DOCS} batch=${BATCH} rounds=${ROUNDS} doc_bytes~1000 item_processors=2`);
    console.log(`baseline_docs_per_s=${fmt(base, 0)}`);
    console.log(`feed_docs_per_s=${fmt(feed, 0)} (goal >= 10000)`);
    console.log(`feed_vs_baseline=${fmt(ratio)}`);
  } finally {
    await mw.close();
    await Promise.all(procs.map((p) => p.stop(5000)));
    await ns.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
