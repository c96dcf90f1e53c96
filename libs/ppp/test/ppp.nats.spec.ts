import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { systemClock, type Clock } from '@esp/timers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  encodeFrames,
  PppClient,
  PppNoReply,
  PppNoResponders,
  PppQueue,
  PppQueueFull,
  pppSubjects,
  PppTimeout,
  PppWorker,
  PppWorkerDied,
  replyFrames,
  type QueueAction,
} from '../src/index';
import { LinkProxy } from './fixtures/link-proxy';

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
    // slow heartbeats and a long attempt timeout: this test is about sharing the work, and on a loaded machine (the
    // whole suite at --parallel=2) the first 200 requests through cold code took more than 2 s, and a stall of more
    // than 3 x 100 ms made the queue declare a worker dead
    const hb = 500;
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: hb });
    const workers = await Promise.all(['a', 'b'].map((id) => PppWorker.start(mw.bus, echo(id), { service: svc, id, heartbeatMs: hb })));
    await waitFor(() => queue.machine.stats.workers === 2);
    const client = new PppClient(mw.bus, { service: svc, timeoutMs: 15_000 });
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

  it('Lazy Pirate - nobody on the frontend: the attempt fails at once with PppNoResponders, not after its timeout', async () => {
    const client = new PppClient(mw.bus, { service: service(), timeoutMs: 20_000, retries: 0 });
    const t0 = Date.now();
    const err = await client.request(b('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PppNoReply);
    expect((err as Error).cause).toBeInstanceOf(PppNoResponders);
    expect(Date.now() - t0).toBeLessThan(10_000);
    await client.close();
  });

  it('Lazy Pirate - a reply that comes after its attempt timed out is dropped; the retry gets its own answer', async () => {
    const svc = service();
    // a stand-in for the queue that answers the first attempt late and the second at once, each with its number
    let attempts = 0;
    const late: Promise<void>[] = [];
    const stop = await mw.bus.subscribe(pppSubjects(svc).frontend, (m) => {
      const n = ++attempts;
      const answer = (): boolean => m.respond(encodeFrames(replyFrames([b(`attempt ${n}`)])));
      if (n === 1) late.push(new Promise((r) => setTimeout(() => r(void answer()), 600)));
      else answer();
    });
    const client = new PppClient(mw.bus, { service: svc, timeoutMs: 300, retries: 1, retryBackoffMs: 10 });
    expect(s((await client.request(b('x')))[0])).toBe('attempt 2');
    await Promise.all(late); // the late answer arrives at a client with nothing waiting for it
    const single = new PppClient(mw.bus, { service: svc, timeoutMs: 300, retries: 0 });
    expect(s((await single.request(b('y')))[0])).toBe('attempt 3'); // answered at once
    attempts = 0; // the next one is answered late: a timeout, then PppNoReply
    const timedOut = await single.request(b('z')).catch((e: unknown) => e);
    expect((timedOut as Error).cause).toBeInstanceOf(PppTimeout);
    await Promise.all(late);
    await Promise.all([client.close(), single.close()]);
    await stop();
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

  it('SIGSTOP of a worker process - dead after 3 intervals of silence as the queue saw it, at its expiry; after SIGCONT it sends READY and serves', async () => {
    const svc = service();
    const hb = 500;
    // The claim is about the times the queue observed: from the last message it got from the worker to the moment it
    // declared it dead. Measured from our SIGSTOP instead, it would also include how long before the stop the
    // worker's last heartbeat left, the scheduler's doing on a loaded machine. So the queue runs on the system clock,
    // and every timer of the queue records how late it fired: the death is declared at the worker's expiry, but for
    // that lateness.
    let maxLateMs = 0;
    const clock: Clock = {
      now: () => Date.now(),
      setTimeout: (fn, ms) => {
        const due = Date.now() + ms;
        return systemClock.setTimeout(() => {
          maxLateMs = Math.max(maxLateMs, Date.now() - due);
          fn();
        }, ms);
      },
      clearTimeout: (h) => systemClock.clearTimeout(h),
    };
    const actions: (QueueAction & { at: number })[] = [];
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: hb, clock, onAction: (a) => actions.push({ ...a, at: Date.now() }) });
    const proc = await ChildService.start({ entry: 'libs/ppp/test/fixtures/worker-process.ts', args: [ns.url, svc, 'p1', String(hb)] });
    try {
      await waitFor(() => queue.machine.isAlive('p1'));
      const stoppedAt = Date.now();
      proc.signal('SIGSTOP');
      const dead = await waitFor(() => actions.find((a) => a.type === 'worker-dead' && a.worker === 'p1'), { what: 'worker-dead' });
      if (dead.type !== 'worker-dead') throw new Error('unreachable');
      expect(dead).toMatchObject({ reason: 'silent' });
      expect(dead.at).toBeGreaterThanOrEqual(stoppedAt); // not while it was heartbeating
      // not before 3 intervals of silence
      expect(dead.silentMs).toBeGreaterThanOrEqual(3 * hb);
      proc.signal('SIGCONT');
      await waitFor(() => queue.machine.isAlive('p1'), { what: 'READY after SIGCONT' });
      // and at them: the timer due at the expiry fired at most maxLateMs late (it still fires after the death: a
      // heartbeat tick that came first may have declared it), +2 ms for the millisecond clock read twice
      expect(dead.silentMs).toBeLessThanOrEqual(3 * hb + maxLateMs + 2);
      const client = new PppClient(mw.bus, { service: svc, timeoutMs: 2000 });
      expect(s((await client.request(b('back')))[0])).toBe('p1:back');
    } finally {
      await proc.kill();
      await queue.stop();
    }
  });
  it('nats-server killed and restarted under load - no worker stays busy for good: every request answered, all idle after', async () => {
    // NATS core is at-most-once: requests to busy workers and their replies die with the server. Without the
    // re-synchronisation on link loss those workers stay busy for good (their heartbeats keep them alive).
    const svc = service();
    // Everything here (queue, workers, client) shares one process, which a loaded machine can stall for a few hundred
    // ms, and the queue reads what arrived only after its own timer has run: with 100 ms intervals (300 ms of silence
    // = dead) such a stall after the restart declared a worker dead holding a request already resent once, and the
    // client got PppWorkerDied. The claim here is about the link, not about silence, so the intervals are wide enough
    // for the scheduler (900 ms of silence = dead); a worker that stays busy for good would still never come back idle
    const hb = 300;
    const qmw = await Middleware.connect({ name: 'ppp-test-queue', servers: ns.url });
    const wmw = await Middleware.connect({ name: 'ppp-test-workers', servers: ns.url });
    const actions: QueueAction[] = [];
    const queue = await PppQueue.start(qmw.bus, { service: svc, heartbeatMs: hb, onAction: (a) => actions.push(a) });
    const slow =
      (id: string) =>
      async (content: Uint8Array[]): Promise<Uint8Array[]> => {
        await new Promise((r) => setTimeout(r, 300));
        return echo(id)(content);
      };
    const workers = await Promise.all(['a', 'b', 'c'].map((id) => PppWorker.start(wmw.bus, slow(id), { service: svc, id, heartbeatMs: hb, reconnectInitialMs: hb })));
    try {
      await waitFor(() => queue.machine.stats.workers === 3);
      const client = new PppClient(mw.bus, { service: svc, timeoutMs: 1500, retries: 10, retryBackoffMs: 50 });
      const replies = Promise.all(Array.from({ length: 6 }, (_, i) => client.request(b(String(i)))));
      await waitFor(() => queue.machine.stats.idle === 0, { what: 'all workers busy' });
      await ns.restart({ hard: true });
      expect((await replies).map((r) => s(r[0]).split(':')[1])).toEqual(['0', '1', '2', '3', '4', '5']);
      expect(actions.filter((a) => a.type === 'worker-dead' && a.reason === 'link-lost').length).toBeGreaterThan(0);
      await waitFor(() => queue.machine.stats.workers === 3 && queue.machine.stats.idle === 3, { what: 'every worker back and idle' });
      expect(s((await client.request(b('after')))[0])).toMatch(/^[abc]:after$/);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await queue.stop();
      await qmw.close();
      await wmw.close();
    }
  });
  it("the queue's link breaks while a worker holds a request and the reply is lost - the request is served again", async () => {
    const svc = service();
    const hb = 500; // the link is back long before 3 silent intervals: silence alone would not free the worker
    const proxy = await LinkProxy.start(ns.url);
    const qmw = await Middleware.connect({ name: 'ppp-test-queue', servers: proxy.url });
    const actions: QueueAction[] = [];
    const queue = await PppQueue.start(qmw.bus, { service: svc, heartbeatMs: hb, onAction: (a) => actions.push(a) });
    let calls = 0;
    let linkCut = (): void => undefined;
    const cut = new Promise<void>((r) => (linkCut = r));
    const w = await PppWorker.start(
      mw.bus,
      async (content) => {
        if (++calls === 1) await cut; // the first reply goes out while the queue is away: lost
        return echo('w')(content);
      },
      { service: svc, id: 'w', heartbeatMs: hb, reconnectInitialMs: 100 },
    );
    try {
      await waitFor(() => queue.machine.stats.workers === 1);
      const client = new PppClient(mw.bus, { service: svc, timeoutMs: 8000, retries: 0 });
      const reply = client.request(b('job'));
      await waitFor(() => calls === 1, { what: 'the worker has the request' });
      proxy.cut();
      linkCut();
      expect(s((await reply)[0])).toBe('w:job');
      expect(calls).toBe(2);
      expect(actions.find((a) => a.type === 'worker-dead')).toMatchObject({ worker: 'w', reason: 'link-lost' });
      await waitFor(() => queue.machine.stats.idle === 1, { what: 'the worker idle again' });
    } finally {
      await w.stop();
      await queue.stop();
      await qmw.close();
      await proxy.close();
    }
  });

  it("a worker's link breaks and the request sent to it meanwhile is lost - READY on reconnect, the request is resent", async () => {
    const svc = service();
    const hb = 1000; // silence alone would take 3 s to notice: the answer must come from READY on reconnect
    const proxy = await LinkProxy.start(ns.url);
    const wmw = await Middleware.connect({ name: 'ppp-test-worker', servers: proxy.url });
    const actions: QueueAction[] = [];
    const queue = await PppQueue.start(mw.bus, { service: svc, heartbeatMs: hb, onAction: (a) => actions.push(a) });
    const w = await PppWorker.start(wmw.bus, echo('w'), { service: svc, id: 'w', heartbeatMs: hb });
    try {
      await waitFor(() => queue.machine.stats.workers === 1);
      proxy.cut();
      const client = new PppClient(mw.bus, { service: svc, timeoutMs: 8000, retries: 0 });
      const t0 = Date.now();
      expect(s((await client.request(b('job')))[0])).toBe('w:job');
      expect(Date.now() - t0).toBeLessThan(2 * hb);
      expect(actions.filter((a) => a.type === 'worker-dead')).toEqual([]);
      expect(actions.filter((a) => a.type === 'worker-ready').length).toBe(2);
    } finally {
      await w.stop();
      await queue.stop();
      await wmw.close();
      await proxy.close();
    }
  });

});
