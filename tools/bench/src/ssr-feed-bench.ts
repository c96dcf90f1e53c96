/**
 * bench:ssr-feed — what keeping feeding sessions in session replication costs. The same feed (1 KB
 * documents, batches of 100) through two content distributors, two item processors, an indexer and a name server
 * (separate processes, a fresh chain per round), with --session-replication on and off, alternating rounds. The
 * session is on the distributor that has the item processors; with replication on, every batch goes into the
 * session artifact, acknowledged by the other distributor (its SSR buddy), before the client hears it was accepted.
 *
 *   npm run bench:ssr-feed [-- --docs 6000 --rounds 2]
 *
 * Prints per round docs/s and CPU ms per 1000 documents (all chain processes and the distributors alone, from
 * /proc: independent of how busy the shared machine is); last line ssr_feed_rate_ratio=<on/off docs/s, median of
 * the per-pair ratios>, before it ssr_feed_cpu_ratio (on/off CPU per document, all processes).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { cpuDelta, cpuOf } from './proc-cpu';
import { fmt, median } from './stats';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '6000' }, rounds: { type: 'string', default: '2' } } });
const DOCS = Number(values.docs);
const ROUNDS = Number(values.rounds);
const log = createLogger('bench-ssr-feed', {}, { level: 'error' });
const BODY = 'x'.repeat(1000);
const doc = (i: number): FeedDocument => ({ id: `d-${i}`, attributes: { title: `document ${i}`, body: BODY, content_type: 'text/plain' } });

interface Round {
  mode: 'on' | 'off';
  docsPerS: number;
  cpuPer1000: number;
  distributorCpuPer1000: number;
}

async function round(ns: NatsServer, mode: 'on' | 'off'): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'esp-bench-ssr-feed-'));
  const procs: ChildService[] = [];
  const svc = async (entry: string, args: string[]) => {
    const s = await ChildService.start({ entry, args: ['--nats', ns.url, ...args], env: { LOG_LEVEL: 'info' }, startTimeoutMs: 60_000 });
    procs.push(s);
    return s;
  };
  const distributor = (node: number) => svc('apps/content-distributor/src/main.ts', ['--node-id', String(node), '--collections', 'bench', '--session-replication', mode]);
  const mw = await Middleware.connect({ name: `bench-ssr-feed-${mode}`, servers: ns.url, logger: log });
  try {
    const pipeline = join(dir, 'pipeline.json');
    writeFileSync(pipeline, JSON.stringify({ pipelines: { standard: [{ type: 'utf8' }, { type: 'normalize' }] }, default_pipeline: 'standard' }));
    await svc('apps/name-server/src/main.ts', []);
    const [, d0] = await Promise.all([svc('apps/indexer/src/main.ts', ['--data', join(dir, 'index'), '--collections', 'bench']), distributor(0)]);
    await Promise.all([1, 2].map((i) => svc('apps/item-processor/src/main.ts', ['--name', `bench-ip-${i}`, '--status-port', '0', '--pipeline-config', pipeline])));
    await waitFor(() => d0.logs.filter((l) => l['msg'] === 'item processor registered').length >= 2, { what: 'item processors on distributor 0', timeoutMs: 30_000 });
    await distributor(1);
    if (mode === 'on') await waitFor(() => d0.logs.some((l) => l['msg'] === 'reshape' && String(l['view']).includes('cd-1')), { what: 'distributor 0 has its SSR buddy', timeoutMs: 15_000 });
    const client = await FeedingClient.open({ mw, collection: 'bench', log, batchSize: 100 });
    const pids = Object.fromEntries(procs.map((p, i) => [String(i), p.pid]));
    const cdPids = { d0: d0.pid };
    const cpu0 = cpuOf(pids);
    const cd0 = cpuOf(cdPids);
    const t0 = performance.now();
    for (let i = 0; i < DOCS; i++) await client.feed(doc(i));
    const { stats, unfinished } = await client.drain(300_000);
    const s = (performance.now() - t0) / 1000;
    const cpu = Object.values(cpuDelta(cpu0, cpuOf(pids))).reduce((a, b) => a + b, 0);
    const cdCpu = Object.values(cpuDelta(cd0, cpuOf(cdPids))).reduce((a, b) => a + b, 0);
    if (stats.completed !== DOCS || unfinished.length) throw new Error(`round ${mode}: ${stats.completed} of ${DOCS} completed, ${unfinished.length} unfinished`);
    await client.close();
    return { mode, docsPerS: DOCS / s, cpuPer1000: (cpu / DOCS) * 1000, distributorCpuPer1000: (cdCpu / DOCS) * 1000 };
  } finally {
    await mw.close().catch(() => undefined);
    await Promise.all(procs.map((p) => p.kill()));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const ns = await NatsServer.start();
  const rounds: Round[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      // alternate the order, so that neither mode always runs on a warmer machine
      for (const mode of r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const x = await round(ns, mode);
        rounds.push(x);
        console.log(`round ${r + 1} ssr ${mode}: ${fmt(x.docsPerS, 0)} docs/s, CPU ${fmt(x.cpuPer1000, 0)} ms per 1000 docs (distributor ${fmt(x.distributorCpuPer1000, 0)})`);
      }
    }
  } finally {
    await ns.cleanup();
  }
  const pairs = Array.from({ length: ROUNDS }, (_, r) => {
    const on = rounds.find((x, i) => x.mode === 'on' && Math.floor(i / 2) === r) as Round;
    const off = rounds.find((x, i) => x.mode === 'off' && Math.floor(i / 2) === r) as Round;
    return { rate: on.docsPerS / off.docsPerS, cpu: on.cpuPer1000 / off.cpuPer1000, cd: on.distributorCpuPer1000 / off.distributorCpuPer1000 };
  });
  console.log(`docs=${DOCS} rounds=${ROUNDS} distributors=2 item_processors=2 batch=100 body=1KB`);
  console.log(`ssr_feed_distributor_cpu_ratio=${fmt(median(pairs.map((p) => p.cd)), 2)}`);
  console.log(`ssr_feed_cpu_ratio=${fmt(median(pairs.map((p) => p.cpu)), 2)}`);
  console.log(`ssr_feed_rate_ratio=${fmt(median(pairs.map((p) => p.rate)), 2)}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
