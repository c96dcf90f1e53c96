/**
 * FSWCU decode / encode MB/s against CPython's C marshal (loads / dumps(v, 0)) on the very same bytes.
 *
 *   npx tsx tools/bench/src/fswcu-bench.ts      # last line: fswcu_vs_cpython=<our decode / CPython loads>
 *
 * Corpus: about 4 MB of FSCMT message bodies (the FSWCU (dict, priority) tuple of each frame) built with the
 * typed builders, in the mix a busy crawl produces: mostly CMD_UM_URI crawl queue entries, then duplicate-server
 * checksums, DNS replies with addrinfo lists, statistics and keepalives, and a few crawl configurations. Each
 * body is decoded on its own, as a frame parser would. A python3 subprocess holds the very same bytes and times
 * its own rounds with time.perf_counter; its rounds alternate with ours (never concurrent), and the ratios are
 * medians of per-round-pair ratios, which keeps a busy machine from favouring either side. Goal:
 * fswcu_vs_cpython >= 0.5.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import {
  buildFscmtDuplicateServerMessage,
  buildFscmtMultinodeSchedulerMessage,
  buildFscmtNodeSchedulerMessage,
  decodeFswcu,
  encodeFswcu,
  fscmtCrawlConfigFromXml,
  fscmtParsedUri,
  fscmtUnparsedUri,
  FSCMT_QUEUE_FLAGS,
  FSCMT_URI_FLAGS,
  FswcuDict,
  FswcuFloat,
  FswcuTuple,
  fswcuBytes,
  type FscmtAddrinfo,
  type FswcuValue,
} from '@esp/codecs';
import type { BenchResult } from './bench-result';
import { fmt, median } from './stats';

const TARGET_BYTES = 4 * 1024 * 1024;
const WARMUP_ROUNDS = 5;
const ROUNDS = 21;

/** A small deterministic PRNG (mulberry32), so every run measures the same corpus. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildCorpus(): Uint8Array[] {
  const rand = prng(0xfa57);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const sites = Array.from({ length: 200 }, (_, i) => `www.site${i}.${pick(['com', 'org', 'net', 'no'])}`);
  const words = ['news', 'products', 'about', 'support', 'blog', 'archive', 'search', 'index', 'docs', 'category'];
  const addrinfo = (i: number): FscmtAddrinfo => ({
    family: 2,
    socktype: 1,
    proto: 6,
    canonname: '',
    address: { host: `10.${i % 250}.${(i * 7) % 250}.${(i * 13) % 250}`, port: 0 },
  });
  const config = fscmtCrawlConfigFromXml(`<DomainSpecification name="example">
    <attrib name="delay" type="real">60.0</attrib><attrib name="refresh" type="integer">1440</attrib>
    <attrib name="start_uris" type="list-string">${sites.slice(0, 40).map((s) => `<member>http://${s}/</member>`).join('')}</attrib>
    <section name="include_domains"><attrib name="suffix" type="list-string"><member>.com</member><member>.org</member></attrib></section>
    <section name="link_extraction"><attrib name="a" type="boolean">yes</attrib><attrib name="img" type="boolean">no</attrib></section>
    <SubDomain name="news"><attrib name="delay" type="real">5</attrib></SubDomain>
  </DomainSpecification>`);

  const bodies: Uint8Array[] = [];
  let total = 0;
  for (let n = 0; total < TARGET_BYTES; n++) {
    const site = pick(sites);
    const path = `/${pick(words)}/${pick(words)}/${Math.floor(rand() * 1e6)}.html`;
    const r = rand();
    let dict: FswcuDict;
    let priority: 0 | 1 = 0;
    if (r < 0.6) {
      dict = buildFscmtNodeSchedulerMessage({
        command: rand() < 0.9 ? 'CMD_UM_URI' : 'CMD_UM_URI_URG',
        dspecName: 'example',
        entry: {
          uri: fscmtParsedUri(`http://${site}${path}${rand() < 0.3 ? `?id=${n}&lang=en` : ''}`),
          referrer: rand() < 0.8 ? fscmtParsedUri(`http://${site}/${pick(words)}/`) : fscmtUnparsedUri(''),
          uriFlags: rand() < 0.1 ? FSCMT_URI_FLAGS.URIF_STARTURI : FSCMT_URI_FLAGS.URIF_UNSCREENED,
          frameFlags: 0,
          redirects: rand() < 0.1 ? [{ uri: `http://${site}/old${path}`, kind: FSCMT_URI_FLAGS.URIF_REDIRECT_301 }] : [],
          queueFlags: rand() < 0.05 ? FSCMT_QUEUE_FLAGS.QF_URGENT : 0,
          refreshCycle: Math.floor(rand() * 20),
          extra: rand() < 0.2 ? new FswcuDict([[fswcuBytes('title'), fswcuBytes(`RSS item ${n}`)]]) : new FswcuDict(),
        },
      });
    } else if (r < 0.75) {
      const csum = Uint8Array.from({ length: 16 }, () => Math.floor(rand() * 256));
      dict = buildFscmtDuplicateServerMessage({ command: 'PPDUP_ADD', dspecName: 'example', id: '70-86-12-20', uri: `http://${site}${path}`, csum });
    } else if (r < 0.82) {
      dict = buildFscmtDuplicateServerMessage({ command: 'PPDUP_ADD_OK', dspecName: 'example', id: '70-86-12-20', uri: `http://${site}${path}` });
    } else if (r < 0.9) {
      dict = buildFscmtNodeSchedulerMessage({
        command: 'CMD_UM_DNS_REPLY',
        dspecName: '',
        data: { hostname: site, addrinfo: [addrinfo(n), addrinfo(n + 1)], resolvedAt: 1245064336 + n, ttl: 86400 },
      });
      priority = 1;
    } else if (r < 0.95) {
      const stats: Array<[FswcuValue, FswcuValue]> = words.map((w, i) => [fswcuBytes(`${w}_count`), Math.floor(rand() * 1e6) + i]);
      stats.push([fswcuBytes('bytes_total'), BigInt(Math.floor(rand() * 1e12)) + 2n ** 40n]);
      stats.push([fswcuBytes('rate'), new FswcuFloat(rand() * 100)]);
      stats.push([fswcuBytes('hosts'), new FswcuTuple(sites.slice(0, 5).map((s) => fswcuBytes(s)))]);
      dict = buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_STAT', dspecName: 'example', stats: new FswcuDict(stats) });
    } else if (r < 0.999) {
      dict = buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' });
      priority = 1;
    } else {
      dict = buildFscmtDuplicateServerMessage({ command: 'PPDUP_SET_CONFIG', config, vclock: n, dspecName: 'example' });
    }
    const body = encodeFswcu(new FswcuTuple([dict, priority])).slice();
    bodies.push(body);
    total += body.length;
  }
  return bodies;
}

// Python times itself (time.perf_counter) on the same bodies, one round per command line it reads, so its rounds
// can alternate with ours: both then run under the same machine conditions, and a per-pair ratio cancels load
// changes that would skew two separate runs. It also checks that dumps(loads(b), 0) == b for every body.
const PYTHON = `
import json, marshal, sys, time
data = open(sys.argv[1], "rb").read()
bodies, pos = [], 0
while pos < len(data):
    n = int.from_bytes(data[pos:pos + 4], "big")
    bodies.append(data[pos + 4:pos + 4 + n])
    pos += 4 + n
loads, dumps = marshal.loads, marshal.dumps
values = [loads(b) for b in bodies]
identical = all(dumps(v, 0) == b for v, b in zip(values, bodies))
def do_loads():
    for b in bodies: loads(b)
def do_dumps():
    for v in values: dumps(v, 0)
print(json.dumps({"version": sys.version.split()[0], "identical": identical}), flush=True)
for line in sys.stdin:
    fn = do_loads if line.strip() == "loads" else do_dumps
    t = time.perf_counter()
    fn()
    print(json.dumps({"seconds": time.perf_counter() - t}), flush=True)
`;

/** A python3 process holding the corpus, running one timed loads or dumps round per request. */
class CpythonRounds {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: AsyncIterator<string>;

