/**
 * PPP heartbeats, the sending side (ZeroMQ RFC 6): a HEARTBEAT every interval, busy or idle, and READY when the
 * owner asks for it (at connect, after a registration, after a link reset). The PPP worker sends with it to its queue,
 * the queue to its workers, an item processor to its content distributor.
 *
 *   const hb = new HeartbeatSender({ intervalMs: 1000, send: (frame) => publish(encodeFrames([identity, frame])) });
 *   hb.start();    // HEARTBEAT every interval from now
 *   hb.ready();    // READY now (and the next beat that could not be sent is READY too)
 *
 * No I/O: `send` does it. Time from the Clock, so a ManualClock drives it in tests.
 */
import { systemClock, type Clock, type TimerHandle } from '@esp/timers';
import { HEARTBEAT_FRAME, HEARTBEAT_INTERVAL_MS, READY_FRAME } from './protocol';

export interface HeartbeatSenderOptions {
  /** Interval (default 1000 ms, the RFC's). */
  intervalMs?: number;
  /**
   * Sends READY_FRAME or HEARTBEAT_FRAME. Returns false when there is nobody to send to yet (not registered): then
   * nothing counts as sent, and a READY asked for stays due. A throw is reported to onError and counts as not sent.
   */
  send: (frame: Uint8Array) => boolean | void;
  /**
   * Send READY instead of HEARTBEAT when more than two intervals went by since the last beat: the process was
   * stopped (SIGSTOP, then SIGCONT) and the peer may have declared it dead meanwhile (default false; a PPP worker
   * finds out from the queue's silence instead).
   */
  readyAfterGap?: boolean;
  clock?: Clock;
  /** The beats were held up for `silentMs` (readyAfterGap only). */
  onGap?: (silentMs: number) => void;
  onError?: (err: unknown) => void;
}

export class HeartbeatSender {
  readonly intervalMs: number;
  /** Frames sent (READY and HEARTBEAT). */
  sent = 0;
  private readonly clock: Clock;
  private timer: TimerHandle | undefined;
  private readyDue = false;
  private lastAt: number | undefined;

  constructor(private readonly opts: HeartbeatSenderOptions) {
    this.intervalMs = opts.intervalMs ?? HEARTBEAT_INTERVAL_MS;
    this.clock = opts.clock ?? systemClock;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Beats every interval from now on (the first one an interval from now). */
  start(): void {
    if (this.timer === undefined) this.schedule();
  }

  /** READY now; if it cannot be sent, the next beat is READY. */
  ready(): void {
    this.readyDue = true;
    this.beat();
  }

  /** Sends now: READY when asked for or back from a gap, HEARTBEAT otherwise. */
  beat(): void {
    const now = this.clock.now();
    const silentMs = this.lastAt === undefined ? 0 : now - this.lastAt;
    const gap = this.opts.readyAfterGap === true && silentMs > 2 * this.intervalMs;
    let delivered: boolean | void;
    try {
      delivered = this.opts.send(this.readyDue || gap ? READY_FRAME : HEARTBEAT_FRAME);
    } catch (err) {
      this.opts.onError?.(err);
      delivered = false;
    }
    if (delivered === false) return; // nobody to send to (yet): what was due stays due
    if (gap) this.opts.onGap?.(silentMs);
    this.readyDue = false;
    this.lastAt = now;
    this.sent++;
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    const handle = this.clock.setTimeout(() => {
      this.beat();
      // beat() may have stopped us (the owner found its peer dead), or stopped and started us again
      if (this.timer === handle) this.schedule();
    }, this.intervalMs);
    this.timer = handle;
  }
}
