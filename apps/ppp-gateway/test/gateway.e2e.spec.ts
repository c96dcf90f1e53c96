import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { PppClient, PppQueue, PppWorker, type QueueAction } from '@esp/ppp';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { Dealer } from 'zeromq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../src/gateway';

// Debian's interpreter has python3-zmq; the python3 on the PATH may be another one without it
const PYTHON = '/usr/bin/python3';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PEERS = fileURLToPath(new URL('./peers/', import.meta.url));
const HB = 250;

const b = (s: string): Uint8Array => new TextEncoder().encode(s);
const s = (u: Uint8Array | undefined): string => new TextDecoder().decode(u);

/** A Python peer: its stdout lines are kept, it dies with the test. */
class PyPeer {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  constructor(script: string, args: string[]) {
    this.child = spawn(PYTHON, [PEERS + script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = this.child.stdout;
    if (out) createInterface({ input: out }).on('line', (l) => this.lines.push(l));
    this.child.stderr?.on('data', (d: Buffer) => this.lines.push(`stderr: ${d.toString()}`));
    this.exited = new Promise((r) => this.child.once('exit', (code) => r(code)));
    peers.push(this);
  }
  waitLine(re: RegExp, timeoutMs = 10_000): Promise<string> {
    return waitFor(() => this.lines.find((l) => re.test(l)), { timeoutMs, what: `${re} in ${JSON.stringify(this.lines)}` });
  }
  kill(sig: NodeJS.Signals = 'SIGKILL'): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(sig);
  }
}
const peers: PyPeer[] = [];

let ns: NatsServer;
let mw: Middleware;
let n = 0;

beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  mw = await Middleware.connect({ name: 'ppp-gateway-test', servers: ns.url });
});
afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill();
    await p.exited;
  }
});
afterAll(async () => {
  await mw?.close();
  await ns?.cleanup();
});

/** A PPP queue and a gateway in this process, on fresh ports and a fresh service name. */
async function setup(): Promise<{ service: string; queue: PppQueue; gateway: Gateway; actions: QueueAction[]; stop: () => Promise<void> }> {
  const service = `gw${++n}`;
  const actions: QueueAction[] = [];
  const queue = await PppQueue.start(mw.bus, { service, heartbeatMs: HB, onAction: (a) => actions.push(a) });
  const gateway = await startGateway(mw.bus, {
    service,
    frontend: 'tcp://127.0.0.1:*',
    backend: 'tcp://127.0.0.1:*',
    heartbeatMs: HB,
    liveness: 3,
    requestTimeoutMs: 10_000,
    maxInflight: 100,
    log: createLogger('ppp-gateway-test'),
  });
  return {
    service,
    queue,
    gateway,
    actions,
    stop: async () => {
      await gateway.stop();
      await queue.stop();
    },
  };
}

