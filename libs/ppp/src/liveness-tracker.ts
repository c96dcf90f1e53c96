/**
 * PPP liveness of peers, the receiving side of heartbeats (ZeroMQ RFC 6): a peer is tracked from its first READY or
 * HEARTBEAT, any sign of life renews it, and a peer silent for liveness × interval is declared dead, once. A READY or
 * HEARTBEAT from a dead peer brings it back. The PPP queue tracks its workers with it, a worker its queue, the content
 * distributor its item processors.
 *
 *   const live = new LivenessTracker({ intervalMs: 1000, liveness: 3, onDead: (name) => drop(name) });
 *   live.track('ip-1');   // READY / HEARTBEAT: 'new' | 'alive' | 'revived'
 *   live.renew('ip-1');   // any other message from a tracked, live peer
 *
 * Bookkeeping only: time from the Clock, no I/O. One record per peer with the time it was last heard of; one timer,
 * armed for the earliest expiry (peers are kept in the order they were last heard of, so that is the first one).
 */
import { systemClock, type Clock, type TimerHandle } from '@esp/timers';
import { HEARTBEAT_INTERVAL_MS, HEARTBEAT_LIVENESS } from './protocol';

export interface LivenessTrackerOptions {
  /** Heartbeat interval of the peers (default 1000 ms, the RFC's). */
  intervalMs?: number;
  /** Silent intervals before a peer is declared dead (default 3). */
  liveness?: number;
  clock?: Clock;
  /** A tracked peer stayed silent for liveness × interval (`silentMs`: since it was last heard of). */
  onDead: (name: string, silentMs: number) => void;
}

/** What a READY or HEARTBEAT meant: a peer not tracked before, a live one, or one that had been declared dead. */
export type TrackResult = 'new' | 'alive' | 'revived';

export class LivenessTracker {
  readonly deadAfterMs: number;
  private readonly clock: Clock;
  /** Live peers → when last heard of, oldest first (Map keeps insertion order; a renewal re-inserts). */
  private readonly live = new Map<string, number>();
  /** Peers declared dead → when last heard of. */
  private readonly dead = new Map<string, number>();
  private timer: TimerHandle | undefined;

  constructor(private readonly opts: LivenessTrackerOptions) {
    this.deadAfterMs = (opts.intervalMs ?? HEARTBEAT_INTERVAL_MS) * (opts.liveness ?? HEARTBEAT_LIVENESS);
    this.clock = opts.clock ?? systemClock;
  }

  /** READY or HEARTBEAT from the peer: tracks it (again) from now. */
  track(name: string): TrackResult {
    const revived = this.dead.delete(name);
    const known = this.live.delete(name);
    this.heard(name);
    return revived ? 'revived' : known ? 'alive' : 'new';
  }

  /** Any other message from the peer: renews a tracked, live peer (true); does not start tracking nor revive. */
  renew(name: string): boolean {
    if (!this.live.delete(name)) return false;
    this.heard(name);
    return true;
  }

  isDead(name: string): boolean {
    return this.dead.has(name);
  }

  isTracked(name: string): boolean {
    return this.live.has(name) || this.dead.has(name);
  }

  /** When the peer was last heard of (undefined: not tracked). */
  lastHeard(name: string): number | undefined {
    return this.live.get(name) ?? this.dead.get(name);
  }

  /** Stops tracking the peer (gone for another reason; tracking starts over at its next READY or HEARTBEAT). */
  forget(name: string): void {
    this.live.delete(name);
    this.dead.delete(name);
  }

  /**
   * Declares dead, now, every live peer whose time is up. The timer does this by itself; a caller that acts on a tick
   * of its own (sends heartbeats, say) calls it first, so that a peer whose timer is due at the same moment (or held
   * up, in a stopped process) is dead before the tick acts, not after.
   */
  sweep(): void {
    const now = this.clock.now();
    for (const [name, at] of this.live) {
      if (now - at < this.deadAfterMs) break; // the rest were heard of later
      this.live.delete(name);
      this.dead.set(name, at);
      this.opts.onDead(name, now - at);
    }
  }

  /** Stops the timer and forgets every peer. */
  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.live.clear();
    this.dead.clear();
  }

  private heard(name: string): void {
    this.live.set(name, this.clock.now());
    if (this.timer === undefined) this.arm();
  }

  /** Timer for the oldest live peer's expiry; a renewal of that peer makes it fire early, find nothing and re-arm. */
  private arm(): void {
    const oldest = this.live.values().next();
    if (oldest.done) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.sweep();
      if (this.timer === undefined) this.arm();
    }, oldest.value + this.deadAfterMs - this.clock.now());
  }
}
