/**
 * bench:ppp — requests/s through the PPP queue (client → queue → worker → queue → client, RFC 6 frames on NATS)
 * against a raw NATS queue-group request/reply (client → worker → client), same payload, same worker count, same
 * nats-server; then the measured dead-worker detection time against interval × liveness. A round is one raw and one
 * PPP run back to back (order alternating between rounds), then a forward-only run; each ratio is the median of the
 * per-round ratios. For each kind it also prints the CPU time and read/write system calls per request of every
 * process of the bench (from /proc), and how busy other processes kept the machine: what the time goes to, and how
 * much to trust a run.
 * The workers (both kinds) and the PPP queue run in their own processes, as they would in production (this file,
 * started again with --role workers / --role queue); the client side runs here.
 *
 *   npm run bench:ppp [-- --requests 10000 --rounds 9 --workers 8 --inflight 64 --hb 1000 --liveness 3 --trials 3
 *                        --table 16,64 --table-rounds 3 --warmup 20000 --raw-inbox --no-forward]
 *
 * Last line, the headline: ppp_vs_forward=<median over rounds of PPP requests/s ÷ forward-only requests/s> at the
 * headline configuration, --workers (8) workers on each side and --inflight (64) requests in flight. Goal >= 0.9.
 * The forward-only queue runs the same path with no protocol at all: the same processes, payload, worker count and
 * requests in flight, a queue that only forwards the bytes (a list of free workers, a line of waiting requests,
 * nothing else: no frames, no identities, no heartbeats, no expiry) to workers that echo them at once. It is the
 * ceiling of any queue with one request per worker and both hops through nats-server on this machine, so
 * ppp_vs_forward says how much of that ceiling the PPP queue keeps. With --no-forward it is not measured and the
 * last line says n/a.
 *
 * Earlier lines give the figures around it: ppp_vs_raw=<median over rounds of PPP requests/s ÷ raw requests/s>,
 * forward_vs_raw (how far below raw the topology alone stays), and, after the headline rounds, the same comparison
 * with each worker count of --table (fewer rounds each) as a table: RFC 6 gives a PPP worker one request at a time,
 * so the worker count sets how many requests one write between the queue and its workers can carry; the table shows
 * how the ratios depend on it. The headline stays at --workers.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Middleware, RawBus } from '@esp/middleware';
import { PppClient, PppQueue, PppWorker, type QueueAction } from '@esp/ppp';
import { ChildService, NatsServer } from '@esp/testing';
import { fmt, median } from './stats';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '9' },
    workers: { type: 'string', default: '8' },
    inflight: { type: 'string', default: '64' },
    hb: { type: 'string', default: '1000' },
    liveness: { type: 'string', default: '3' },
    trials: { type: 'string', default: '3' },
    table: { type: 'string', default: '16,64' },
    'table-rounds': { type: 'string', default: '3' },
    'raw-inbox': { type: 'boolean', default: false },
    'no-forward': { type: 'boolean', default: false },
    warmup: { type: 'string', default: '20000' },
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
/**
 * Requests of each kind sent before the rounds and not counted: the processes' code is compiled by V8's optimizing
 * compiler and their heaps grown by then (with 3,000 the first PPP round still read 0.38–0.41 while the others read
 * 0.47–0.64; the compiler runs on the same two cores).
 */
const WARMUP = Number(values.warmup);
/** Extra worker counts measured after the headline configuration (same count on both sides), fewer rounds each. */
const TABLE = (values.table ?? '').split(',').filter(Boolean).map(Number);
const TABLE_ROUNDS = Number(values['table-rounds']);
/**
 * Informative, not the baseline: also run the raw queue group through one reply subscription per client, as
 * PppClient talks to its queue, instead of a nats.js `request` per call (which arms a timer and builds three Errors).
 */
const RAW_INBOX = values['raw-inbox'] === true;
/** The forward-only queue (see the header) measured in each round; --no-forward leaves it out. */
const FORWARD = values['no-forward'] !== true;

// a realistic small request: a document id and a 200-byte body
const PAYLOAD = new TextEncoder().encode(`http://example.com/news/2026/11/22/article-000123.html ${'x'.repeat(200)}`);

