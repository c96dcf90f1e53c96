import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  buildFscmtNodeSchedulerMessage,
  encodeFscmtFrame,
  fscmtParsedUri,
  fscmtUnparsedUri,
  FSCMT_URI_FLAGS,
  FswcuDict,
  fswcuBytes,
  readFscmtCommand,
  type FscmtPriority,
} from '@esp/codecs';
import { CrawlEndpoint, type CrawlInbound } from '@esp/crawl-bus';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PYTHON = '/usr/bin/python3';
const PEER = fileURLToPath(new URL('./peers/node_scheduler.py', import.meta.url));
const CLUSTER = 'gwtest';
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** The Python node scheduler: its JSON lines are kept. */
class PyNode {
  readonly lines: Array<Record<string, unknown>> = [];
  private readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  constructor(port: number, nodeId: string, delay: number | 'wait' = 0) {
    this.child = spawn(PYTHON, [PEER, '127.0.0.1', String(port), nodeId, String(delay)], { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout! }).on('line', (l) => this.lines.push(JSON.parse(l) as Record<string, unknown>));
    this.child.stderr!.on('data', (d: Buffer) => this.lines.push({ event: 'stderr', text: d.toString() }));
    this.exited = new Promise((r) => this.child.once('exit', (c) => r(c)));
  }
  received(cmd?: number): Array<Record<string, unknown>> {
    return this.lines.filter((l) => l['event'] === 'recv' && (cmd === undefined || l['cmd'] === cmd));
  }
  /** Lets a 'wait' peer start reading. */
  release(): void {
    this.child.stdin!.write('go\n');
  }
  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

/** A multinode scheduler stand-in on NATS: records what it gets, lets the test send. */
class Mns {
  private constructor(
    readonly ep: CrawlEndpoint,
    readonly got: CrawlInbound[],
  ) {}
  static async start(mw: Middleware): Promise<Mns> {
    const got: CrawlInbound[] = [];
    const ep = await CrawlEndpoint.start(mw.bus, { self: { cluster: CLUSTER, role: 'mns', id: 'main' }, onBatch: (b) => got.push(...b) });
    return new Mns(ep, got);
  }
  send(to: string, frame: Uint8Array): void {
    this.ep.sendFrame(to, frame);
  }
}

const uriFrame = (uri: string, priority: FscmtPriority = 0, pad = 0): Uint8Array =>
  encodeFscmtFrame(
    buildFscmtNodeSchedulerMessage({
      command: 'CMD_UM_URI',
      dspecName: 'web',
      entry: {
        uri: fscmtParsedUri(uri),
        referrer: fscmtUnparsedUri(''),
        uriFlags: FSCMT_URI_FLAGS.URIF_STARTURI,
        frameFlags: 0,
        redirects: [],
        queueFlags: 0,
        refreshCycle: 0,
        extra: new FswcuDict(pad ? [[fswcuBytes('pad'), fswcuBytes('x'.repeat(pad))]] : []),
      },
    }),
    priority,
  );

let ns: NatsServer;
let mw: Middleware;
let gw: ChildService;
let port: number;
let mns: Mns;
const nodes: PyNode[] = [];

beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  mw = await Middleware.connect({ name: 'gw-test', servers: ns.url });
  mns = await Mns.start(mw);
  gw = await ChildService.start({
    entry: 'apps/fscmt-gateway/src/main.ts',
    args: ['--nats', ns.url, '--cluster', CLUSTER, '--id', 'gw1', '--listen', '127.0.0.1:0=mns/main', '--max-frame-bytes', '1048576', '--stall-ms', '20000'],
  });
  const ready = gw.logs.find((l) => l['msg'] === 'ready') as { listeners: Array<{ port: number }> };
  port = ready.listeners[0]!.port;
});
afterAll(async () => {
  for (const n of nodes) n.kill();
  await gw?.stop();
  await mw?.close();
  await ns?.cleanup();
});

function node(id: string, delay: number | 'wait' = 0): PyNode {
  const n = new PyNode(port, id, delay);
  nodes.push(n);
  return n;
}

/** The address the gateway gave the connection whose CMD_UM_INIT names nodeId. */
async function addressOf(nodeId: string): Promise<{ from: string; frame: Uint8Array }> {
  const init = await waitFor(() =>
    mns.got.find((m) => readFscmtCommand(m.dict).name === 'CMD_UM_INIT' && new TextDecoder().decode(m.dict.getText('mi') as Uint8Array) === nodeId),
  );
  return { from: init.from!, frame: init.frame };
}

