import { Lease, systemClock, type Clock } from '@esp/timers';

export interface LivenessOptions {
  /** Heartbeat interval of the item processors (default 1000 ms). */
  intervalMs: number;
  /** Silent intervals before a processor is declared dead (default 3). */
  liveness: number;
  clock?: Clock;
  /** A tracked processor stayed silent for liveness x interval. */
  onDead: (name: string) => void;
}

interface Tracked {
  lease: Lease;
  dead: boolean;
}

/**
 * PPP liveness of item processors (ZeroMQ RFC 6 on the distributor side): a processor is tracked from its first PPP
 * frame (READY or HEARTBEAT, as a PPP queue learns a worker from READY), any sign of life renews a Lease of
 * liveness x interval, and a processor silent that long is declared dead once. A PPP frame from a dead processor
 * brings it back. Pure bookkeeping: time from the Clock, no I/O.
 */
export class ProcessorLiveness {
  private readonly tracked = new Map<string, Tracked>();
  private readonly clock: Clock;

  constructor(private readonly opts: LivenessOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  get deadAfterMs(): number {
    return this.opts.intervalMs * this.opts.liveness;
  }

  /** READY or HEARTBEAT from the processor: starts tracking it; 'revived' when it had been declared dead. */
  ppp(name: string): 'new' | 'alive' | 'revived' {
    const t = this.tracked.get(name);
    if (!t) {
      const lease = new Lease(this.deadAfterMs, () => this.expire(name), this.clock);
      this.tracked.set(name, { lease, dead: false });
      lease.start();
      return 'new';
    }
    const wasDead = t.dead;
    t.dead = false;
    t.lease.start(this.deadAfterMs);
    return wasDead ? 'revived' : 'alive';
  }

  /** Any other message from the processor (process reply, processed, renew): renews a live, tracked processor. */
  life(name: string): void {
    const t = this.tracked.get(name);
    if (t && !t.dead) t.lease.start(this.deadAfterMs);
  }

  isDead(name: string): boolean {
    return this.tracked.get(name)?.dead ?? false;
  }

  isTracked(name: string): boolean {
    return this.tracked.has(name);
  }

  /** Stops tracking (unregistered, or registered again: tracking restarts at its next READY). */
  forget(name: string): void {
    this.tracked.get(name)?.lease.cancel();
    this.tracked.delete(name);
  }

  stop(): void {
    for (const t of this.tracked.values()) t.lease.cancel();
    this.tracked.clear();
  }

  private expire(name: string): void {
    const t = this.tracked.get(name);
    if (!t || t.dead) return;
    t.dead = true;
    this.opts.onDead(name);
  }
}