/** Failed requests by kind, with the first message of each (a failure is counted and reported, not fatal). */
const failures = { raw: 0, ppp: 0, 'raw-inbox': 0, forward: 0, first: new Map<string, string>() };
type Kind = 'raw' | 'ppp' | 'raw-inbox' | 'forward';

/** Requests answered per second with `inflight` callers; a failed request counts as not answered. */
async function throughput(kind: Kind, call: () => Promise<unknown>, n: number, inflight: number): Promise<number> {
  let next = 0;
  let ok = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (next++ < n) {
        try {
          await call();
          ok++;
        } catch (err) {
          failures[kind]++;
          if (!failures.first.has(kind)) failures.first.set(kind, `${(err as Error).name}: ${(err as Error).message}`);
        }
      }
    }),
  );
  return ok / ((performance.now() - t0) / 1000);
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100 on Linux)
  } catch {
    return NaN;
  }
}

/** read and write system calls a process has made so far (sockets included), from /proc (Linux); NaN elsewhere. */
function syscalls(pid: number): { reads: number; writes: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return { reads: Number(/syscr: (\d+)/.exec(io)?.[1]), writes: Number(/syscw: (\d+)/.exec(io)?.[1]) };
  } catch {
    return { reads: NaN, writes: NaN };
  }
}

/** Busy and total CPU seconds of the whole machine so far (every core, every process, ours or not). */
function machineSeconds(): { busy: number; total: number } {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const total = cpu.reduce((a, b) => a + b, 0);
    const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
    return { busy: (total - idle) / 100, total: total / 100 };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/** CPU used per process during the rounds of one kind, summed over its rounds. */
class CpuAccount {
  readonly used = new Map<string, number>();
  readonly reads = new Map<string, number>();
  readonly writes = new Map<string, number>();
  private machineBusy = 0;
  private wall = 0;
  private requests = 0;

  constructor(private readonly pids: Record<string, number>) {}

  async measure<T>(requests: number, run: () => Promise<T>): Promise<T> {
    const before = Object.entries(this.pids).map(([k, pid]) => [k, cpuSeconds(pid), syscalls(pid)] as const);
    const m0 = machineSeconds();
    const t0 = performance.now();
    const result = await run();
    this.wall += (performance.now() - t0) / 1000;
    const m1 = machineSeconds();
    this.machineBusy += m1.busy - m0.busy;
    for (const [k, s, c] of before) {
      this.used.set(k, (this.used.get(k) ?? 0) + cpuSeconds(this.pids[k] ?? 0) - s);
      const after = syscalls(this.pids[k] ?? 0);
      this.reads.set(k, (this.reads.get(k) ?? 0) + after.reads - c.reads);
      this.writes.set(k, (this.writes.get(k) ?? 0) + after.writes - c.writes);
    }
    this.requests += requests;
    return result;
  }

  /** Read and write system calls per request, by process: "client 0.07/0.07, nats-server ...". */
  syscallSummary(): string {
    const per = (n: number | undefined): string => fmt((n ?? NaN) / this.requests, 3);
    return [...this.reads.keys()].map((k) => `${k} ${per(this.reads.get(k))}/${per(this.writes.get(k))}`).join(', ');
  }

  /** Read and write system calls of all the bench's processes per request. */
  get syscallsPerRequest(): number {
    let n = 0;
    for (const k of this.reads.keys()) n += (this.reads.get(k) ?? 0) + (this.writes.get(k) ?? 0);
    return n / this.requests;
  }

  /** CPU seconds of all the bench's processes (client, nats-server, queue, workers) per request. */
  get cpuPerRequest(): number {
    return [...this.used.values()].reduce((a, b) => a + b, 0) / this.requests;
  }

  /** e.g. "client 21.0 + nats-server 9.8 + ... = 45.1 us CPU/request; 1.20 cores used by the bench, 0.72 by others". */
  summary(): string {
    const perReq = [...this.used].map(([k, s]) => [k, (s / this.requests) * 1e6] as const);
    const ours = [...this.used.values()].reduce((a, b) => a + b, 0);
    return (
      `${perReq.map(([k, us]) => `${k} ${fmt(us, 1)}`).join(' + ')} = ${fmt(this.cpuPerRequest * 1e6, 1)} us CPU/request; ` +
      `${fmt(ours / this.wall)} cores used by the bench, ${fmt((this.machineBusy - ours) / this.wall)} by other processes`
    );
  }
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
/** The queue child answers here with its machine's stats (after the rounds: every worker idle, nothing pending). */
const STATS_SUBJECT = RawBus.subject('bench', 'ppp-queue-stats');
/** The forward-only queue: clients send to its front, worker i listens on forwardWorker(i) and answers on its back. */
const FORWARD_FRONT = RawBus.subject('bench', 'ppp-forward', 'front');
const FORWARD_BACK = RawBus.subject('bench', 'ppp-forward', 'back');
const forwardWorker = (i: number): string => RawBus.subject('bench', 'ppp-forward', 'worker', String(i));

/** Child role: WORKERS raw queue-group responders and WORKERS PPP workers, all echoing. */
async function serveWorkers(): Promise<void> {
  const mw = await Middleware.connect({ name: 'bench-workers', servers: values.nats });
  for (let i = 0; i < WORKERS; i++) {
    await mw.bus.subscribe(RAW_SUBJECT, (m) => m.respond(m.data), { queue: 'bench-raw' });
    // the forward-only worker: echoes at once, its index as the reply subject (all the queue needs to know)
    const index = String(i);
    if (FORWARD) await mw.bus.subscribe(forwardWorker(i), (m) => mw.bus.publish(FORWARD_BACK, m.data, { reply: index }));
    await PppWorker.start(mw.bus, (c) => c, {
      service: 'bench',
      id: `bench-${i}`,
      // the protocol's rare events, one JSON line each (the bench reports them)
      onAction: (a) => {
        if (a.type === 'queue-dead' || a.type === 'dropped') console.log(JSON.stringify({ msg: `worker ${a.type}`, worker: i, at: Date.now(), ...a }));
      },
    });
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
      if (a.type === 'worker-ready' || a.type === 'worker-dead' || a.type === 'dropped') console.log(JSON.stringify({ msg: `queue ${a.type}`, at: Date.now(), ...a }));
      if (a.type === 'fail') console.log(JSON.stringify({ msg: 'queue fail', at: Date.now(), request: a.request, error: a.error.message }));
    },
  });
  await mw.bus.subscribe(STATS_SUBJECT, (m) => m.respond(new TextEncoder().encode(JSON.stringify(queue.machine.stats))));
  if (FORWARD) await serveForwardQueue(mw.bus);
  console.log(JSON.stringify({ msg: 'ready' }));
}