describe('ppp-gateway with Python peers (python3-zmq)', () => {
  it('a Python PPP worker serves a request of our NATS client through the gateway', async () => {
    const g = await setup();
    try {
      const py = new PyPeer('ppworker.py', [g.gateway.backend, 'py1', '--interval-ms', String(HB)]);
      await waitFor(() => g.queue.machine.stats.workers === 1, { what: 'the Python worker READY at the queue' });
      const client = new PppClient(mw.bus, { service: g.service, timeoutMs: 5000, retries: 0 });
      expect(s((await client.request([b('hello'), b('second')]))[0])).toBe('py1:hello');
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => client.request(b(String(i)))));
      expect(many.map((r) => s(r[0]))).toEqual(Array.from({ length: 20 }, (_, i) => `py1:${i}`));
      await py.waitLine(/^served 19$/);
      // idle for a while: heartbeats both ways through the gateway keep it alive
      await new Promise((r) => setTimeout(r, 8 * HB)); // observation window, not a synchronisation
      expect(g.actions.filter((a) => a.type === 'worker-dead')).toEqual([]);
      expect(py.lines.filter((l) => l.startsWith('queue silent'))).toEqual([]);
    } finally {
      await g.stop();
    }
  });

  it('a Python Lazy Pirate client is served by our NATS workers', async () => {
    const g = await setup();
    const workers = await Promise.all(
      ['n1', 'n2'].map((id) => PppWorker.start(mw.bus, (c) => [b(`${id}:${s(c[0])}`)], { service: g.service, id, heartbeatMs: HB })),
    );
    try {
      await waitFor(() => g.queue.machine.stats.workers === 2);
      const py = new PyPeer('lpclient.py', [g.gateway.frontend, '20', '--timeout-ms', '2500', '--retries', '3']);
      expect(await py.exited).toBe(0);
      const replies = py.lines.filter((l) => l.startsWith('reply '));
      expect(replies).toHaveLength(20);
      expect(new Set(replies.map((l) => l.slice(6, 8)))).toEqual(new Set(['n1', 'n2']));
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await g.stop();
    }
  });

  it('a Python worker killed (SIGKILL) while holding a request - another worker answers it', async () => {
    const g = await setup();
    try {
      const holder = new PyPeer('ppworker.py', [g.gateway.backend, 'holder', '--interval-ms', String(HB), '--hold']);
      await waitFor(() => g.queue.machine.stats.workers === 1);
      const other = new PyPeer('ppworker.py', [g.gateway.backend, 'other', '--interval-ms', String(HB)]);
      await waitFor(() => g.queue.machine.stats.workers === 2);
      // the least recently used worker (the holder, READY first) gets the request; no client retry: the queue resends
      const client = new PppClient(mw.bus, { service: g.service, timeoutMs: 15_000, retries: 0 });
      const reply = client.request(b('job'));
      await holder.waitLine(/^holding job$/);
      holder.kill('SIGKILL');
      expect(s((await reply)[0])).toBe('other:job');
      await other.waitLine(/^served job$/);
      expect(g.actions.find((a) => a.type === 'worker-dead')).toMatchObject({ request: expect.any(String) });
    } finally {
      await g.stop();
    }
  });

  it('malformed frames are dropped and logged; a peer that never reads its replies stalls no one', async () => {
    const g = await setup();
    const bad = new Dealer();
    const greedy = new Dealer();
    try {
      const worker = await PppWorker.start(mw.bus, (c) => [b(`n:${s(c[0])}`)], { service: g.service, heartbeatMs: HB });
      await waitFor(() => g.queue.machine.stats.workers === 1);
      bad.connect(g.gateway.backend);
      await bad.send([Uint8Array.of(9)]); // neither READY nor HEARTBEAT
      await bad.send([b('addr'), b('no delimiter')]);
      bad.connect(g.gateway.frontend);
      greedy.connect(g.gateway.frontend);
      for (let i = 0; i < 50; i++) await greedy.send([new Uint8Array(0), b(`g${i}`)]); // replies never read
      await bad.send([b('no delimiter')]);
      const py = new PyPeer('lpclient.py', [g.gateway.frontend, '5']);
      expect(await py.exited).toBe(0);
      await waitFor(() => g.gateway.stats.dropped >= 3, { what: 'three malformed messages dropped' });
      await worker.stop();
    } finally {
      bad.close();
      greedy.close();
      await g.stop();
    }
  });
});

describe('ppp-gateway process', () => {
  it('--help prints the usage and exits 0', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'apps/ppp-gateway/src/main.ts', '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toMatch(/Usage: ppp-gateway/);
  });

  it('logs "ready" with its endpoints; with --queue a Python worker serves our NATS client through it', async () => {
    const gw = await ChildService.start({
      entry: 'apps/ppp-gateway/src/main.ts',
      args: ['--nats', ns.url, '--service', 'proc', '--frontend', 'tcp://127.0.0.1:*', '--backend', 'tcp://127.0.0.1:*', '--queue', '--heartbeat-ms', String(HB)],
    });
    try {
      const ready = gw.logs.find((l) => l['msg'] === 'ready');
      expect(ready?.['frontend']).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
      const backend = String(ready?.['backend']);
      new PyPeer('ppworker.py', [backend, 'pyproc', '--interval-ms', String(HB)]);
      const client = new PppClient(mw.bus, { service: 'proc', timeoutMs: 1000, retries: 10 });
      expect(s((await client.request(b('x')))[0])).toBe('pyproc:x');
    } finally {
      await gw.stop();
    }
  });
});
