/**
 * bench:crawl — the crawler's figures, each the median of --rounds rounds (the range is printed too):
 *
 * 1. Crawl: generated sites on 127.0.0.1 (--hosts x --pages, links within and across hosts, redirects, robots.txt
 *    exclusions, duplicate content) crawled by the multinode scheduler, a duplicate server and two node schedulers
 *    (all separate processes, no feeding) against a plain fetch loop over the same URLs with the same politeness
 *    (one request at a time per host, --delay-ms apart, all hosts in parallel). pages/s from the first to the last
 *    request; crawl_ratio = crawl pages/s / loop pages/s.
 * 2. PPDUP_ADD checks/s against a duplicate server (its own process, SQLite store, group commit per batch), 80 % new
 *    checksums and 20 % duplicates, N adds in flight from one node scheduler client; then the same against a
 *    duplicate server with a replica (answers wait for the replica).
 *
 *   npm run bench:crawl [-- --hosts 8 --pages 150 --delay-ms 5 --adds 100000 --inflight 1024 --rounds 3 --only dup|crawl]
 *   npm run bench:crawl -- --only crawl --node-data   # the node schedulers keep their state on disk (--data)
 *
 * Last line: ppdup_add_per_s=<checks/s, no replica>. Goals: crawl_ratio >= 0.8, ppdup_add_per_s >= 50,000.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FswcuDict, fswcuBytes } from '@esp/codecs';
import { crawlAddress, DuplicateServerClient } from '@esp/crawl-bus';
import { Middleware } from '@esp/middleware';
import { ChildService, LocalWebSites, NatsServer, sleep } from '@esp/testing';
import { cpuDelta, cpuMsOf, cpuOf } from './proc-cpu';
import { fmt, median } from './stats';

const { values } = parseArgs({
  options: {
    adds: { type: 'string', default: '100000' },
    inflight: { type: 'string', default: '1024' },
    rounds: { type: 'string', default: '3' },
    hosts: { type: 'string', default: '8' },
    pages: { type: 'string', default: '150' },
    'delay-ms': { type: 'string', default: '5' },
    only: { type: 'string', default: 'all' },
    verbose: { type: 'boolean', default: false },
    'node-data': { type: 'boolean', default: false },
  },
});
const HOSTS = Number(values.hosts);
const PAGES = Number(values.pages);
const DELAY_MS = Number(values['delay-ms']);
const ADDS = Number(values.adds);
const INFLIGHT = Number(values.inflight);
const ROUNDS = Number(values.rounds);
const CLUSTER = 'bench';
const config = new FswcuDict([[fswcuBytes('start_uris'), [fswcuBytes('http://127.0.0.1/')]]]);

function checksum(i: number): Uint8Array {
  const b = new Uint8Array(16);
  const v = new DataView(b.buffer);
  v.setUint32(0, i);
  v.setUint32(4, 0x9e3779b9 ^ i);
  v.setUint32(8, Math.imul(i, 2654435761) >>> 0);
  return b;
}

interface AddRound {
  rate: number;
  /** CPU microseconds per add: the duplicate server process(es), and this process (the node scheduler client). */
  serverUs: number;
  clientUs: number;
}

async function addRate(client: DuplicateServerClient, collection: string, base: number, serverPids: number[]): Promise<AddRound> {
  let next = 0;
  let duplicatesSeen = 0;
  const serverCpu0 = serverPids.reduce((a, pid) => a + cpuMsOf(pid), 0);
  const clientCpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: INFLIGHT }, async () => {
      while (next < ADDS) {
        const i = next++;
        // every fifth add repeats an earlier checksum under another URI: a duplicate
        const n = i % 5 === 4 && i > 10 ? base + i - 7 : base + i;
        const uri = `http://127.0.0.1:8080/site/${collection}/page-${i}.html`;
        const { ownUri } = await client.add(collection, uri, checksum(n));
        if (ownUri !== uri) duplicatesSeen++;
      }
    }),
  );
  const rate = ADDS / ((performance.now() - t0) / 1000);
  const clientCpu = process.cpuUsage(clientCpu0);
  const serverMs = serverPids.reduce((a, pid) => a + cpuMsOf(pid), 0) - serverCpu0;
  if (duplicatesSeen < ADDS / 5 - 10) throw new Error(`expected about ${ADDS / 5} duplicates, saw ${duplicatesSeen}`);
  return { rate, serverUs: (serverMs * 1000) / ADDS, clientUs: (clientCpu.user + clientCpu.system) / ADDS };
}

