import type { Logger } from '@esp/logging';
import { encodeFrames, HEARTBEAT_FRAME, livenessSubject, READY_FRAME } from '@esp/ppp';
import { systemClock, type Clock, type TimerHandle } from '@esp/timers';

export interface HeartbeatOptions {
  /** Item processing component identifier: the identity frame. */
  name: string;
  /** Interval (default 1000 ms, the RFC's). */
  intervalMs: number;
  /** The distributor node we are registered at, or undefined while not registered. */
  dispatcherId: () => number | undefined;
  /** How many times registration completed: a new registration sends READY. */
  registrations: () => number;
  publish: (subject: string, data: Uint8Array) => void;
  clock?: Clock;
  log: Logger;
}

/**
 * The item processor's side of PPP liveness: every interval, idle or busy, [name, HEARTBEAT] to the liveness subject
 * of its distributor node; [name, READY] after each (re)registration and after a gap of more than two intervals
 * (the process was stopped, e.g. SIGSTOP then SIGCONT, and may have been declared dead meanwhile).
 */
export class HeartbeatSender {
  private timer: TimerHandle | undefined;
  private sentFor = 0;
  private lastAt: number | undefined;
  private readonly identity: Uint8Array;
  private readonly clock: Clock;
  /** Messages sent (READY and HEARTBEAT). */
  sent = 0;

  constructor(private readonly opts: HeartbeatOptions) {
    this.identity = new TextEncoder().encode(opts.name);
    this.clock = opts.clock ?? systemClock;
  }

  start(): void {
    if (this.timer) return;
    this.schedule();
  }

  /** Sends now: READY when registered anew or back from a gap, HEARTBEAT otherwise; nothing while not registered. */
  beat(): void {
    const node = this.opts.dispatcherId();
    const registrations = this.opts.registrations();
    if (node === undefined || registrations === 0) return;
    const now = this.clock.now();
    const gap = this.lastAt !== undefined && now - this.lastAt > 2 * this.opts.intervalMs;
    const ready = registrations !== this.sentFor || gap;
    if (gap) this.opts.log.warn({ silent_ms: now - (this.lastAt ?? now) }, 'heartbeats were held up (process stopped?); sending READY');
    try {
      this.opts.publish(livenessSubject(node), encodeFrames([this.identity, ready ? READY_FRAME : HEARTBEAT_FRAME]));
      this.sentFor = registrations;
      this.lastAt = now;
      this.sent++;
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'heartbeat not sent');
    }
  }

  stop(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.timer = this.clock.setTimeout(() => {
      this.beat();
      if (this.timer) this.schedule();
    }, this.opts.intervalMs);
  }
}
