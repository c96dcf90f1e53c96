/**
 * bench:ppp — requests/s through the PPP queue (client → queue → worker → queue → client, RFC 6 frames on NATS)
 * against a raw NATS queue-group request/reply (client → worker → client), same payload, same worker count, same
 * nats-server, rounds alternating; then the measured dead-worker detection time against interval × liveness.
 * The workers (both kinds) and the PPP queue run in their own processes, as they would in production (this file,
 * started again with --role workers / --role queue); the client side runs here.
 *
 *   npm run bench:ppp [-- --requests 20000 --rounds 5 --workers 8 --inflight 64 --hb 1000 --liveness 3 --trials 3]
 *
 * Last line: ppp_vs_raw=<PPP requests/s ÷ raw requests/s>. Goal >= 0.6.
 */
import { parseArgs } from 'node:util';
import { Middleware, RawBus } from '@esp/middleware';
import { PppClient, PppQueue, PppWorker, type QueueAction } from '@esp/ppp';
import { ChildService, NatsServer } from '@esp/testing';
import { fmt, median } from './stats';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    workers: { type: 'string', default: '8' },
    inflight: { type: 'string', default: '64' },
    hb: { type: 'string', default: '1000' },
    liveness: { type: 'string', default: '3' },
    trials: { type: 'string', default: '3' },
    role: { type: 'string', default: 'bench' },
    nats: { type: 'string', default: '' },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const WORKERS = Number(values.workers);
const INFLIGHT = Number(values.inflight);
const HB = Number(values.hb);
const LIVENESS = Number(values.liveness);
const TRIALS = Number(values.trials);

// a realistic small request: a document id and a 200-byte body
const PAYLOAD = new TextEncoder().encode(`http://example.com/news/2026/11/22/article-000123.html ${'x'.repeat(200)}`);

async function throughput(call: () => Promise<unknown>, n: number, inflight: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (next++ < n) await call();
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

async function detection(bus: RawBus): Promise<number[]> {
  const times: number[] = [];
  for (let t = 0; t < TRIALS; t++) {
    const service = `bench-dead-${t}`;
    let deadAt = 0;
    let ready = (): void => undefined;
    const isReady = new Promise<void>((r) => (ready = r));
    let dead = (): void => undefined;
    const isDead = new Promise<void>((r) => (dead = r));
    const onAction = (a: QueueAction): void => {
      if (a.type === 'worker-ready') ready();
      if (a.type === 'worker-dead') {
        deadAt = performance.now();
        dead();
      }
    };
    const queue = await PppQueue.start(bus, { service, heartbeatMs: HB, liveness: LIVENESS, onAction });
    const worker = await PppWorker.start(bus, (c) => c, { service, heartbeatMs: HB, liveness: LIVENESS });
    await isReady;
    // let it live a while at a random phase of the heartbeat cycle, then go silent as a crash would
    await new Promise((r) => setTimeout(r, HB * (1 + Math.random())));
    const silentAt = performance.now();
    await worker.stop();
    await isDead;
    times.push(deadAt - silentAt);
    await queue.stop();
  }
  return times;
}

const RAW_SUBJECT = RawBus.subject('bench', 'ppp-raw');

/** Child role: WORKERS raw queue-group responders and WORKERS PPP workers, all echoing. */
async function serveWorkers(): Promise<void> {
  const mw = await Middleware.connect({ name: 'bench-workers', servers: values.nats });
  for (let i = 0; i < WORKERS; i++) {
    await mw.bus.subscribe(RAW_SUBJECT, (m) => m.respond(m.data), { queue: 'bench-raw' });
    await PppWorker.start(mw.bus, (c) => c, { service: 'bench', id: `bench-${i}` });
  }
  console.log(JSON.stringify({ msg: 'ready' }));
}

/** Child role: the PPP queue, logging once all workers are ready. */
async function serveQueue(): Promise<void> {
  const mw = await Middleware.connect({ name: 'bench-queue', servers: values.nats });
  const queue = await PppQueue.start(mw.bus, {
    service: 'bench',
    maxPending: INFLIGHT * 2,
    onAction: (a) => {
      if (a.type === 'worker-ready' && queue.machine.stats.workers === WORKERS) console.log(JSON.stringify({ msg: 'workers' }));
    },
  });
  console.log(JSON.stringify({ msg: 'ready' }));
}

async function main(): Promise<void> {
  const ns = await NatsServer.start({ jetstream: false });
  const client = await Middleware.connect({ name: 'bench-client', servers: ns.url });
  const broker = await Middleware.connect({ name: 'bench-detection', servers: ns.url });
  const self = 'tools/bench/src/ppp-bench.ts';
  const common = ['--nats', ns.url, '--workers', String(WORKERS), '--inflight', String(INFLIGHT)];
  const env = { ESP_CHILD_LOG_LEVEL: 'warn' };
  const queueProc = await ChildService.start({ entry: self, args: ['--role', 'queue', ...common], env });
  const workersProc = await ChildService.start({ entry: self, args: ['--role', 'workers', ...common], env });
  try {
    const rawCall = (): Promise<Uint8Array> => client.bus.request(RAW_SUBJECT, PAYLOAD, 5000);
    while (!queueProc.logs.some((l) => l['msg'] === 'workers')) await new Promise((r) => setTimeout(r, 10));
    const ppp = new PppClient(client.bus, { service: 'bench', timeoutMs: 5000, retries: 0 });
    const pppCall = (): Promise<Uint8Array[]> => ppp.request(PAYLOAD);

    await throughput(rawCall, 3000, INFLIGHT);
    await throughput(pppCall, 3000, INFLIGHT);
    const rawTp: number[] = [];
    const pppTp: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      rawTp.push(await throughput(rawCall, REQUESTS, INFLIGHT));
      pppTp.push(await throughput(pppCall, REQUESTS, INFLIGHT));
    }
    await workersProc.stop();
    await queueProc.stop();

    const times = await detection(broker.bus);
    const expected = HB * LIVENESS;
    const ratio = median(pppTp) / median(rawTp);
    console.log(`rounds=${ROUNDS} requests_per_round=${REQUESTS} workers=${WORKERS} inflight=${INFLIGHT} payload_bytes=${PAYLOAD.length}`);
    console.log(`raw queue group: ${fmt(median(rawTp), 0)} requests/s   (rounds: ${rawTp.map((x) => fmt(x, 0)).join(', ')})`);
    console.log(`ppp queue:       ${fmt(median(pppTp), 0)} requests/s   (rounds: ${pppTp.map((x) => fmt(x, 0)).join(', ')})`);
    console.log(
      `dead-worker detection: ${times.map((t) => fmt(t, 0)).join(', ')} ms (median ${fmt(median(times), 0)} ms) against interval × liveness = ${HB} × ${LIVENESS} = ${expected} ms (window ${expected - HB}..${expected + HB} ms)`,
    );
    console.log(`ppp_detection_ms=${fmt(median(times), 0)}`);
    console.log(`ppp_vs_raw=${fmt(ratio)}`);
  } finally {
    await workersProc.kill();
    await queueProc.kill();
    await client.close();
    await broker.close();
    await ns.cleanup();
  }
}

// children exit cleanly on SIGTERM (so that ESP_CHILD_NODE_ARGS=--cpu-prof profiles get written)
if (values.role !== 'bench') process.once('SIGTERM', () => process.exit(0));
if (values.role === 'workers') await serveWorkers();
else if (values.role === 'queue') await serveQueue();
else await main();