/** First-to-last request time over the expected URLs, once all have been fetched. */
async function crawlSpan(sites: LocalWebSites, started: () => number[]): Promise<number> {
  const deadline = Date.now() + 300_000;
  while ([...sites.expectedFetches].some((u) => !sites.hits.has(u))) {
    if (Date.now() > deadline) throw new Error(`crawl incomplete: ${sites.totalHits} of ${sites.expectedFetches.size}`);
    await sleep(20);
  }
  const times = started();
  return (Math.max(...times) - Math.min(...times)) / 1000;
}

/** Request times per URL, recorded by wrapping the sites' hit counter (robots.txt aside). */
function recordTimes(sites: LocalWebSites): () => number[] {
  const times: number[] = [];
  const byHost = new Map<string, number[]>();
  const set = sites.hits.set.bind(sites.hits);
  sites.hits.set = (k: string, v: number) => {
    if (!k.endsWith('/robots.txt')) {
      const t = performance.now();
      times.push(t);
      const host = new URL(k).host;
      const list = byHost.get(host) ?? [];
      list.push(t);
      byHost.set(host, list);
    }
    return set(k, v);
  };
  gapsOf.set(times, byHost);
  return () => times;
}

const gapsOf = new WeakMap<number[], Map<string, number[]>>();

/** Per host: requests, first and last request (ms from the first of all), and the long pauses (over 3x the median gap). */
function hostTimeline(times: number[]): string {
  const hosts = [...(gapsOf.get(times)?.entries() ?? [])];
  const t0 = Math.min(...times);
  const mg = medianGap(times);
  return hosts
    .map(([host, list]) => {
      const long = list.slice(1).map((t, i) => t - (list[i] as number)).filter((g) => g > 3 * mg);
      return `${host.split(':')[1]}: ${list.length} req ${fmt((list[0] as number) - t0, 0)}–${fmt((list.at(-1) as number) - t0, 0)} ms, ${long.length} pauses (${fmt(long.reduce((a, b) => a + b, 0), 0)} ms)`;
    })
    .join('\n    ');
}

/** Median time between two requests to the same host (ms): the delay plus each side's per-request overhead. */
function medianGap(times: number[]): number {
  const gaps: number[] = [];
  for (const list of gapsOf.get(times)?.values() ?? []) for (let i = 1; i < list.length; i++) gaps.push((list[i] as number) - (list[i - 1] as number));
  return median(gaps);
}

/** The baseline: every expected URL, host by host in parallel, one request at a time per host, DELAY_MS apart. */
async function plainLoop(sites: LocalWebSites): Promise<{ rate: number; gap: number; cpuPerPage: number }> {
  const times = recordTimes(sites);
  const cpu0 = process.cpuUsage();
  const byHost = new Map<string, string[]>();
  for (const u of sites.expectedFetches) {
    const host = new URL(u).host;
    byHost.set(host, [...(byHost.get(host) ?? []), u]);
  }
  await Promise.all(
    [...byHost.values()].map(async (urls) => {
      for (const u of urls) {
        const res = await fetch(u, { redirect: 'manual' });
        await res.arrayBuffer();
        await sleep(DELAY_MS);
      }
    }),
  );
  const rate = sites.expectedFetches.size / (await crawlSpan(sites, times));
  const cpu = process.cpuUsage(cpu0);
  if (values.verbose) console.log(`  plain loop by host:\n    ${hostTimeline(times())}`);
  return { rate, gap: medianGap(times()), cpuPerPage: (cpu.user + cpu.system) / 1000 / sites.expectedFetches.size };
}

interface CrawlRound {
  crawl: number;
  loop: number;
  crawlGap: number;
  loopGap: number;
  /** CPU ms per page of each process of the crawl (the bench's own is the sites' HTTP servers) */
  crawlCpu: Record<string, number>;
  loopCpu: number;
  /** messages published into nats-server per page (its /varz counter) */
  natsMsgs: number;
}

let monitorUrl = '';
async function varz(): Promise<{ msgs: number }> {
  const v = (await (await fetch(`${monitorUrl}/varz`)).json()) as { in_msgs: number };
  return { msgs: v.in_msgs };
}

