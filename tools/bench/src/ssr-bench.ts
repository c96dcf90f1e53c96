/**
 * bench:ssr — SSR artifact updates/s with buddy replication against the same updates without it, in one run, on
 * the same nats-server: three 3-instance clusters of ssr-node processes (no replication; asynchronous replication;
 * replication acknowledged by the buddy before the update returns), rounds alternating. Then a 5-instance cluster
 * in ack mode with 10,000 artifacts: one instance killed (SIGKILL), load-request latency of the first reads of its
 * artifacts on their new homes (lazy reactivation), and the repair time until every artifact again has one active
 * copy and a replica on another instance.
 *
 *   npm run bench:ssr [-- --updates 20000 --rounds 3 --artifacts 2000 --inflight 64 --repair-artifacts 10000]
 *
 * Last line: ssr_update_ratio=<ack-mode updates/s ÷ no-replication updates/s> (ack mode is what the content
 * distributor will use). Goal >= 0.5.
 */
import { parseArgs } from 'node:util';
import { Middleware } from '@esp/middleware';
import { SsrClient } from '@esp/ssr';
import { ChildService, NatsServer } from '@esp/testing';
import { fmt, median, percentile } from './stats';

const { values } = parseArgs({
  options: {
    updates: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    artifacts: { type: 'string', default: '2000' },
    inflight: { type: 'string', default: '64' },
    'repair-artifacts': { type: 'string', default: '10000' },
  },
});
const UPDATES = Number(values.updates);
const ROUNDS = Number(values.rounds);
const ARTIFACTS = Number(values.artifacts);
const INFLIGHT = Number(values.inflight);
const REPAIR_ARTIFACTS = Number(values['repair-artifacts']);
// a feeding session's state: ids, collection, guarantees, a few operation ids in flight
const BODY = new TextEncoder().encode(JSON.stringify({ collection: 'news', guarantees: ['ordered'], highest: 123456, inflight: [123457, 123458], callbacks: [] }).padEnd(300, ' '));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function node(ns: NatsServer, cluster: string, name: string, extra: string[]): Promise<ChildService> {
  return ChildService.start({
    entry: 'apps/ssr-node/src/main.ts',
    args: ['--nats', ns.url, '--cluster', cluster, '--name', name, '--heartbeat-ms', '100', '--fail-after-ms', '1000', '--grace-ms', '1500', ...extra],
    env: { LOG_LEVEL: 'info' },
    startTimeoutMs: 60_000,
  });
}

async function waitMembers(c: SsrClient, names: string[]): Promise<void> {
  for (;;) {
    const s = await Promise.all(names.map((n) => c.stats(n).catch(() => undefined)));
    if (c.view.members.length === names.length && s.every((x) => x && x['members'] === names.length && x['expatReady'])) return;
    await sleep(100);
  }
}