describe('fscmt-gateway with a Python socket + marshal node scheduler', () => {
  it('CMD_UM_INIT reaches the multinode scheduler byte for byte; CMD_ADM_CONF_ADD, CMD_UM_URI and keep-alives reach Python byte for byte', async () => {
    const py = node('py-node-1');
    const { from, frame } = await addressOf('py-node-1');
    expect(from).toMatch(/^esp\.raw\.fscmt\.gwtest\.tcp\.gw1%2E\d+$/);
    const sent = await waitFor(() => py.lines.find((l) => l['event'] === 'sent' && l['cmd'] === 24));
    expect(hex(frame)).toBe(sent['hex']);

    const confAdd = encodeFscmtFrame(
      buildFscmtNodeSchedulerMessage({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: new FswcuDict([[fswcuBytes('start_uris'), [fswcuBytes('http://127.0.0.1:8080/')]]]), epoch: 1 }),
      1,
    );
    const uris = [0, 1, 2].map((i) => uriFrame(`http://127.0.0.1:8080/page-${i}.html`));
    const keepalive = encodeFscmtFrame(buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 1);
    mns.send(from, confAdd);
    for (const u of uris) mns.send(from, u);
    await mns.ep.flush();
    mns.send(from, keepalive);

    await waitFor(() => py.received(10).length === 1);
    expect(py.received(1).map((l) => l['hex'])).toEqual([hex(confAdd)]);
    expect(py.received(25).map((l) => l['hex'])).toEqual(uris.map(hex));
    expect(py.received(10)[0]!['hex']).toBe(hex(keepalive));
    // the answer to the keep-alive comes back on NATS from the same connection address, as Python wrote it
    const ack = await waitFor(() => mns.got.find((m) => m.from === from && readFscmtCommand(m.dict).name === 'CMD_UM_KEEPALIVE_ACK'));
    expect(ack.priority).toBe(1);
    expect(hex(ack.frame)).toBe(py.lines.find((l) => l['event'] === 'sent' && l['cmd'] === 11)!['hex']);
  });

  it('a high-priority frame overtakes the normal frames queued for a peer that is slow to read', async () => {
    const probe = node('py-probe');
    const py = node('py-slow', 'wait');
    const { from } = await addressOf('py-slow');
    const probeAddress = (await addressOf('py-probe')).from;
    const N = 6000;
    for (let i = 0; i < N; i++) mns.send(from, uriFrame(`http://127.0.0.1:8080/bulk-${i}.html`, 0, 2000));
    await mns.ep.flush();
    mns.send(from, encodeFscmtFrame(buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 1));
    await mns.ep.flush();
    // the gateway takes NATS messages in order: once the probe has its keep-alive, the slow peer's is queued too
    mns.send(probeAddress, encodeFscmtFrame(buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 1));
    await waitFor(() => probe.received(10).length === 1, { timeoutMs: 30_000 });
    py.release();
    await waitFor(() => py.received(25).length === N, { timeoutMs: 30_000 });
    const keepaliveAt = py.received(10)[0]!['n'] as number;
    // 12 MB cannot all sit in socket buffers: most normal frames were still in the gateway's queue and came after
    expect(keepaliveAt).toBeLessThan(N / 2);
  }, 45_000);

  it('a peer sending garbage, an oversized frame or stalling mid-frame is disconnected alone, with a log line', async () => {
    // a gateway of its own with a short stall limit
    const gw2 = await ChildService.start({
      entry: 'apps/fscmt-gateway/src/main.ts',
      args: ['--nats', ns.url, '--cluster', CLUSTER, '--id', 'gw2', '--listen', '127.0.0.1:0=mns/main', '--max-frame-bytes', '1048576', '--stall-ms', '1000'],
    });
    const port = (gw2.logs.find((l) => l['msg'] === 'ready') as { listeners: Array<{ port: number }> }).listeners[0]!.port;
    const py = new PyNode(port, 'py-steady');
    nodes.push(py);
    const { from } = await addressOf('py-steady');
    const raw = (bytes: Uint8Array): Promise<Socket> =>
      new Promise((resolve) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write(bytes);
          resolve(s);
        });
        s.on('error', () => undefined);
      });
    const closed = (s: Socket): Promise<void> => new Promise((r) => (s.destroyed ? r() : s.once('close', () => r())));

    const garbage = await raw(new Uint8Array([0, 0, 0, 5, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a]));
    await closed(garbage);
    const oversized = await raw(new Uint8Array([0x40, 0, 0, 0]));
    await closed(oversized);
    const half = encodeFscmtFrame(buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 0).subarray(0, 7);
    const staller = await raw(half);
    const t0 = Date.now();
    await closed(staller);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);

    const lines = await waitFor(() => {
      const d = gw2.logs.filter((l) => String(l['msg']).startsWith('disconnected:'));
      return d.length >= 3 ? d : undefined;
    });
    expect(lines.map((l) => l['msg'])).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/not an FSWCU tuple/),
        expect.stringMatching(/1048576/),
        expect.stringMatching(/stalled for 1000 ms inside a frame/),
      ]),
    );
    expect(lines.find((l) => /not an FSWCU tuple/.test(String(l['msg'])))).toMatchObject({ code: expect.any(String), offset: 4 });

    // the well-behaved peer never noticed
    mns.send(from, encodeFscmtFrame(buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 1));
    await waitFor(() => mns.got.find((m) => m.from === from && readFscmtCommand(m.dict).name === 'CMD_UM_KEEPALIVE_ACK'));
    expect(py.lines.find((l) => l['event'] === 'closed')).toBeUndefined();
    py.kill();
    await gw2.stop();
  });
});
