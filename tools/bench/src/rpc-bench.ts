/**
 * bench:rpc — a middleware call against a raw NATS request/reply with the same payload, in the same run, against the
 * same nats-server: sequential latency (p50/p99) and throughput with 64 calls in flight. Raw and middleware rounds
 * alternate so that machine noise hits both alike; the headline is the ratio.
 *
 *   npm run bench:rpc [-- --calls 4000 --rounds 5]
 *
 * Last line: rpc_latency_ratio=<middleware p50 / raw p50>. Goals: latency ratio <= 1.1, throughput ratio >= 0.75.
 *
 * The baseline is stock nats.js on connections of its own, with the one client option the middleware sets that changes
 * the cost of a request (`noAsyncTraces`), so the ratio is what our layer costs and not a nats.js setting.
 */
import { parseArgs } from 'node:util';
import { defineInterface, method } from '@esp/interfaces';
import { Middleware } from '@esp/middleware';
import { NatsServer } from '@esp/testing';
// the baseline is literally the NATS client without our layer
// eslint-disable-next-line no-restricted-imports
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { z } from 'zod';
import { fmt, median, percentile } from './stats';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '4000' }, rounds: { type: 'string', default: '5' }, inflight: { type: 'string', default: '64' } },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const INFLIGHT = Number(values.inflight);

const benchInterface = defineInterface({
  type: 'bench::echo',
  version: '1.0',
  methods: { echo: method({ params: [['doc_id', z.string()], ['body', z.string()], ['priority', z.number().int()]], returns: z.string() }) },
});

// a realistic small call: a document id, a 200-byte body, a number
const ARGS = ['http://example.com/news/2026/11/22/article-000123.html', 'x'.repeat(200), 0] as const;

async function sequential(call: () => Promise<unknown>, n: number): Promise<number[]> {
  const lat: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    lat[i] = performance.now() - t0;
  }
  return lat.sort((a, b) => a - b);
}

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

async function main(): Promise<void> {
  const ns = await NatsServer.start({ jetstream: false });
  const packr = new Packr({ useRecords: false });
  let raw: NatsConnection | undefined;
  let rawServer: NatsConnection | undefined;
  const server = await Middleware.connect({ name: 'bench-server', servers: ns.url, host: 'bench' });
  const client = await Middleware.connect({ name: 'bench-client', servers: ns.url });
  try {
    // raw baseline: same payload bytes each way, a responder that decodes and answers like a server would
    rawServer = await connect({ servers: ns.url, noAsyncTraces: true });
    raw = await connect({ servers: ns.url, noAsyncTraces: true });
    rawServer.subscribe('bench.raw', {
      callback: (_err, msg) => {
        const [, body] = packr.unpack(msg.data) as [string, string, number];
        msg.respond(packr.pack(body));
      },
    });
    await rawServer.flush();
    const rawPayload = packr.pack([...ARGS]);
    const rawConn = raw;
    const rawCall = () => rawConn.request('bench.raw', rawPayload, { timeout: 5000 });

    const obj = await server.activate(benchInterface, { echo: (_id: string, body: string) => body }, { object_id: 'echo', port: 1 });
    const proxy = client.proxy(benchInterface, obj.aor, { timeoutMs: 5000 });
    const mwCall = () => proxy.echo(...ARGS);

    // warm up both paths (JIT, connections)
    await sequential(rawCall, 1000);
    await sequential(mwCall, 1000);
    await throughput(rawCall, 2000, INFLIGHT);
    await throughput(mwCall, 2000, INFLIGHT);

    const rawP50: number[] = [], mwP50: number[] = [], rawP99: number[] = [], mwP99: number[] = [], rawTp: number[] = [], mwTp: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const a = await sequential(rawCall, CALLS);
      const b = await sequential(mwCall, CALLS);
      rawP50.push(percentile(a, 50));
      rawP99.push(percentile(a, 99));
      mwP50.push(percentile(b, 50));
      mwP99.push(percentile(b, 99));
      rawTp.push(await throughput(rawCall, CALLS * 2, INFLIGHT));
      mwTp.push(await throughput(mwCall, CALLS * 2, INFLIGHT));
    }
    const latencyRatio = median(mwP50) / median(rawP50);
    const throughputRatio = median(mwTp) / median(rawTp);
    console.log(`rounds=${ROUNDS} calls_per_round=${CALLS} inflight=${INFLIGHT} payload_bytes=${rawPayload.length}`);
    console.log(`raw        sequential p50=${fmt(median(rawP50) * 1000, 0)}us p99=${fmt(median(rawP99) * 1000, 0)}us   ${INFLIGHT} in flight: ${fmt(median(rawTp), 0)} calls/s`);
    console.log(`middleware sequential p50=${fmt(median(mwP50) * 1000, 0)}us p99=${fmt(median(mwP99) * 1000, 0)}us   ${INFLIGHT} in flight: ${fmt(median(mwTp), 0)} calls/s`);
    console.log(`rpc_throughput_ratio=${fmt(throughputRatio)} (goal >= 0.75)`);
    console.log(`rpc_latency_ratio=${fmt(latencyRatio)} (goal <= 1.1)`);
  } finally {
    await client.close();
    await server.close();
    await raw?.close();
    await rawServer?.close();
    await ns.cleanup();
  }
}

await main();
