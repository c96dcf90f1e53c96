import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PppClient, PppNoReply, PppQueue, PppQueueFull, PppWorker, PppWorkerDied, type QueueAction } from '../src/index';

const b = (s: string): Uint8Array => new TextEncoder().encode(s);
const s = (u: Uint8Array | undefined): string => new TextDecoder().decode(u);
const HB = 100;

let ns: NatsServer;
let mw: Middleware;
let n = 0;
const service = (): string => `svc${++n}`;

beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  mw = await Middleware.connect({ name: 'ppp-test', servers: ns.url });
});
afterAll(async () => {
  await mw?.close();
  await ns?.cleanup();
});

const echo =
  (id: string) =>
  (content: Uint8Array[]): Uint8Array[] => [b(`${id}:${s(content[0])}`)];

describe('PPP on a real nats-server', () => {
  it('queue, two workers, a client - every request answered, both workers serve', async () => {
    const svc = service();
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: HB });
    const workers = await Promise.all(['a', 'b'].map((id) => PppWorker.start(mw.bus, echo(id), { service: svc, id, heartbeatMs: HB })));
    await waitFor(() => queue.machine.stats.workers === 2);
    const client = new PppClient(mw.bus, { service: svc, timeoutMs: 2000 });
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => client.request([b(String(i)), b('second part')])));
    expect(replies.map((r) => s(r[0]).split(':')[1])).toEqual(Array.from({ length: 200 }, (_, i) => String(i)));
    expect(new Set(replies.map((r) => s(r[0]).split(':')[0]))).toEqual(new Set(['a', 'b']));
    await Promise.all(workers.map((w) => w.stop()));
    await queue.stop();
  });

  it('a worker that goes silent holding a request - the request is answered by another worker', async () => {
    const svc = service();
    const actions: QueueAction[] = [];
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: HB, onAction: (a) => actions.push(a) });
    const hung = await PppWorker.start(mw.bus, () => new Promise<Uint8Array[]>(() => undefined), { service: svc, id: 'hung', heartbeatMs: HB });
    await waitFor(() => queue.machine.stats.workers === 1);
    const client = new PppClient(mw.bus, { service: svc, timeoutMs: 5000, retries: 0 });
    const reply = client.request(b('job'));
    await waitFor(() => queue.machine.stats.idle === 0);
    await hung.stop(); // silent from now on, like a crash
    const good = await PppWorker.start(mw.bus, echo('good'), { service: svc, id: 'good', heartbeatMs: HB });
    expect(s((await reply)[0])).toBe('good:job');
    const dead = actions.find((a) => a.type === 'worker-dead');
    expect(dead).toMatchObject({ worker: 'hung', request: expect.any(String) });
    await good.stop();
    await queue.stop();
  });

  it('resends spent - the client gets PppWorkerDied', async () => {
    const svc = service();
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: HB, maxResends: 0 });
    const hung = await PppWorker.start(mw.bus, () => new Promise<Uint8Array[]>(() => undefined), { service: svc, heartbeatMs: HB });
    await waitFor(() => queue.machine.stats.workers === 1);
    const client = new PppClient(mw.bus, { service: svc, timeoutMs: 5000, retries: 0 });
    const reply = client.request(b('job'));
    await waitFor(() => queue.machine.stats.idle === 0);
    await hung.stop();
    await expect(reply).rejects.toBeInstanceOf(PppWorkerDied);
    await queue.stop();
  });

  it('bounded queue - with no worker free, requests beyond maxPending are refused with PppQueueFull', async () => {
    const svc = service();
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: HB, maxPending: 1 });
    const client = new PppClient(mw.bus, { service: svc, timeoutMs: 5000, retries: 0 });
    const first = client.request(b('1'));
    await waitFor(() => queue.machine.stats.pending === 1);
    const err = await client.request(b('2')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PppNoReply);
    expect((err as Error).cause).toBeInstanceOf(PppQueueFull);
    const w = await PppWorker.start(mw.bus, echo('late'), { service: svc, heartbeatMs: HB });
    expect(s((await first)[0])).toBe('late:1');
    await w.stop();
    await queue.stop();
  });

  it('Lazy Pirate - no queue: bounded retries, then PppNoReply', async () => {
    const client = new PppClient(mw.bus, { service: service(), timeoutMs: 100, retries: 2, retryBackoffMs: 10 });
    const t0 = Date.now();
    await expect(client.request(b('x'))).rejects.toThrow(/after 3 attempt/);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('Lazy Pirate - a queue that comes up during the retries serves the request', async () => {
    const svc = service();
    const client = new PppClient(mw.bus, { service: svc, timeoutMs: 300, retries: 10, retryBackoffMs: 50 });
    const reply = client.request(b('x'));
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: HB });
    const w = await PppWorker.start(mw.bus, echo('w'), { service: svc, heartbeatMs: HB });
    expect(s((await reply)[0])).toBe('w:x');
    await w.stop();
    await queue.stop();
  });

  it('a queue that restarts - the worker finds it silent, sends READY again and serves', async () => {
    const svc = service();
    let queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: HB });
    const w = await PppWorker.start(mw.bus, echo('w'), { service: svc, heartbeatMs: HB, reconnectInitialMs: HB });
    await waitFor(() => queue.machine.stats.workers === 1);
    await queue.stop();
    queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: HB });
    await waitFor(() => queue.machine.stats.workers === 1, { what: 'READY again' });
    const client = new PppClient(mw.bus, { service: svc, timeoutMs: 2000 });
    expect(s((await client.request(b('again')))[0])).toBe('w:again');
    await w.stop();
    await queue.stop();
  });

  it('SIGSTOP of a worker process - dead after 3 intervals ±1; after SIGCONT it sends READY and serves', async () => {
    const svc = service();
    const hb = 400;
    const actions: (QueueAction & { at: number })[] = [];
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: hb, onAction: (a) => actions.push({ ...a, at: Date.now() }) });
    const proc = await ChildService.start({ entry: 'libs/ppp/test/fixtures/worker-process.ts', args: [ns.url, svc, 'p1', String(hb)] });
    try {
      await waitFor(() => queue.machine.isAlive('p1'));
      const stoppedAt = Date.now();
      proc.signal('SIGSTOP');
      const dead = await waitFor(() => actions.find((a) => a.type === 'worker-dead' && a.worker === 'p1'), { what: 'worker-dead' });
      const detection = dead.at - stoppedAt;
      expect(detection).toBeGreaterThanOrEqual(2 * hb - 50);
      expect(detection).toBeLessThanOrEqual(4 * hb + 200); // 3 intervals ±1, plus timer slack on a busy machine
      proc.signal('SIGCONT');
      await waitFor(() => queue.machine.isAlive('p1'), { what: 'READY after SIGCONT' });
      const client = new PppClient(mw.bus, { service: svc, timeoutMs: 2000 });
      expect(s((await client.request(b('back')))[0])).toBe('p1:back');
    } finally {
      await proc.kill();
      await queue.stop();
    }
  });
});
