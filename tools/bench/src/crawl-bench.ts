/**
 * bench:crawl — the crawler's figures. This part: PPDUP_ADD checks/s against a duplicate server (its own process,
 * SQLite store, group commit per batch), 80 % new checksums and 20 % duplicates, N adds in flight from one node
 * scheduler client; then the same against a duplicate server with a replica (answers wait for the replica).
 * Each figure is the median of --rounds rounds; the range is printed too.
 *
 *   npm run bench:crawl [-- --adds 100000 --inflight 1024 --rounds 3]
 *
 * Last line: ppdup_add_per_s=<checks/s, no replica>. Goal >= 50,000.
 * Not yet measured here: the crawl ratio (pages/s of the node schedulers against a plain fetch loop), because the
 * node schedulers do not crawl yet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FswcuDict, fswcuBytes } from '@esp/codecs';
import { crawlAddress, DuplicateServerClient } from '@esp/crawl-bus';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer } from '@esp/testing';
import { fmt, median } from './stats';

const { values } = parseArgs({
  options: {
    adds: { type: 'string', default: '100000' },
    inflight: { type: 'string', default: '1024' },
    rounds: { type: 'string', default: '3' },
  },
});
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

async function addRate(client: DuplicateServerClient, collection: string, base: number): Promise<number> {
  let next = 0;
  let duplicatesSeen = 0;
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
  if (duplicatesSeen < ADDS / 5 - 10) throw new Error(`expected about ${ADDS / 5} duplicates, saw ${duplicatesSeen}`);
  return rate;
}

const ns = await NatsServer.start({ jetstream: false });
const dir = mkdtempSync(join(tmpdir(), 'bench-crawl-'));
const children: ChildService[] = [];
const mw = await Middleware.connect({ name: 'bench-crawl', servers: ns.url });
try {
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
  for (let r = 0; r < ROUNDS; r++) {
    // a fresh collection per round: every round starts from the same store size
    await solo.setConfig(`c${r}`, config);
    await replicated.setConfig(`c${r}`, config);
    soloRates.push(await addRate(solo, `c${r}`, r * 10_000_000));
    replicaRates.push(await addRate(replicated, `c${r}`, r * 10_000_000));
    console.log(`round ${r + 1}: ${fmt(soloRates[r] ?? 0)} checks/s, with replica ${fmt(replicaRates[r] ?? 0)} checks/s`);
  }
  await solo.stop();
  await replicated.stop();
  const range = (xs: number[]): string => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;
  console.log(`PPDUP_ADD, ${ADDS} adds per round (20 % duplicates), ${INFLIGHT} in flight, ${ROUNDS} rounds:`);
  console.log(`  duplicate server alone:        median ${fmt(median(soloRates))} checks/s (range ${range(soloRates)})`);
  console.log(`  with a replica (acked first):  median ${fmt(median(replicaRates))} checks/s (range ${range(replicaRates)})`);
  console.log(`ppdup_add_replicated_per_s=${Math.round(median(replicaRates))}`);
  console.log(`ppdup_add_per_s=${Math.round(median(soloRates))}`);
} finally {
  await mw.close();
  for (const c of children) await c.stop();
  await ns.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
