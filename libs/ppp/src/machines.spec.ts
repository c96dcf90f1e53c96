import { ManualClock, type Clock, type TimerHandle } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { PppQueueFull, PppWorkerDied } from './errors';
import { QueueMachine, type QueueAction, type QueueOptions } from './queue-machine';
import { WorkerMachine, type WorkerAction } from './worker-machine';

const b = (s: string): Uint8Array => new TextEncoder().encode(s);
const s = (u: Uint8Array | undefined): string => new TextDecoder().decode(u);

/** A process's view of a shared clock that SIGSTOP can freeze: its timers fire only after resume. */
class PausableClock implements Clock {
  paused = false;
  private deferred: (() => void)[] = [];
  constructor(private readonly inner: ManualClock) {}
  now(): number {
    return this.inner.now();
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.inner.setTimeout(() => (this.paused ? this.deferred.push(fn) : fn()), ms);
  }
  clearTimeout(h: TimerHandle): void {
    this.inner.clearTimeout(h);
  }
  resume(): void {
    this.paused = false;
    const d = this.deferred.splice(0);
    for (const fn of d) fn();
  }
}

/** A queue and workers wired together in memory, on one ManualClock; workers can be paused (SIGSTOP) and resumed. */
class World {
  readonly clock = new ManualClock(1_000_000);
  readonly queueLog: (QueueAction & { at: number })[] = [];
  readonly workerLog: (WorkerAction & { at: number; worker: string })[] = [];
  readonly queue: QueueMachine;
  readonly workers = new Map<string, { m: WorkerMachine; clock: PausableClock; inbox: Uint8Array[][]; auto: boolean }>();

  constructor(opts: QueueOptions = {}) {
    this.queue = new QueueMachine((a) => {
      this.queueLog.push({ ...a, at: this.clock.now() });
      if (a.type === 'send') {
        const w = this.workers.get(a.worker);
        if (!w) return;
        if (w.clock.paused) w.inbox.push(a.frames);
        else w.m.onMessage(a.frames);
      }
    }, { clock: this.clock, ...opts });
    this.queue.start();
  }

  addWorker(id: string, auto = true): WorkerMachine {
    const clock = new PausableClock(this.clock);
    const m = new WorkerMachine((a) => {
      this.workerLog.push({ ...a, at: this.clock.now(), worker: id });
      if (a.type === 'send') this.queue.onWorker(id, a.frames);
      if (a.type === 'request' && this.workers.get(id)?.auto) m.reply(a.envelope, [b(`${id}:${s(a.content[0])}`)]);
    }, { clock });
    this.workers.set(id, { m, clock, inbox: [], auto });
    m.start();
    return m;
  }

  pause(id: string): void {
    const w = this.workers.get(id);
    if (w) w.clock.paused = true;
  }

  resume(id: string): void {
    const w = this.workers.get(id);
    if (!w) return;
    w.clock.resume();
    for (const f of w.inbox.splice(0)) w.m.onMessage(f);
  }

  /** Advances in small steps, as the real event loop would interleave. */
  run(ms: number, step = 50): void {
    for (let t = 0; t < ms; t += step) this.clock.advance(Math.min(step, ms - t));
  }

  of<T extends QueueAction['type']>(type: T): (Extract<QueueAction, { type: T }> & { at: number })[] {
    return this.queueLog.filter((a): a is Extract<QueueAction, { type: T }> & { at: number } => a.type === type);
  }
}

