/**
 * The PPP queue as a state machine, after zguide ppqueue.c: events in (a worker's message, a client's request,
 * time), actions out (send to a worker, answer a client). One record per worker; its expiry kept by a
 * LivenessTracker, the heartbeats to it sent by a HeartbeatSender; idle workers in LRU order; client requests wait in
 * a bounded line while no worker is free. No I/O: the NATS plumbing is queue.ts.
 */
import { systemClock, type Clock } from '@esp/timers';
import { PppQueueFull, PppWorkerDied, type PppError } from './errors';
import { HeartbeatSender } from './heartbeat-sender';
import { LivenessTracker } from './liveness-tracker';
import { envelopeFrames, HEARTBEAT_INTERVAL_MS, HEARTBEAT_LIVENESS, parsePppMessage } from './protocol';

export interface QueueOptions {
  /** Heartbeat interval agreed with the workers (ms, default 1000). */
  heartbeatMs?: number;
  /** A worker silent for liveness × heartbeatMs is dead (default 3). */
  liveness?: number;
  /** Client requests that may wait for a free worker; beyond that, PppQueueFull (default 256). */
  maxPending?: number;
  /** How often a request whose worker died is given to another worker before failing (default 1; 0 = never). */
  maxResends?: number;
  clock?: Clock;
}

export type QueueAction =
  | { type: 'send'; worker: string; frames: Uint8Array[] }
  | { type: 'reply'; request: string; content: Uint8Array[] }
  | { type: 'fail'; request: string; error: PppError }
  | { type: 'worker-ready'; worker: string }
  /** silent: no message for liveness × interval; link-lost: busy while our connection to the bus broke. */
  | { type: 'worker-dead'; worker: string; silentMs: number; request?: string; reason: 'silent' | 'link-lost' }
  | { type: 'dropped'; worker: string; reason: string };

interface Request {
  id: string;
  /** The id as the address frame the worker echoes back (encoded once, compared as bytes). */
  address: Uint8Array;
  content: Uint8Array[];
  resends: number;
}

/** A request whose worker is gone, and why. */
interface Lost {
  req: Request;
  why: string;
}

interface Worker {
  id: string;
  request: Request | undefined;
}

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

export class QueueMachine {
  readonly heartbeatMs: number;
  readonly liveness: number;
  private readonly maxPending: number;
  private readonly maxResends: number;
  private readonly clock: Clock;
  private readonly workers = new Map<string, Worker>();
  /** Idle workers, least recently used first. */
  private ready: string[] = [];
  private pending: Request[] = [];
  private readonly tracker: LivenessTracker;
  private readonly heartbeats: HeartbeatSender;

  constructor(
    private readonly emit: (a: QueueAction) => void,
    opts: QueueOptions = {},
  ) {
    this.heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
    this.liveness = opts.liveness ?? HEARTBEAT_LIVENESS;
    this.maxPending = opts.maxPending ?? 256;
    this.maxResends = opts.maxResends ?? 1;
    this.clock = opts.clock ?? systemClock;
    this.tracker = new LivenessTracker({ intervalMs: this.heartbeatMs, liveness: this.liveness, clock: this.clock, onDead: (id, silentMs) => this.onSilent(id, silentMs) });
    this.heartbeats = new HeartbeatSender({
      intervalMs: this.heartbeatMs,
      clock: this.clock,
      send: (frame) => {
        // workers whose time is up at this very tick are dead first: no heartbeat to them
        this.tracker.sweep();
        for (const w of this.workers.values()) this.emit({ type: 'send', worker: w.id, frames: [frame] });
      },
    });
  }

  /** Starts the heartbeats to every live worker (workers are declared dead by their silence even before). */
  start(): void {
    this.heartbeats.start();
  }

  stop(): void {
    this.heartbeats.stop();
    this.tracker.stop();
  }

  get stats(): { workers: number; idle: number; pending: number } {
    return { workers: this.workers.size, idle: this.ready.length, pending: this.pending.length };
  }

  isAlive(worker: string): boolean {
    return this.workers.has(worker);
  }