/**
 * The forward-only queue (see the header): free workers in a list, waiting requests in a line, each worker's client
 * reply subject while it holds a request. Nothing else: the least any queue with one request per worker must do.
 */
async function serveForwardQueue(bus: RawBus): Promise<void> {
  const free = Array.from({ length: WORKERS }, (_, i) => i);
  const waiting: { data: Uint8Array; reply: string }[] = [];
  const held: (string | undefined)[] = [];
  const dispatch = (): void => {
    while (free.length > 0 && waiting.length > 0) {
      const w = free.shift() as number;
      const r = waiting.shift() as { data: Uint8Array; reply: string };
      held[w] = r.reply;
      bus.publish(forwardWorker(w), r.data);
    }
  };
  await bus.subscribe(FORWARD_FRONT, (m) => {
    if (!m.reply) return;
    waiting.push({ data: m.data, reply: m.reply });
    dispatch();
  });
  await bus.subscribe(FORWARD_BACK, (m) => {
    const w = Number(m.reply);
    const to = held[w];
    if (to === undefined) return;
    held[w] = undefined;
    bus.publish(to, m.data);
    free.push(w);
    dispatch();
  });
}

/** What the rounds of one configuration measured. */
interface Measured {
  workers: number;
  rounds: number;
  rawTp: number[];
  pppTp: number[];
  ratios: number[];
  rawCpu: CpuAccount;
  pppCpu: CpuAccount;
  queueSaid: string;
  workersSaid: string;
  queueStats: string;
  /** Failed requests during the rounds, and the first error of each kind. */
  failed: { raw: number; ppp: number; first: Map<string, string> };
  /** --raw-inbox: the raw queue group through one reply subscription (not the baseline). */
  inboxTp: number[];
  inboxCpu: CpuAccount;
  /** The forward-only queue (the headline's baseline): requests/s per round, and its ratio to raw in the same round. */
  forwardTp: number[];
  forwardRatios: number[];
  forwardCpu: CpuAccount;
  forwardFailed: number;
}