async function crawlRound(natsUrl: string, natsPid: number, dir: string, round: number): Promise<CrawlRound> {
  const loopSites = await LocalWebSites.start({ hosts: HOSTS, pagesPerHost: PAGES });
  const { rate: loop, gap: loopGap, cpuPerPage: loopCpu } = await plainLoop(loopSites);
  await loopSites.stop();
  const sites = await LocalWebSites.start({ hosts: HOSTS, pagesPerHost: PAGES });
  const times = recordTimes(sites);
  const cluster = `crawl${round}`;
  const config = join(dir, `crawl${round}.xml`);
  writeFileSync(
    config,
    `<CrawlerConfig><DomainSpecification name="web">
      <attrib name="start_uris" type="list-string">${sites.startUris.map((u) => `<member>${u}</member>`).join('')}</attrib>
      <attrib name="delay" type="real">${DELAY_MS / 1000}</attrib>
    </DomainSpecification></CrawlerConfig>`,
  );
  const procs: ChildService[] = [];
  const svc = async (entry: string, args: string[]): Promise<void> => {
    procs.push(await ChildService.start({ entry, args: ['--nats', natsUrl, '--cluster', cluster, ...args], env: { LOG_LEVEL: 'info' } }));
  };
  const pids = (): Record<string, number> => ({ nats: natsPid, dup: procs[0]?.pid ?? 0, mns: procs[1]?.pid ?? 0, n1: procs[2]?.pid ?? 0, n2: procs[3]?.pid ?? 0 });
  try {
    await svc('apps/duplicate-server/src/main.ts', ['--id', 'dup', '--data', join(dir, `crawl-dup-${round}`)]);
    await svc('apps/multinode-scheduler/src/main.ts', ['--config', config, '--min-nodes', '2']);
    const nodeData = values['node-data'] ? ['--data', join(dir, `crawl-ns-${round}`)] : [];
    await svc('apps/node-scheduler/src/main.ts', ['--id', 'n1', '--dup', 'dup', '--no-feed', '--ip-key', 'ip-port', ...nodeData]);
    await svc('apps/node-scheduler/src/main.ts', ['--id', 'n2', '--dup', 'dup', '--no-feed', '--ip-key', 'ip-port', ...nodeData]);
    // from the last start on: the node schedulers' own start-up (about 0.5 s of CPU each) is not crawling
    const cpu0 = cpuOf(pids());
    const own0 = process.cpuUsage();
    const varz0 = await varz();
    const crawl = sites.expectedFetches.size / (await crawlSpan(sites, times));
    const own = process.cpuUsage(own0);
    const pages = sites.expectedFetches.size;
    const crawlCpu = Object.fromEntries(Object.entries(cpuDelta(cpu0, cpuOf(pids()))).map(([k, ms]) => [k, ms / pages]));
    crawlCpu.sites = (own.user + own.system) / 1000 / pages;
    const varz1 = await varz();
    const natsMsgs = (varz1.msgs - varz0.msgs) / pages;
    const twice = [...sites.expectedFetches].filter((u) => sites.hits.get(u) !== 1).length;
    const excluded = [...sites.excluded].filter((u) => sites.hits.has(u)).length;
    if (twice > 0 || excluded > 0) throw new Error(`crawl wrong: ${twice} pages fetched more than once, ${excluded} excluded pages fetched`);
    if (values.verbose) console.log(`  crawl by host:\n    ${hostTimeline(times())}`);
    return { crawl, loop, crawlGap: medianGap(times()), loopGap, crawlCpu, loopCpu, natsMsgs };
  } finally {
    for (const p of procs) await p.stop();
    await sites.stop();
  }
}

const range = (xs: number[]): string => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;

function printCrawl(crawlRates: number[], loopRates: number[], ratios: number[]): void {
  if (ratios.length === 0) return;
  console.log(`Crawl of ${HOSTS} hosts x ${PAGES} pages (delay ${DELAY_MS} ms per host), 2 node schedulers, ${ROUNDS} rounds:`);
  console.log(`  crawl:      median ${fmt(median(crawlRates))} pages/s (range ${range(crawlRates)})`);
  console.log(`  plain loop: median ${fmt(median(loopRates))} pages/s (range ${range(loopRates)})`);
  console.log(`crawl_ratio=${fmt(median(ratios))} (range ${range(ratios)})`);
}

