/**
 * bench:rpc — a middleware call against a raw NATS request/reply with the same payload, in the same run, against the
 * same nats-server: sequential latency (p50/p99) and throughput with 64 calls in flight. Raw and middleware rounds
 * alternate so that machine noise hits both alike; the headline is the ratio.
 *
 *   npm run bench:rpc [-- --calls 4000 --rounds 5] [--secure]
 *
 * Last line: rpc_latency_ratio=<middleware p50 / raw p50>. Goals: latency ratio <= 1.1, throughput ratio >= 0.75.
 *
 * --secure: the server requires TLS and a user and password, and both sides connect with them (the middleware
 * through its security settings, the baseline with the same nats.js options); goal: latency ratio <= 1.3. It also
 * measures what TLS itself costs: the raw baseline with TLS against raw on a plain server, alternating
 * (tls_latency_cost, tls_throughput_cost).
 *
 * The baseline is stock nats.js on connections of its own, with the one client option the middleware sets that changes
 * the cost of a request (`noAsyncTraces`), so the ratio is what our layer costs and not a nats.js setting.
 */
import { parseArgs } from 'node:util';
import { defineInterface, method } from '@esp/interfaces';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsSecurity } from '@esp/cli-options';
import { Middleware, natsAuthOptions } from '@esp/middleware';
import { NatsServer, selfSignedCertificate } from '@esp/testing';
// the baseline is literally the NATS client without our layer
// eslint-disable-next-line no-restricted-imports
import { connect } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { z } from 'zod';
import { fmt, median, percentile } from './stats';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '4000' }, rounds: { type: 'string', default: '5' }, inflight: { type: 'string', default: '64' }, secure: { type: 'boolean', default: false } },
});
const SECURE = values.secure ?? false;
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

/** A nats-server that requires TLS and a user, and the settings that connect to it. */
async function secureServer(): Promise<{ ns: NatsServer; security: NatsSecurity }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-rpc-tls-'));
  const { key, cert } = selfSignedCertificate({ commonName: 'bench nats' });
  writeFileSync(join(dir, 'cert.pem'), cert);
  writeFileSync(join(dir, 'key.pem'), key);
  const config = `tls { cert_file: "${join(dir, 'cert.pem')}", key_file: "${join(dir, 'key.pem')}" }\nauthorization { user: bench, password: "bench-password" }`;
  return { ns: await NatsServer.start({ jetstream: false, config }), security: { user: 'bench', password: 'bench-password', tls: { caFile: join(dir, 'cert.pem') } } };
}

const packr = new Packr({ useRecords: false });

/** The raw baseline: same payload bytes each way, a responder that decodes and answers like a server would. */
async function rawPair(url: string, security: NatsSecurity): Promise<{ call: () => Promise<unknown>; close: () => Promise<void> }> {
  const auth = natsAuthOptions(security, url);
  const rawServer = await connect({ servers: url, noAsyncTraces: true, ...auth });
  const raw = await connect({ servers: url, noAsyncTraces: true, ...auth });
  rawServer.subscribe('bench.raw', {
    callback: (_err, msg) => {
      const [, body] = packr.unpack(msg.data) as [string, string, number];
      msg.respond(packr.pack(body));
    },
  });
  await rawServer.flush();
  const rawPayload = packr.pack([...ARGS]);
  return {
    call: () => raw.request('bench.raw', rawPayload, { timeout: 5000 }),
    close: async () => {
      await raw.close();
      await rawServer.close();
    },
  };
}

async function main(): Promise<void> {
  const { ns, security } = SECURE ? await secureServer() : { ns: await NatsServer.start({ jetstream: false }), security: {} };
  // with --secure, a plain server too: raw TLS against raw plain is what TLS itself costs
  const plain = SECURE ? await NatsServer.start({ jetstream: false }) : undefined;
  const server = await Middleware.connect({ name: 'bench-server', servers: ns.url, host: 'bench', security });
  const client = await Middleware.connect({ name: 'bench-client', servers: ns.url, security });
  const rawSide = await rawPair(ns.url, security);
  const plainSide = plain ? await rawPair(plain.url, {}) : undefined;
  try {
    const rawPayload = packr.pack([...ARGS]);
    const rawCall = rawSide.call;

    const obj = await server.activate(benchInterface, { echo: (_id: string, body: string) => body }, { object_id: 'echo', port: 1 });
    const proxy = client.proxy(benchInterface, obj.aor, { timeoutMs: 5000 });
    const mwCall = () => proxy.echo(...ARGS);

    // warm up both paths (JIT, connections)
    await sequential(rawCall, 1000);
    await sequential(mwCall, 1000);
    await throughput(rawCall, 2000, INFLIGHT);
    await throughput(mwCall, 2000, INFLIGHT);

    const rawP50: number[] = [], mwP50: number[] = [], rawP99: number[] = [], mwP99: number[] = [], rawTp: number[] = [], mwTp: number[] = [];
    const plainP50: number[] = [], plainTp: number[] = [];
    if (plainSide) {
      await sequential(plainSide.call, 1000);
      await throughput(plainSide.call, 2000, INFLIGHT);
    }
    for (let r = 0; r < ROUNDS; r++) {
      if (plainSide) {
        plainP50.push(percentile(await sequential(plainSide.call, CALLS), 50));
        plainTp.push(await throughput(plainSide.call, CALLS * 2, INFLIGHT));
      }
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
    console.log(`rounds=${ROUNDS} calls_per_round=${CALLS} inflight=${INFLIGHT} payload_bytes=${rawPayload.length} secure=${SECURE ? 'tls+user' : 'no'}`);
    if (plainSide) {
      console.log(`raw plain  sequential p50=${fmt(median(plainP50) * 1000, 0)}us   ${INFLIGHT} in flight: ${fmt(median(plainTp), 0)} calls/s`);
      console.log(`tls_latency_cost=${fmt(median(rawP50) / median(plainP50))} tls_throughput_cost=${fmt(median(plainTp) / median(rawTp))} (raw with TLS and a user against raw on a plain server)`);
    }
    console.log(`raw        sequential p50=${fmt(median(rawP50) * 1000, 0)}us p99=${fmt(median(rawP99) * 1000, 0)}us   ${INFLIGHT} in flight: ${fmt(median(rawTp), 0)} calls/s`);
    console.log(`middleware sequential p50=${fmt(median(mwP50) * 1000, 0)}us p99=${fmt(median(mwP99) * 1000, 0)}us   ${INFLIGHT} in flight: ${fmt(median(mwTp), 0)} calls/s`);
    console.log(`rpc_throughput_ratio=${fmt(throughputRatio)} (goal >= 0.75)`);
    console.log(`rpc_latency_ratio=${fmt(latencyRatio)} (goal <= ${SECURE ? '1.3' : '1.1'})`);
  } finally {
    await client.close();
    await server.close();
    await rawSide.close();
    await plainSide?.close();
    await ns.cleanup();
    await plain?.cleanup();
  }
}

await main();