describe('PPP state machines on a ManualClock (interval 1000 ms, liveness 3)', () => {
  it('idle for 20 intervals - heartbeats both ways, nobody is declared dead', () => {
    const w = new World();
    w.addWorker('a');
    w.addWorker('b');
    w.run(20_000);
    expect(w.of('worker-dead')).toEqual([]);
    expect(w.workerLog.filter((a) => a.type === 'queue-dead')).toEqual([]);
    const hbToA = w.of('send').filter((a) => a.worker === 'a' && a.frames.length === 1 && a.frames[0]?.[0] === 2).length;
    const hbFromA = w.workerLog.filter((a) => a.worker === 'a' && a.type === 'send' && a.frames[0]?.[0] === 2).length;
    expect(hbToA).toBeGreaterThanOrEqual(19);
    expect(hbFromA).toBeGreaterThanOrEqual(19);
    expect(w.queue.stats).toEqual({ workers: 2, idle: 2, pending: 0 });
  });

  it('silent (SIGSTOP) worker - dead after 3 intervals ±1; after SIGCONT it sends READY and serves again', () => {
    const w = new World();
    w.addWorker('a');
    w.run(5_000);
    const stoppedAt = w.clock.now();
    w.pause('a');
    w.run(6_000);
    const [dead] = w.of('worker-dead');
    expect(dead?.worker).toBe('a');
    const detection = (dead?.at ?? 0) - stoppedAt;
    expect(detection).toBeGreaterThanOrEqual(2_000);
    expect(detection).toBeLessThanOrEqual(4_000);
    expect(w.queue.isAlive('a')).toBe(false);
    // the queue stops sending to a dead worker: no heartbeats went to it after it was declared dead
    expect(w.of('send').filter((a) => a.worker === 'a' && a.at > (dead?.at ?? 0))).toEqual([]);

    w.resume('a');
    const resumedAt = w.clock.now();
    w.run(10_000);
    const readyAgain = w.of('worker-ready').filter((a) => a.at > resumedAt);
    expect(readyAgain).toHaveLength(1);
    w.queue.onRequest('r1', [b('hi')]);
    expect(w.of('reply').map((a) => s(a.content[0]))).toEqual(['a:hi']);
  });

  it('LRU - requests go to the least recently used idle worker first', () => {
    const w = new World();
    for (const id of ['a', 'b', 'c']) w.addWorker(id, false);
    const sentTo = (): string[] => w.of('send').filter((a) => a.frames.length > 1).map((a) => a.worker);
    w.queue.onRequest('r1', [b('1')]);
    w.queue.onRequest('r2', [b('2')]);
    expect(sentTo()).toEqual(['a', 'b']);
    // b answers first, then a: c is still the least recently used, then b, then a
    const req = (id: string): Uint8Array[] => w.of('send').filter((a) => a.worker === id && a.frames.length > 1)[0]?.frames ?? [];
    w.queue.onWorker('b', [req('b')[0] ?? b(''), new Uint8Array(0), b('B')]);
    w.queue.onWorker('a', [req('a')[0] ?? b(''), new Uint8Array(0), b('A')]);
    for (const r of ['r3', 'r4', 'r5']) w.queue.onRequest(r, [b(r)]);
    expect(sentTo()).toEqual(['a', 'b', 'c', 'b', 'a']);
    expect(w.of('reply').map((a) => [a.request, s(a.content[0])])).toEqual([
      ['r2', 'B'],
      ['r1', 'A'],
    ]);
  });

  it('bounded - requests wait while no worker is free, beyond maxPending they fail with PppQueueFull', () => {
    const w = new World({ maxPending: 2 });
    for (const r of ['r1', 'r2', 'r3']) w.queue.onRequest(r, [b(r)]);
    const [fail] = w.of('fail');
    expect(fail?.request).toBe('r3');
    expect(fail?.error).toBeInstanceOf(PppQueueFull);
    expect(fail?.error.retryable).toBe(true);
    expect(w.queue.stats.pending).toBe(2);
    w.addWorker('a');
    expect(w.of('reply').map((a) => s(a.content[0]))).toEqual(['a:r1', 'a:r2']);
  });

  it('recovery - the request of a worker that dies is resent to another worker once, then failed', () => {
    const w = new World({ maxResends: 1 });
    w.addWorker('a', false);
    w.addWorker('b', false);
    w.queue.onRequest('r1', [b('x')]);
    w.pause('a');
    w.run(5_000);
    expect(w.of('worker-dead').map((a) => [a.worker, a.request])).toEqual([['a', 'r1']]);
    expect(w.of('send').filter((a) => a.frames.length > 1).map((a) => a.worker)).toEqual(['a', 'b']);
    w.pause('b');
    w.run(5_000);
    const [fail] = w.of('fail');
    expect(fail?.request).toBe('r1');
    expect(fail?.error).toBeInstanceOf(PppWorkerDied);
    expect(fail?.error.message).toMatch(/died holding request r1; resent 1 time/);
  });

  it('recovery - maxResends 0 fails the request back at once; a late reply of the dead worker is dropped', () => {
    const w = new World({ maxResends: 0 });
    w.addWorker('a', false);
    w.queue.onRequest('r1', [b('x')]);
    const addr = w.of('send').find((a) => a.frames.length > 1)?.frames[0] ?? b('');
    w.pause('a');
    w.run(5_000);
    expect(w.of('fail').map((a) => a.error.code)).toEqual(['worker_died']);
    w.queue.onWorker('a', [addr, new Uint8Array(0), b('late')]);
    expect(w.of('reply')).toEqual([]);
    expect(w.of('dropped').at(-1)?.reason).toMatch(/not ready/);
  });

  it('reply address - only the exact address of the held request is a reply (same length, prefix, extra frame: dropped)', () => {
    const w = new World();
    w.addWorker('a', false);
    w.queue.onRequest('r12', [b('x')]);
    for (const envelope of [[b('r13')], [b('r1')], [b('r123')], [b('r12'), b('r12')]]) w.queue.onWorker('a', [...envelope, new Uint8Array(0), b('bad')]);
    expect(w.of('reply')).toEqual([]);
    expect(w.of('dropped').map((a) => a.reason)).toEqual([
      'reply for r13 while holding r12',
      'reply for r1 while holding r12',
      'reply for r123 while holding r12',
      'reply for an unknown address while holding r12',
    ]);
    w.queue.onWorker('a', [b('r12'), new Uint8Array(0), b('good')]);
    expect(w.of('reply').map((a) => [a.request, s(a.content[0])])).toEqual([['r12', 'good']]);
  });

  it('READY from a worker that holds a request - the request is recovered and the worker is idle again', () => {
    const w = new World();
    w.addWorker('a', false);
    w.queue.onRequest('r1', [b('x')]);
    w.queue.onWorker('a', [Uint8Array.of(1)]);
    expect(w.of('send').filter((a) => a.frames.length > 1).map((a) => a.worker)).toEqual(['a', 'a']);
  });

  it('link lost (queue side) - busy workers are dead at once, their requests resent; idle ones stay; READY brings them back', () => {
    const w = new World();
    w.addWorker('a', false);
    w.addWorker('b', false);
    w.addWorker('c', false);
    w.queue.onRequest('r1', [b('x')]);
    w.queue.onRequest('r2', [b('y')]);
    w.queue.onLinkLost();
    expect(w.of('worker-dead').map((a) => [a.worker, a.request, a.reason])).toEqual([
      ['a', 'r1', 'link-lost'],
      ['b', 'r2', 'link-lost'],
    ]);
    // r1 went to the one idle worker at once, r2 waits for a worker
    expect(w.of('send').filter((a) => a.frames.length > 1).map((a) => a.worker)).toEqual(['a', 'b', 'c']);
    expect(w.queue.stats).toEqual({ workers: 1, idle: 0, pending: 1 });
    // a's late reply and heartbeats are dropped; its READY (after it finds the queue silent) makes it serve r2
    w.queue.onWorker('a', [b('r1'), new Uint8Array(0), b('late')]);
    expect(w.of('reply')).toEqual([]);
    w.queue.onWorker('a', [Uint8Array.of(1)]);
    expect(w.of('send').filter((a) => a.frames.length > 1).map((a) => [a.worker, s(a.frames[0])])).toEqual([
      ['a', 'r1'],
      ['b', 'r2'],
      ['c', 'r1'],
      ['a', 'r2'],
    ]);
  });

  it('link reset (worker side) - a live worker sends READY again; the queue resends the request it thought the worker held', () => {
    const w = new World();
    const a = w.addWorker('a', false);
    w.queue.onRequest('r1', [b('x')]);
    a.onLinkReset();
    expect(w.workerLog.filter((x) => x.type === 'send' && x.frames[0]?.[0] === 1)).toHaveLength(2);
    expect(w.of('send').filter((x) => x.frames.length > 1).map((x) => [x.worker, s(x.frames[0])])).toEqual([
      ['a', 'r1'],
      ['a', 'r1'],
    ]);
    // a worker waiting to reconnect after a dead queue sends nothing extra: its READY comes with the reconnect
    const clock = new ManualClock();
    const log: WorkerAction[] = [];
    const m = new WorkerMachine((x) => log.push(x), { clock });
    m.start();
    clock.advance(3000);
    expect(m.status).toBe('waiting');
    const before = log.length;
    m.onLinkReset();
    expect(log.length).toBe(before);
  });

  it('worker - a dead queue means READY again after a backoff doubling from 1 s to 32 s', () => {
    const clock = new ManualClock();
    const log: (WorkerAction & { at: number })[] = [];
    const m = new WorkerMachine((a) => log.push({ ...a, at: clock.now() }), { clock });
    m.start();
    clock.advance(400_000);
    const waits = log.filter((a): a is Extract<WorkerAction, { type: 'queue-dead' }> & { at: number } => a.type === 'queue-dead').map((a) => a.retryInMs);
    expect(waits.slice(0, 8)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 32_000, 32_000]);
    const readies = log.filter((a) => a.type === 'send' && a.frames[0]?.[0] === 1);
    expect(readies.length).toBe(waits.length + (m.status === 'live' ? 1 : 0));
    // first READY at once, the queue declared dead after 3 intervals (checked each interval)
    const firstDead = log.find((a) => a.type === 'queue-dead');
    expect(firstDead?.at).toBe(3000);
  });

  it('worker - any message from the queue counts as life', () => {
    const clock = new ManualClock();
    const log: WorkerAction[] = [];
    const m = new WorkerMachine((a) => log.push(a), { clock, heartbeatMs: 100 });
    m.start();
    for (let i = 0; i < 50; i++) {
      clock.advance(250);
      m.onMessage([new Uint8Array(0), b('work')]);
    }
    expect(log.filter((a) => a.type === 'queue-dead')).toEqual([]);
    expect(log.filter((a) => a.type === 'request')).toHaveLength(50);
  });
});