  constructor(corpusFile: string) {
    this.child = spawn('python3', ['-c', PYTHON, corpusFile], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  async next<T>(): Promise<T> {
    const line = await this.lines.next();
    if (line.done === true) throw new Error('python3 stopped early');
    return JSON.parse(line.value) as T;
  }

  async round(op: 'loads' | 'dumps'): Promise<number> {
    this.child.stdin.write(`${op}\n`);
    return (await this.next<{ seconds: number }>()).seconds;
  }

  close(): void {
    this.child.stdin.end();
  }
}

function corpusFile(bodies: Uint8Array[]): string {
  const input = new Uint8Array(bodies.reduce((n, b) => n + 4 + b.length, 0));
  const view = new DataView(input.buffer);
  let at = 0;
  for (const body of bodies) {
    view.setUint32(at, body.length, false);
    input.set(body, at + 4);
    at += 4 + body.length;
  }
  const file = join(mkdtempSync(join(tmpdir(), 'fswcu-bench-')), 'corpus.bin');
  writeFileSync(file, input);
  return file;
}

function seconds(round: () => void): number {
  const t = performance.now();
  round();
  return (performance.now() - t) / 1e3;
}

/** Alternating rounds, ours then CPython's; MB/s medians and the median of the per-pair ratios. */
async function alternate(
  total: number,
  ours: () => void,
  python: () => Promise<number>,
): Promise<{ ours: number; cpython: number; ratio: number }> {
  const oursMbps: number[] = [];
  const pythonMbps: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < WARMUP_ROUNDS + ROUNDS; i++) {
    const a = total / seconds(ours) / 1e6;
    const b = total / (await python()) / 1e6;
    if (i < WARMUP_ROUNDS) continue;
    oursMbps.push(a);
    pythonMbps.push(b);
    ratios.push(a / b);
  }
  return { ours: median(oursMbps), cpython: median(pythonMbps), ratio: median(ratios) };
}

export async function runFswcuBench(): Promise<BenchResult> {
  const bodies = buildCorpus();
  const total = bodies.reduce((n, b) => n + b.length, 0);
  // Our bytes must be CPython's bytes (checked here and in Python), or the comparison would not be on the same input.
  const sameAsOurs = bodies.every((body) => {
    const again = encodeFswcu(decodeFswcu(body));
    return again.length === body.length && again.every((x, k) => x === body[k]);
  });
  const file = corpusFile(bodies);
  const py = new CpythonRounds(file);
  try {
    const { version, identical } = await py.next<{ version: string; identical: boolean }>();
    // Decoding first, with no decoded corpus held: a large live heap of decoded values would make V8's garbage
    // collector, not the decoder, the thing measured. Encoding needs the values, so they exist only after.
    const decode = await alternate(
      total,
      () => {
        for (const body of bodies) decodeFswcu(body);
      },
      () => py.round('loads'),
    );
    const values = bodies.map((b) => decodeFswcu(b));
    const encode = await alternate(
      total,
      () => {
        for (const value of values) encodeFswcu(value);
      },
      () => py.round('dumps'),
    );
    const metrics = {
      fswcu_decode_mbps: decode.ours,
      fswcu_encode_mbps: encode.ours,
      cpython_loads_mbps: decode.cpython,
      cpython_dumps_mbps: encode.cpython,
      fswcu_encode_vs_cpython: encode.ratio,
      fswcu_vs_cpython: decode.ratio,
    };
    const lines = [
      `FSWCU vs CPython ${version} marshal: ${bodies.length} FSCMT message bodies, ${fmt(total / 1e6)} MB; ${ROUNDS} alternating rounds after ${WARMUP_ROUNDS} warm-up, medians`,
      `  same bytes: our encode(decode(b)) == b ${sameAsOurs ? 'yes' : 'NO'}, CPython dumps(loads(b), 0) == b ${identical ? 'yes' : 'NO'}`,
      `  decode ${fmt(decode.ours)} MB/s   CPython loads ${fmt(decode.cpython)} MB/s   ratio ${fmt(decode.ratio)}`,
      `  encode ${fmt(encode.ours)} MB/s   CPython dumps ${fmt(encode.cpython)} MB/s   ratio ${fmt(encode.ratio)}`,
    ];
    return { lines, metrics };
  } finally {
    py.close();
    rmSync(dirname(file), { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { lines, metrics } = await runFswcuBench();
  for (const line of lines) console.log(line);
  for (const [k, v] of Object.entries(metrics)) if (k !== 'fswcu_vs_cpython') console.log(`${k}=${fmt(v)}`);
  console.log(`fswcu_vs_cpython=${fmt(metrics.fswcu_vs_cpython)}`);
}