async function updates(c: SsrClient, n: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: INFLIGHT }, async () => {
      while (next < n) {
        const i = next++;
        await c.put(`a${i % ARTIFACTS}`, BODY);
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

async function main(): Promise<void> {
  const ns = await NatsServer.start({ jetstream: false });
  const mw = await Middleware.connect({ name: 'bench-ssr', servers: ns.url });
  const procs: ChildService[] = [];
  try {
    // ---------------------------------------------------------------- throughput
    const modes: [string, string[]][] = [
      ['none', ['--no-replication']],
      ['async', []],
      ['ack', ['--wait-for-ack']],
    ];
    const clients = new Map<string, SsrClient>();
    for (const [mode, extra] of modes) {
      const names = ['b1', 'b2', 'b3'];
      for (const n of names) procs.push(await node(ns, `bench-${mode}`, n, extra));
      const c = await SsrClient.connect(mw.bus, `bench-${mode}`, { failAfterMs: 1000, suspectAfterMs: 300 });
      await waitMembers(c, names);
      await updates(c, ARTIFACTS); // creates every artifact, warms up
      clients.set(mode, c);
    }
    const tp = new Map<string, number[]>(modes.map(([m]) => [m, []]));
    for (let r = 0; r < ROUNDS; r++) for (const [mode] of modes) (tp.get(mode) as number[]).push(await updates(clients.get(mode) as SsrClient, UPDATES));
    for (const c of clients.values()) await c.close();
    await Promise.all(procs.splice(0).map((p) => p.stop()));

    // ---------------------------------------------------------------- repair after one failure, load latency
    const names = ['r1', 'r2', 'r3', 'r4', 'r5'];
    for (const n of names) procs.push(await node(ns, 'bench-repair', n, ['--wait-for-ack', '--reactivate-low-ms', '2000', '--reactivate-high-ms', '5000']));
    const c = await SsrClient.connect(mw.bus, 'bench-repair', { failAfterMs: 1000, suspectAfterMs: 300 });
    await waitMembers(c, names);
    let next = 0;
    await Promise.all(
      Array.from({ length: INFLIGHT }, async () => {
        while (next < REPAIR_ARTIFACTS) await c.put(`s${next++}`, BODY);
      }),
    );
    const victim = 'r3';
    const theirs = Array.from({ length: REPAIR_ARTIFACTS }, (_, i) => `s${i}`).filter((id) => c.homeOf(id) === victim);
    const t0 = Date.now();
    await (procs[2] as ChildService).kill();
    const live = names.filter((n) => n !== victim);
    while (c.view.members.length !== 4) await sleep(20);
    await waitMembers(c, live);
    const detectMs = Date.now() - t0;
    // first reads of the dead instance's sessions on their new homes: each is a load request (2.13)
    const lat: number[] = [];
    for (const id of theirs.slice(0, 300)) {
      const s = performance.now();
      if (!(await c.get(id))) throw new Error(`${id} lost`);
      lat.push(performance.now() - s);
    }
    let repairMs = 0;
    for (;;) {
      const cen = (await Promise.all(live.map(async (n) => (await c.census(n)).map((x) => ({ n, x }))))).flat();
      const act = new Map<string, string[]>();
      const rep = new Map<string, string[]>();
      for (const { n, x } of cen) (x.where === 'active' ? act : rep).set(x.id, [...((x.where === 'active' ? act : rep).get(x.id) ?? []), n]);
      let ok = 0;
      for (let i = 0; i < REPAIR_ARTIFACTS; i++) {
        const a = act.get(`s${i}`) ?? [];
        if (a.length === 1 && (rep.get(`s${i}`) ?? []).some((n) => n !== a[0])) ok++;
      }
      if (ok === REPAIR_ARTIFACTS) {
        repairMs = Date.now() - t0;
        break;
      }
      if (Date.now() - t0 > 120_000) throw new Error(`not repaired after 120 s: ${ok}/${REPAIR_ARTIFACTS}`);
      await sleep(200);
    }
    const nodeStats = await Promise.all(live.map((n) => c.stats(n)));
    const nodeP50 = median(nodeStats.map((s) => Number(s['loadP50'])).filter((x) => x > 0));
    await c.close();

    const sorted = [...lat].sort((a, b) => a - b);
    const m = (k: string): number => median(tp.get(k) ?? []);
    const rounds = (k: string): string => (tp.get(k) ?? []).map((x) => fmt(x, 0)).join(', ');
    console.log(`rounds=${ROUNDS} updates_per_round=${UPDATES} artifacts=${ARTIFACTS} inflight=${INFLIGHT} body_bytes=${BODY.length} instances=3 (separate processes)`);
    console.log(`no replication:          ${fmt(m('none'), 0)} updates/s   (rounds: ${rounds('none')})`);
    console.log(`async replication:       ${fmt(m('async'), 0)} updates/s   (rounds: ${rounds('async')})  ratio ${fmt(m('async') / m('none'))}`);
    console.log(`ack (buddy has it):      ${fmt(m('ack'), 0)} updates/s   (rounds: ${rounds('ack')})  ratio ${fmt(m('ack') / m('none'))}`);
    console.log(`repair after killing 1 of 5 (${REPAIR_ARTIFACTS} artifacts, ${theirs.length} homed on it): failure detected and view agreed in ${detectMs} ms, two copies of every artifact again after ${repairMs} ms`);
    console.log(`load request (first read of a dead instance's session on its new home, ${lat.length} reads): client p50 ${fmt(percentile(sorted, 50))} ms, p99 ${fmt(percentile(sorted, 99))} ms; instance-side load p50 ${fmt(nodeP50)} ms`);
    console.log(`ssr_async_ratio=${fmt(m('async') / m('none'))}`);
    console.log(`ssr_repair_ms=${repairMs}`);
    console.log(`ssr_load_p50_ms=${fmt(percentile(sorted, 50))}`);
    console.log(`ssr_update_ratio=${fmt(m('ack') / m('none'))}`);
  } finally {
    await Promise.all(procs.map((p) => p.kill()));
    await mw.close();
    await ns.cleanup();
  }
}

await main();
process.exit(0);
