import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@esp/logging';

/**
 * After a reconnect, how long other processes may still be on their way back: each reconnects on its own (every
 * 250 ms plus jitter), and a busy one later.
 */
export const RECONNECT_SETTLE_MS = 2_000;

/** What the connection to NATS is doing: 'up', or 'down' from a disconnect until the reconnect. */
export type BusCondition = 'up' | 'down';

/** A call waiting for its reply: failed at once when the connection drops under it. */
export interface InFlightCall {
  /** The connection dropped while the call waited. */
  dropped(why: Error): void;
  /**
   * Started once the call has waited `afterMs` (one shared timer for all calls, not one per call: most calls end
   * long before): the caller's watch of its server.
   */
  readonly watch?: { afterMs: number; since: number; start(): void; started?: boolean } | undefined;
}

/** How often the calls in flight are looked at for one that has waited long enough to be watched. */
const WATCH_SCAN_MS = 250;

export interface BusStateEvents {
  /** The connection dropped: calls in flight were failed; nothing reaches this process until 'up'. */
  down(): void;
  /** The connection is back (subscriptions restored); `outageMs` is how long it was down. */
  up(outageMs: number): void;
}

/**
 * The state of this process's connection to NATS, and the calls it has in flight. Two jobs:
 * - a call whose reply was due when the connection dropped fails at once (its request or its reply may be lost with
 *   the connection, and waiting for the deadline would only hold the caller), so callers that may retry do so after
 *   the reconnect instead of after a call timeout;
 * - whoever judges peers by their silence (liveness, leases) hears when the silence was the bus's, not the peer's.
 *
 *   const state = new BusState(nc, log);
 *   state.on({ down: () => liveness.hold(), up: () => liveness.release() });
 *   await state.whenUp();
 */
export class BusState {
  private condition: BusCondition = 'up';
  private downSince = 0;
  /** When the connection last came back (0: never dropped). */
  private upSince = 0;
  private readonly calls = new Set<InFlightCall>();
  private scanner: ReturnType<typeof setInterval> | undefined;
  private readonly listeners = new Set<Partial<BusStateEvents>>();
  private upWaiters: (() => void)[] = [];

  constructor(nc: NatsConnection, private readonly log: Logger) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') this.onDown(s.server);
        else if (s.type === 'reconnect') this.onUp(s.server);
      }
      // closed: nothing comes back; waiters are let go (their next call fails with the closed connection)
      this.releaseWaiters();
    })();
  }

  get current(): BusCondition {
    return this.condition;
  }

  /** Resolves when the connection is up (at once when it is). */
  whenUp(): Promise<void> {
    if (this.condition === 'up') return Promise.resolve();
    return new Promise((resolve) => this.upWaiters.push(resolve));
  }

  /**
   * Whether the connection came back less than `windowMs` ago: peers may still be reconnecting, so an object without
   * responders now may be one whose process has not resubscribed yet rather than one that is gone.
   */
  settling(windowMs = RECONNECT_SETTLE_MS): boolean {
    return this.condition === 'up' && this.upSince > 0 && Date.now() - this.upSince < windowMs;
  }

  /** Listens to the connection's changes; returns the unsubscribe. */
  on(events: Partial<BusStateEvents>): () => void {
    this.listeners.add(events);
    return () => this.listeners.delete(events);
  }

  /** Registers a call in flight; returns its deregistration, to run when the call ends in any way. */
  track(call: InFlightCall): () => void {
    this.calls.add(call);
    if (call.watch && this.scanner === undefined) {
      this.scanner = setInterval(() => this.scan(), WATCH_SCAN_MS);
      this.scanner.unref?.();
    }
    // the scanner stops itself at a look that finds no call: not per call, which would make a timer per call again
    return () => this.calls.delete(call);
  }

  private scan(): void {
    if (this.calls.size === 0) return this.stopScanner();
    const now = Date.now();
    for (const c of this.calls) {
      const w = c.watch;
      if (w && !w.started && now - w.since >= w.afterMs) {
        w.started = true;
        w.start();
      }
    }
  }

  private stopScanner(): void {
    if (this.scanner !== undefined) clearInterval(this.scanner);
    this.scanner = undefined;
  }

  get inFlight(): number {
    return this.calls.size;
  }

  private onDown(server: string): void {
    if (this.condition === 'down') return;
    this.condition = 'down';
    this.downSince = Date.now();
    const failed = [...this.calls];
    this.calls.clear();
    this.stopScanner();
    this.log.warn({ status: 'disconnect', server, calls_failed: failed.length }, 'nats disconnect: calls in flight fail now and are retried after the reconnect');
    const why = new Error(`connection to NATS ${server} lost while the call was in flight`);
    for (const call of failed) call.dropped(why);
    for (const l of this.listeners) l.down?.();
  }

  private onUp(server: string): void {
    if (this.condition === 'up') return;
    this.condition = 'up';
    this.upSince = Date.now();
    const outageMs = Date.now() - this.downSince;
    this.log.warn({ status: 'reconnect', server, outage_ms: outageMs }, 'nats reconnect');
    this.releaseWaiters();
    for (const l of this.listeners) l.up?.(outageMs);
  }

  private releaseWaiters(): void {
    const waiters = this.upWaiters;
    this.upWaiters = [];
    for (const w of waiters) w();
  }
}