/**
 * --raw-inbox: request/reply to the raw queue group through one reply subscription and a Map, with no timer at all
 * (a lower bound for a client that keeps its own replies, as PppClient does).
 */
async function inboxCaller(bus: RawBus, subject: string, tag: string): Promise<{ call: () => Promise<Uint8Array>; stop: () => Promise<void> }> {
  const waiting = new Map<number, (d: Uint8Array) => void>();
  let seq = 0;
  const inbox = RawBus.subject('bench', 'ppp-inbox', tag);
  const stop = await bus.subscribe(`${inbox}.*`, (m) => {
    const n = Number(m.subject.slice(inbox.length + 1));
    const resolve = waiting.get(n);
    waiting.delete(n);
    resolve?.(m.data);
  });
  const call = (): Promise<Uint8Array> =>
    new Promise((resolve) => {
      const n = ++seq;
      waiting.set(n, resolve);
      bus.publish(subject, PAYLOAD, { reply: `${inbox}.${n}` });
    });
  return { call, stop };
}

/** Starts the queue and `workers` workers (raw and PPP) as processes, runs `rounds` rounds, stops them. */
async function measure(ns: NatsServer, client: Middleware, workers: number, rounds: number): Promise<Measured> {
  const self = 'tools/bench/src/ppp-bench.ts';
  const common = ['--nats', ns.url, '--workers', String(workers), '--inflight', String(INFLIGHT)];
  const env = { ESP_CHILD_LOG_LEVEL: 'warn' };
  const queueProc = await ChildService.start({ entry: self, args: ['--role', 'queue', ...common], env });
  const workersProc = await ChildService.start({ entry: self, args: ['--role', 'workers', ...common], env });
  try {
    const rawCall = (): Promise<Uint8Array> => client.bus.request(RAW_SUBJECT, PAYLOAD, 5000);
    while (!queueProc.logs.some((l) => l['msg'] === 'workers')) await new Promise((r) => setTimeout(r, 10));
    const ppp = new PppClient(client.bus, { service: 'bench', timeoutMs: 5000, retries: 0 });
    const pppCall = (): Promise<Uint8Array[]> => ppp.request(PAYLOAD);
    const inbox = RAW_INBOX ? await inboxCaller(client.bus, RAW_SUBJECT, `raw-${workers}`) : undefined;
    // the forward-only queue's client: one reply subscription and a Map, as PppClient keeps its requests
    const forward = FORWARD ? await inboxCaller(client.bus, FORWARD_FRONT, `forward-${workers}`) : undefined;

    await throughput('raw', rawCall, WARMUP, INFLIGHT);
    if (inbox) await throughput('raw-inbox', inbox.call, WARMUP, INFLIGHT);
    await throughput('ppp', pppCall, WARMUP, INFLIGHT);
    if (forward) await throughput('forward', forward.call, WARMUP, INFLIGHT);
    failures.raw = failures.ppp = failures['raw-inbox'] = failures.forward = 0;
    failures.first.clear();
    // what the children log from here on is reported at the end
    const startLogs = new Map([queueProc.logs, workersProc.logs].map((l) => [l, l.length]));
    const pids = { client: process.pid, 'nats-server': ns.pid, queue: queueProc.pid, workers: workersProc.pid };
    const m: Measured = {
      workers,
      rounds,
      rawTp: [],
      pppTp: [],
      ratios: [],
      rawCpu: new CpuAccount(pids),
      pppCpu: new CpuAccount(pids),
      queueSaid: '',
      workersSaid: '',
      queueStats: '',
      failed: failures,
      inboxTp: [],
      inboxCpu: new CpuAccount(pids),
      forwardTp: [],
      forwardRatios: [],
      forwardCpu: new CpuAccount(pids),
      forwardFailed: 0,
    };
    for (let r = 0; r < rounds; r++) {
      // a round is one raw and one PPP run back to back, in alternating order, so that load on the machine that
      // comes and goes hits both alike; the ratio is taken per round
      const raw = (): Promise<number> => m.rawCpu.measure(REQUESTS, () => throughput('raw', rawCall, REQUESTS, INFLIGHT));
      const pp = (): Promise<number> => m.pppCpu.measure(REQUESTS, () => throughput('ppp', pppCall, REQUESTS, INFLIGHT));
      let a: number;
      let b: number;
      if (r % 2 === 0) {
        a = await raw();
        b = await pp();
      } else {
        b = await pp();
        a = await raw();
      }
      m.rawTp.push(a);
      m.pppTp.push(b);
      m.ratios.push(b / a);
      if (inbox) m.inboxTp.push(await m.inboxCpu.measure(REQUESTS, () => throughput('raw-inbox', inbox.call, REQUESTS, INFLIGHT)));
      if (forward) {
        // after the pair, next to the PPP run in even rounds and to the raw run in odd ones
        const f = await m.forwardCpu.measure(REQUESTS, () => throughput('forward', forward.call, REQUESTS, INFLIGHT));
        m.forwardTp.push(f);
        m.forwardRatios.push(f / a);
      }
    }
    // what the queue and the workers said (they log at warn and above): workers declared dead, requests failed back
    const said = (logs: Record<string, unknown>[]): string => {
      const counts = new Map<string, number>();
      for (const l of logs.slice(startLogs.get(logs) ?? 0)) if (typeof l['msg'] === 'string') counts.set(l['msg'], (counts.get(l['msg']) ?? 0) + 1);
      return counts.size === 0 ? 'nothing' : [...counts].map(([msg, c]) => `${c} x "${msg}"`).join(', ');
    };
    // a request lost on the way to or from a worker would leave that worker busy for good (it still heartbeats)
    m.queueStats = new TextDecoder().decode(await client.bus.request(STATS_SUBJECT, new Uint8Array(0), 5000));
    m.queueSaid = said(queueProc.logs);
    m.workersSaid = said(workersProc.logs);
    await ppp.close();
    await inbox?.stop();
    await forward?.stop();
    m.forwardFailed = failures.forward;
    m.failed = { raw: failures.raw, ppp: failures.ppp, first: new Map(failures.first) };
    return m;
  } finally {
    await workersProc.stop();
    await queueProc.stop();
  }
}