const ns = await NatsServer.start({ jetstream: false });
monitorUrl = ns.monitorUrl;
const dir = mkdtempSync(join(tmpdir(), 'bench-crawl-'));
const children: ChildService[] = [];
const mw = await Middleware.connect({ name: 'bench-crawl', servers: ns.url });
try {
  const crawlRates: number[] = [];
  const loopRates: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < (values.only === 'dup' ? 0 : ROUNDS); r++) {
    const { crawl, loop, crawlGap, loopGap, crawlCpu, loopCpu, natsMsgs } = await crawlRound(ns.url, ns.pid, dir, r);
    crawlRates.push(crawl);
    loopRates.push(loop);
    ratios.push(crawl / loop);
    console.log(
      `crawl round ${r + 1}: crawl ${fmt(crawl)} pages/s, plain loop ${fmt(loop)} pages/s, ratio ${fmt(crawl / loop)}; ` +
        `median time between two requests to a host: crawl ${fmt(crawlGap)} ms, plain loop ${fmt(loopGap)} ms`,
    );
    const total = Object.values(crawlCpu).reduce((a, b) => a + b, 0);
    console.log(
      `  CPU per page: crawl ${fmt(total, 3)} ms (${Object.entries(crawlCpu).map(([k, ms]) => `${k} ${fmt(ms, 3)}`).join(', ')}), plain loop ${fmt(loopCpu, 3)} ms (client and sites in one process); ${fmt(natsMsgs, 1)} NATS messages per page`,
    );
  }
  if (values.only === 'crawl') {
    printCrawl(crawlRates, loopRates, ratios);
  } else await dupRounds();
  async function dupRounds(): Promise<void> {
    const start = async (id: string, extra: string[] = []): Promise<void> => {
      children.push(
        await ChildService.start({
          entry: 'apps/duplicate-server/src/main.ts',
          args: ['--nats', ns.url, '--cluster', CLUSTER, '--id', id, '--data', join(dir, id), '--replica-timeout-ms', '60000', ...extra],
          env: { LOG_LEVEL: 'info' },
        }),
      );
    };
    await start('solo');
    await start('replica');
    await start('primary', ['--replica', 'replica']);
    const client = async (server: string, node: string): Promise<DuplicateServerClient> =>
      DuplicateServerClient.start(mw.bus, {
        self: { cluster: CLUSTER, role: 'ns', id: node },
        server: crawlAddress({ cluster: CLUSTER, role: 'dup', id: server }),
        node,
        timeoutMs: 120_000,
      });
    const solo = await client('solo', 'bench-node-1');
    const replicated = await client('primary', 'bench-node-2');
    const soloRates: number[] = [];
    const replicaRates: number[] = [];
    const soloServerUs: number[] = [];
    const soloClientUs: number[] = [];
    const replicaServerUs: number[] = [];
    const replicaClientUs: number[] = [];
    const [soloPid, replicaPid, primaryPid] = children.map((c) => c.pid);
    for (let r = 0; r < ROUNDS; r++) {
      // a fresh collection per round: every round starts from the same store size
      await solo.setConfig(`c${r}`, config);
      await replicated.setConfig(`c${r}`, config);
      const a = await addRate(solo, `c${r}`, r * 10_000_000, [soloPid ?? 0]);
      const b = await addRate(replicated, `c${r}`, r * 10_000_000, [primaryPid ?? 0, replicaPid ?? 0]);
      soloRates.push(a.rate);
      soloServerUs.push(a.serverUs);
      soloClientUs.push(a.clientUs);
      replicaRates.push(b.rate);
      replicaServerUs.push(b.serverUs);
      replicaClientUs.push(b.clientUs);
      console.log(
        `round ${r + 1}: ${fmt(a.rate)} checks/s (CPU/add: server ${fmt(a.serverUs, 1)} us, client ${fmt(a.clientUs, 1)} us), ` +
          `with replica ${fmt(b.rate)} checks/s (CPU/add: primary + replica ${fmt(b.serverUs, 1)} us, client ${fmt(b.clientUs, 1)} us)`,
      );
    }
    await solo.stop();
    await replicated.stop();
    printCrawl(crawlRates, loopRates, ratios);
    console.log(`PPDUP_ADD, ${ADDS} adds per round (20 % duplicates), ${INFLIGHT} in flight, ${ROUNDS} rounds:`);
    console.log(`  duplicate server alone:        median ${fmt(median(soloRates))} checks/s (range ${range(soloRates)})`);
    console.log(`  with a replica (acked first):  median ${fmt(median(replicaRates))} checks/s (range ${range(replicaRates)})`);
    console.log(`  CPU per add, alone:            server ${fmt(median(soloServerUs), 1)} us, client ${fmt(median(soloClientUs), 1)} us`);
    console.log(`  CPU per add, with a replica:   primary + replica ${fmt(median(replicaServerUs), 1)} us, client ${fmt(median(replicaClientUs), 1)} us`);
    console.log(`ppdup_add_replicated_per_s=${Math.round(median(replicaRates))}`);
    console.log(`ppdup_add_per_s=${Math.round(median(soloRates))}`);
  }
} finally {
  await mw.close();
  for (const c of children) await c.stop();
  await ns.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
