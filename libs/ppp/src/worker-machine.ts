/**
 * The PPP worker as a state machine, after zguide ppworker.c: READY first, heartbeats every interval (busy or idle)
 * by a HeartbeatSender, a queue silent for liveness × interval (a LivenessTracker of one peer) is dead → wait (1 s
 * doubling to 32 s) and send READY again. No I/O: the NATS plumbing is worker.ts.
 */
import { backoffDelay, systemClock, type Clock, type TimerHandle } from '@esp/timers';
import { HeartbeatSender } from './heartbeat-sender';
import { LivenessTracker } from './liveness-tracker';
import { envelopeFrames, HEARTBEAT_INTERVAL_MS, HEARTBEAT_LIVENESS, parsePppMessage, RECONNECT_INITIAL_MS, RECONNECT_MAX_MS } from './protocol';

/** The one peer a worker tracks. */
const QUEUE = 'queue';

export interface WorkerOptions {
  heartbeatMs?: number;
  liveness?: number;
  /** Reconnect backoff after a dead queue: initial and cap (default 1000 → 32000 ms, doubling). */
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  clock?: Clock;
}

export type WorkerAction =
  | { type: 'send'; frames: Uint8Array[] }
  | { type: 'request'; envelope: Uint8Array[]; content: Uint8Array[] }
  | { type: 'queue-dead'; retryInMs: number }
  | { type: 'dropped'; reason: string };

export class WorkerMachine {
  readonly heartbeatMs: number;
  readonly liveness: number;
  private readonly reconnectInitialMs: number;
  private readonly reconnectMaxMs: number;
  private readonly clock: Clock;
  private state: 'stopped' | 'live' | 'waiting' = 'stopped';
  private attempt = 0;
  /** The reconnect wait after a dead queue. */
  private timer: TimerHandle | undefined;
  private readonly queue: LivenessTracker;
  private readonly heartbeats: HeartbeatSender;

  constructor(
    private readonly emit: (a: WorkerAction) => void,
    opts: WorkerOptions = {},
  ) {
    this.heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
    this.liveness = opts.liveness ?? HEARTBEAT_LIVENESS;
    this.reconnectInitialMs = opts.reconnectInitialMs ?? RECONNECT_INITIAL_MS;
    this.reconnectMaxMs = opts.reconnectMaxMs ?? RECONNECT_MAX_MS;
    this.clock = opts.clock ?? systemClock;
    this.queue = new LivenessTracker({ intervalMs: this.heartbeatMs, liveness: this.liveness, clock: this.clock, onDead: () => this.onQueueDead() });
    this.heartbeats = new HeartbeatSender({
      intervalMs: this.heartbeatMs,
      clock: this.clock,
      send: (frame) => {
        // a queue whose time is up at this tick (or while we were stopped) is dead before we beat again
        this.queue.sweep();
        if (this.state !== 'live') return false;
        this.emit({ type: 'send', frames: [frame] });
        return true;
      },
    });
  }

  get status(): 'stopped' | 'live' | 'waiting' {
    return this.state;
  }

  start(): void {
    if (this.state !== 'stopped') return;
    this.connect();
  }

  stop(): void {
    this.state = 'stopped';
    this.heartbeats.stop();
    this.queue.stop();
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A message from the queue. Any message is a sign of life. */
  onMessage(frames: readonly Uint8Array[]): void {
    // while waiting to reconnect we are disconnected (ppworker.c closes its socket): what arrives is a backlog
    if (this.state !== 'live') return;
    this.queue.renew(QUEUE);
    this.attempt = 0;
    const msg = parsePppMessage(frames);
    if (msg.kind === 'envelope') this.emit({ type: 'request', envelope: msg.envelope, content: msg.content });
    else if (msg.kind === 'malformed') this.emit({ type: 'dropped', reason: msg.reason });
    else if (msg.kind === 'ready') this.emit({ type: 'dropped', reason: 'READY from the queue' });
  }

  /**
   * Our connection to the bus was lost and is back: what we sent or were sent meanwhile may be gone. Like ppworker.c
   * after it reconnects, we send READY again; a queue that thinks we hold a request resends it (to us or another).
   */
  onLinkReset(): void {
    if (this.state !== 'live') return; // waiting: READY comes with the reconnect anyway
    this.queue.renew(QUEUE);
    this.heartbeats.ready();
  }

  /** The answer to a request: same envelope, new content. */
  reply(envelope: readonly Uint8Array[], content: readonly Uint8Array[]): void {
    if (this.state === 'stopped') return;
    this.emit({ type: 'send', frames: envelopeFrames(envelope, content) });
  }

  private connect(): void {
    this.state = 'live';
    // the queue is given liveness × interval from now to show it is there
    this.queue.forget(QUEUE);
    this.queue.track(QUEUE);
    this.heartbeats.ready();
    this.heartbeats.start();
  }

  private onQueueDead(): void {
    if (this.state !== 'live') return;
    this.heartbeats.stop();
    const retryInMs = backoffDelay(this.attempt++, { initialMs: this.reconnectInitialMs, maxMs: this.reconnectMaxMs });
    this.state = 'waiting';
    this.emit({ type: 'queue-dead', retryInMs });
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.state === 'waiting') this.connect();
    }, retryInMs);
  }
}
