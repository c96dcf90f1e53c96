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
 * Bookkeeping only: time from the Clock, no I/O. One record per peer with the time it was last heard of, renewed in
 * place (a PPP queue and its workers renew on every message, so a renewal is one lookup and a write, not a Map entry
 * taken out and put back); one timer, armed for the earliest expiry, found by a look at every live peer when it fires.
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

/** A live peer: when it was last heard of, and the count of renewals then (orders peers heard of at the same time). */
interface Peer {
  at: number;
  seq: number;
}

export class LivenessTracker {
  readonly deadAfterMs: number;
  private readonly clock: Clock;
  /** Live peers. */
  private readonly live = new Map<string, Peer>();
  /** Peers declared dead → when last heard of. */
  private readonly dead = new Map<string, number>();
  private timer: TimerHandle | undefined;
  private seq = 0;
  /** Held: this side cannot hear anyone (its own link is down), so silence proves nothing. */
  private held = false;

  constructor(private readonly opts: LivenessTrackerOptions) {
    this.deadAfterMs = (opts.intervalMs ?? HEARTBEAT_INTERVAL_MS) * (opts.liveness ?? HEARTBEAT_LIVENESS);
    this.clock = opts.clock ?? systemClock;
  }

  /** READY or HEARTBEAT from the peer: tracks it (again) from now. */
  track(name: string): TrackResult {
    const peer = this.live.get(name);
    if (peer) {
      peer.at = this.clock.now();
      peer.seq = ++this.seq;
      return 'alive';
    }
    const revived = this.dead.delete(name);
    this.live.set(name, { at: this.clock.now(), seq: ++this.seq });
    // a new peer's expiry is the latest of all: a timer armed already fires before it
    if (this.timer === undefined) this.arm();
    return revived ? 'revived' : 'new';
  }

  /** Any other message from the peer: renews a tracked, live peer (true); does not start tracking nor revive. */
  renew(name: string): boolean {
    const peer = this.live.get(name);
    if (!peer) return false;
    peer.at = this.clock.now();
    peer.seq = ++this.seq;
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
    return this.live.get(name)?.at ?? this.dead.get(name);
  }

  /**
   * Declares a live peer dead now, for proof other than silence (its process is known to be gone); false when it was
   * not live. onDead runs as for silence.
   */
  declareDead(name: string): boolean {
    const peer = this.live.get(name);
    if (!peer) return false;
    this.live.delete(name);
    this.dead.set(name, peer.at);
    this.opts.onDead(name, this.clock.now() - peer.at);
    return true;
  }

  /** Stops tracking the peer (gone for another reason; tracking starts over at its next READY or HEARTBEAT). */
  forget(name: string): void {
    this.live.delete(name);
    this.dead.delete(name);
  }

  /**
   * Declares dead, now, every live peer whose time is up, longest silent first. The timer does this by itself; a
   * caller that acts on a tick of its own (sends heartbeats, say) calls it first, so that a peer whose timer is due at
   * the same moment (or held up, in a stopped process) is dead before the tick acts, not after.
   */
  sweep(): void {
    if (this.held) return;
    const now = this.clock.now();
    let due: [string, Peer][] | undefined;
    for (const [name, peer] of this.live) if (now - peer.at >= this.deadAfterMs) (due ??= []).push([name, { at: peer.at, seq: peer.seq }]);
    if (!due) return;
    due.sort((x, y) => x[1].seq - y[1].seq);
    for (const [name, { at, seq }] of due) {
      // an onDead before may have renewed or forgotten it
      if (this.live.get(name)?.seq !== seq) continue;
      this.live.delete(name);
      this.dead.set(name, at);
      this.opts.onDead(name, now - at);
    }
  }

  /**
   * This side's link is down (the bus reconnecting, say): nobody is declared dead until `release`, since their
   * silence is ours.
   */
  hold(): void {
    this.held = true;
  }

  /**
   * The link is back: every live peer's silence starts over from now, so each gets a full liveness × interval to be
   * heard of again; one that really died meanwhile is declared dead then.
   */
  release(): void {
    if (!this.held) return;
    this.held = false;
    const now = this.clock.now();
    for (const peer of this.live.values()) {
      peer.at = now;
      peer.seq = ++this.seq;
    }
    if (this.timer === undefined) this.arm();
  }

  get isHeld(): boolean {
    return this.held;
  }

  /** Stops the timer and forgets every peer. */
  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.live.clear();
    this.dead.clear();
  }

  /** Timer for the earliest expiry of a live peer; renewals meanwhile make it fire early, find nothing and re-arm. */
  private arm(): void {
    let oldest = Infinity;
    for (const peer of this.live.values()) if (peer.at < oldest) oldest = peer.at;
    if (oldest === Infinity) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.sweep();
      // held, the timer waits for the release (which arms it) instead of firing again and again
      if (this.timer === undefined && !this.held) this.arm();
    }, oldest + this.deadAfterMs - this.clock.now());
  }
}