  /** A message from a worker (its identity already taken off). Any message counts as life. */
  onWorker(id: string, frames: readonly Uint8Array[]): void {
    const msg = parsePppMessage(frames);
    let w = this.workers.get(id);
    if (msg.kind === 'ready') {
      if (w?.request) this.recover([{ req: w.request, why: `worker ${id} restarted (READY) while holding request ${w.request.id}` }]);
      w = { id, request: undefined };
      this.workers.set(id, w);
      this.ready = this.ready.filter((r) => r !== id);
      this.ready.push(id);
      this.emit({ type: 'worker-ready', worker: id });
    }
    if (!w) {
      // not READY from a worker we don't know (or declared dead): stop talking to it; it will send READY again
      this.emit({ type: 'dropped', worker: id, reason: `${msg.kind} from a worker that is not ready` });
      return;
    }
    this.tracker.track(id);
    if (msg.kind === 'malformed') this.emit({ type: 'dropped', worker: id, reason: msg.reason });
    if (msg.kind === 'envelope') {
      const req = w.request;
      const addr = msg.envelope.length === 1 ? msg.envelope[0] : undefined;
      if (!req || !addr || !sameBytes(addr, req.address)) {
        const what = addr ? utf8d.decode(addr) : 'an unknown address';
        this.emit({ type: 'dropped', worker: id, reason: `reply for ${what} while holding ${req?.id ?? 'nothing'}` });
      } else {
        w.request = undefined;
        this.ready.push(id);
        this.emit({ type: 'reply', request: req.id, content: msg.content });
      }
    }
    this.dispatch();
  }

  /** A client's request (its content frames); `id` must be unique among the requests in flight. */
  onRequest(id: string, content: Uint8Array[]): void {
    if (this.ready.length === 0 && this.pending.length >= this.maxPending) {
      this.emit({ type: 'fail', request: id, error: new PppQueueFull(`no worker free and ${this.pending.length} requests waiting (max ${this.maxPending})`) });
      return;
    }
    this.pending.push({ id, address: addressOf(id), content, resends: 0 });
    this.dispatch();
  }

  /**
   * Our connection to the bus broke. NATS core is at-most-once: a request on its way to a busy worker, or that
   * worker's reply, may be gone, and the worker would then stay busy for good while its heartbeats keep it alive.
   * So every busy worker is treated as dead now: its request is resent or failed as for a silent worker, and the
   * worker, no longer heartbeated, sends READY again when it finds us silent (at once if its own link was reset too).
   * Idle workers lose nothing that matters (a heartbeat).
   */
  onLinkLost(): void {
    const now = this.clock.now();
    const lost: Lost[] = [];
    for (const w of [...this.workers.values()]) {
      const req = w.request;
      if (!req) continue;
      this.workers.delete(w.id);
      const silentMs = now - (this.tracker.lastHeard(w.id) ?? now);
      this.tracker.forget(w.id);
      this.emit({ type: 'worker-dead', worker: w.id, silentMs, request: req.id, reason: 'link-lost' });
      lost.push({ req, why: `link lost while worker ${w.id} held request ${req.id}` });
    }
    this.recover(lost);
    this.dispatch();
  }

  private dispatch(): void {
    while (this.ready.length > 0 && this.pending.length > 0) {
      const w = this.workers.get(this.ready.shift() ?? '');
      const req = this.pending.shift();
      if (!w || !req) continue;
      w.request = req;
      this.emit({ type: 'send', worker: w.id, frames: envelopeFrames([req.address], req.content) });
    }
  }

  /** The tracker found the worker silent for liveness × interval: it is gone, its request is resent or failed. */
  private onSilent(id: string, silentMs: number): void {
    // a worker comes back only with READY, as a new record
    this.tracker.forget(id);
    const w = this.workers.get(id);
    if (!w) return;
    this.workers.delete(id);
    this.ready = this.ready.filter((r) => r !== id);
    this.emit({ type: 'worker-dead', worker: id, silentMs, ...(w.request ? { request: w.request.id } : {}), reason: 'silent' });
    if (w.request) this.recover([{ req: w.request, why: `worker ${id} died holding request ${w.request.id}` }]);
    this.dispatch();
  }

  /** Requests whose worker is gone go to the front of the line, in the order they came, or fail when resent enough. */
  private recover(lost: Lost[]): void {
    const again: Request[] = [];
    for (const { req, why } of lost) {
      if (req.resends < this.maxResends) {
        req.resends++;
        again.push(req);
      } else {
        this.emit({ type: 'fail', request: req.id, error: new PppWorkerDied(`${why}; resent ${req.resends} time(s) already`) });
      }
    }
    this.pending.unshift(...again);
  }
}

/**
 * The id as bytes. Ids are ASCII in practice (the queue numbers its requests): written directly, as TextEncoder.encode
 * makes a new ArrayBuffer each time, once per request here.
 */
function addressOf(id: string): Uint8Array {
  const out = new Uint8Array(id.length);
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c >= 0x80) return utf8.encode(id);
    out[i] = c;
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