async function main(): Promise<void> {
  const ns = await NatsServer.start({ jetstream: false });
  const client = await Middleware.connect({ name: 'bench-client', servers: ns.url });
  const broker = await Middleware.connect({ name: 'bench-detection', servers: ns.url });
  try {
    const head = await measure(ns, client, WORKERS, ROUNDS);
    const headFailures = head.failed;
    const table: Measured[] = [];
    for (const w of TABLE) if (w !== WORKERS) table.push(await measure(ns, client, w, TABLE_ROUNDS));

    const times = await detection(broker.bus);
    const expected = HB * LIVENESS;
    const ratio = median(head.ratios);
    const { rawTp, pppTp, ratios, rawCpu, pppCpu } = head;
    const pppVsForwardRatios = pppTp.map((p, i) => p / (head.forwardTp[i] ?? NaN));
    console.log(`rounds=${ROUNDS} requests_per_round=${REQUESTS} workers=${WORKERS} inflight=${INFLIGHT} payload_bytes=${PAYLOAD.length}`);
    console.log(`raw queue group: ${fmt(median(rawTp), 0)} requests/s   (rounds: ${rawTp.map((x) => fmt(x, 0)).join(', ')})`);
    console.log(`ppp queue:       ${fmt(median(pppTp), 0)} requests/s   (rounds: ${pppTp.map((x) => fmt(x, 0)).join(', ')})`);
    console.log(`ppp/raw per round: ${ratios.map((x) => fmt(x)).join(', ')} (median ${fmt(ratio)}; ratio of the medians ${fmt(median(pppTp) / median(rawTp))})`);
    console.log(`cpu raw: ${rawCpu.summary()}`);
    console.log(`cpu ppp: ${pppCpu.summary()}`);
    // the bench's share of a busy machine varies; CPU per request does not: on a machine that others load fully, the
    // throughput ratio tends to this one
    console.log(`ppp_cpu_vs_raw=${fmt(rawCpu.cpuPerRequest / pppCpu.cpuPerRequest)} (raw CPU per request ÷ PPP CPU per request)`);
    if (RAW_INBOX) {
      // informative only: the baseline stays the nats.js request above
      console.log(`raw queue group through one reply subscription (not the baseline): ${fmt(median(head.inboxTp), 0)} requests/s; cpu: ${head.inboxCpu.summary()}`);
      console.log(`ppp_cpu_vs_raw_inbox=${fmt(head.inboxCpu.cpuPerRequest / pppCpu.cpuPerRequest)} (failed: ${failures['raw-inbox']})`);
    }
    if (FORWARD) {
      // the ceiling of the topology: the headline's baseline
      const f = head.forwardTp;
      console.log(`forward-only queue: ${fmt(median(f), 0)} requests/s   (rounds: ${f.map((x) => fmt(x, 0)).join(', ')}; failed: ${head.forwardFailed})`);
      console.log(`cpu forward: ${head.forwardCpu.summary()}`);
      console.log(`forward_vs_raw=${fmt(median(head.forwardRatios))} (per round: ${head.forwardRatios.map((x) => fmt(x)).join(', ')})`);
      console.log(`ppp/forward per round: ${pppVsForwardRatios.map((x) => fmt(x)).join(', ')}`);
    }
    console.log(`read/write syscalls per request, raw: ${rawCpu.syscallSummary()}`);
    console.log(`read/write syscalls per request, ppp: ${pppCpu.syscallSummary()}`);
    if (FORWARD) console.log(`read/write syscalls per request, forward: ${head.forwardCpu.syscallSummary()}`);
    const firsts = [...headFailures.first].map(([k, msg]) => `${k}: ${msg}`).join('; ');
    console.log(`failed requests: raw ${headFailures.raw}, ppp ${headFailures.ppp}${firsts ? ` (first: ${firsts})` : ''}`);
    console.log(`during the rounds the queue logged ${head.queueSaid}; the workers logged ${head.workersSaid}; queue after the rounds: ${head.queueStats}`);
    if (table.length > 0) {
      // not the headline: the same comparison with other worker counts (same count on both sides), fewer rounds
      console.log(`by worker count (${INFLIGHT} in flight; headline row ${WORKERS} workers x ${ROUNDS} rounds, others ${TABLE_ROUNDS} rounds):`);
      console.log('  workers | raw req/s | ppp req/s | ppp/raw | forward/raw | CPU us/req raw | CPU us/req ppp | ppp_cpu_vs_raw | syscalls/req raw | syscalls/req ppp | failed raw/ppp | queue/workers logged');
      for (const m of [head, ...table].sort((x, y) => x.workers - y.workers)) {
        const sys = (c: CpuAccount): string => fmt(c.syscallsPerRequest, 2);
        console.log(
          `  ${String(m.workers).padStart(7)} | ${fmt(median(m.rawTp), 0).padStart(9)} | ${fmt(median(m.pppTp), 0).padStart(9)} | ${fmt(median(m.ratios)).padStart(7)} | ${fmt(median(m.forwardRatios)).padStart(11)} | ` +
            `${fmt(m.rawCpu.cpuPerRequest * 1e6, 1).padStart(14)} | ${fmt(m.pppCpu.cpuPerRequest * 1e6, 1).padStart(14)} | ` +
            `${fmt(m.rawCpu.cpuPerRequest / m.pppCpu.cpuPerRequest).padStart(14)} | ${sys(m.rawCpu).padStart(16)} | ${sys(m.pppCpu).padStart(16)} | ${`${m.failed.raw}/${m.failed.ppp}`.padStart(14)} | ${m.queueSaid} / ${m.workersSaid}`,
        );
      }
    }
    console.log(
      `dead-worker detection: ${times.map((t) => fmt(t, 0)).join(', ')} ms (median ${fmt(median(times), 0)} ms) against interval × liveness = ${HB} × ${LIVENESS} = ${expected} ms (window ${expected - HB}..${expected + HB} ms)`,
    );
    console.log(`ppp_detection_ms=${fmt(median(times), 0)}`);
    console.log(`headline configuration: ${WORKERS} workers on each side, ${INFLIGHT} requests in flight, ${ROUNDS} rounds`);
    console.log(`ppp_vs_raw=${fmt(ratio)} (figure, no goal)`);
    // the headline, last
    console.log(FORWARD ? `ppp_vs_forward=${fmt(median(pppVsForwardRatios))} (goal >= 0.9)` : 'ppp_vs_forward=n/a (--no-forward) (goal >= 0.9)');
  } finally {
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
