import { systemClock, type Clock, type TimerHandle } from '@esp/timers';

/**
 * Master / backup election of content distributors (MS-FSCDFT section 3, 3.3.5, 3.4.3-3.4.5) as a pure state machine:
 * events in (the results of the actions it asked for, and its own timers on a Clock), actions out (through
 * `perform`). The transport (name server, __ping, register_dispatcher) is the driver's business; one action is in
 * flight at a time and a result that does not answer the action in flight is ignored.
 *
 *   const e = new Election({ perform: (a) => driver.run(a).then((ev) => e.handle(ev)), pingIntervalMs: 5000 });
 *   e.start();                        // resolve → (none | no answer to __ping) → claim → master
 *                                     //         → answers → register → backup, __ping every interval
 */

/** A session_factory binding as the name server returned it. */
export interface SeenBinding {
  revision: number;
  /** The binding is this distributor's own session_factory object (for example its own, after a kill -9). */
  own: boolean;
}

export type ElectionAction =
  /** Resolve session_factory at esp/subsystems/processing/dispatcher. */
  | { kind: 'resolve' }
  /** __ping the session_factory object of the binding. */
  | { kind: 'ping'; binding: SeenBinding }
  /** Unbind the binding, only if it is still at this revision (the one that did not answer). */
  | { kind: 'unbind'; binding: SeenBinding }
  /** Bind session_factory (create-if-absent: the election), then master_dispatcher, then register_dispatcher(self). */
  | { kind: 'claim' }
  /** register_dispatcher(node_id) at the master that answered. */
  | { kind: 'register'; binding: SeenBinding }
  /** Check master status (3.3.5): resolve session_factory; is it still ours? */
  | { kind: 'check-own' };

export type ElectionEvent =
  | { kind: 'resolved'; binding: SeenBinding | null }
  | { kind: 'resolve-failed'; reason: string }
  | { kind: 'ping-ok' }
  /**
   * gone: nobody serves the object (no responders, or it is no longer master): that process cannot act as master.
   * busy: it is master but re-checking its binding (it answered, so it is alive). Otherwise (a timeout, a transport
   * error) it may be alive and acting.
   */
  /** outage: our own bus was down or just back, so the silence proves nothing about the master. */
  | { kind: 'ping-failed'; reason: string; gone?: boolean; busy?: boolean; outage?: boolean }
  | { kind: 'unbound'; removed: boolean }
  | { kind: 'unbind-failed'; reason: string }
  | { kind: 'claimed'; revision: number }
  /** Another distributor bound session_factory first. */
  | { kind: 'claim-lost' }
  | { kind: 'claim-failed'; reason: string }
  | { kind: 'registered' }
  | { kind: 'register-failed'; reason: string };

export type ElectionRole = 'idle' | 'electing' | 'master' | 'backup' | 'stopped';

export interface ElectionOptions {
  perform: (action: ElectionAction) => void;
  /** Told of every role change (after the change). */
  onRole?: (role: ElectionRole, why: string) => void;
  clock?: Clock;
  /** Check-for-master timer of a backup (3.4.2, default 5 s). */
  pingIntervalMs?: number;
  /** Check-master-status timer of the master (3.3.2, default 5 s). */
  checkMasterMs?: number;
  /** Failed __ping in a row before a backup takes over (3.4.5: three). */
  maxPingFailures?: number;
  /** Pause before retrying after the name server or the master could not be reached (default: the ping interval). */
  retryMs?: number;
  /**
   * A master serves as master only while its last confirmed check is at most this old (default 2 x checkMasterMs).
   * A master that was stopped (SIGSTOP) and continues finds its confirmation stale and serves nothing until it has
   * checked again, so it never acts beside the backup that took over meanwhile.
   */
  fenceMs?: number;
}

type Purpose = 'elect' | 'recheck' | 'watch' | 'check';

export class Election {
  private roleNow: ElectionRole = 'idle';
  private inFlight: { action: ElectionAction; purpose: Purpose; issuedAt: number } | undefined;
  private timer: TimerHandle | undefined;
  /** The master a backup watches. */
  private master: SeenBinding | undefined;
  private failures = 0;
  /** When the check that last confirmed our binding was issued. */
  private confirmedAt = Number.NEGATIVE_INFINITY;
  private readonly clock: Clock;
  private readonly pingIntervalMs: number;
  private readonly checkMasterMs: number;
  private readonly maxPingFailures: number;
  private readonly retryMs: number;
  private readonly fenceMs: number;
  /** Takeovers by this distributor (claims after the master it watched stopped answering). */
  takeovers = 0;
  /** The ping that decided an unbind found nobody serving the master (no responders): it cannot be acting. */
  private lastGone = true;
  /** Election pings answered "busy" in a row. */
  private busyPings = 0;
  /** A new master acts from this time on (see claimed). */
  private actingFrom = 0;

  constructor(private readonly opts: ElectionOptions) {
    this.clock = opts.clock ?? systemClock;
    this.pingIntervalMs = opts.pingIntervalMs ?? 5000;
    this.checkMasterMs = opts.checkMasterMs ?? 5000;
    this.maxPingFailures = opts.maxPingFailures ?? 3;
    this.retryMs = opts.retryMs ?? this.pingIntervalMs;
    this.fenceMs = opts.fenceMs ?? 2 * this.checkMasterMs;
  }

  get role(): ElectionRole {
    return this.roleNow;
  }

  /** The master binding a backup watches. */
  get watched(): SeenBinding | undefined {
    return this.master;
  }

  /** Consecutive failed __ping of the watched master. */
  get pingFailures(): number {
    return this.failures;
  }

  /** A claim now may act at once: the master it replaces was found gone (see claimed). */
  get claimActsAtOnce(): boolean {
    return this.lastGone;
  }

  start(): void {
    if (this.roleNow !== 'idle') return;
    this.setRole('electing', 'starting');
    this.issue({ kind: 'resolve' }, 'elect');
  }

  stop(): void {
    this.clearTimer();
    this.inFlight = undefined;
    this.setRole('stopped', 'stopping');
  }

  /**
   * Whether this distributor may act as master now (serve session_factory and master_dispatcher). False while not
   * master, and while the last confirmation of its binding is older than fenceMs; then it checks at once.
   */
  admits(): boolean {
    if (this.roleNow !== 'master') return false;
    const now = this.clock.now();
    if (now < this.actingFrom) return false;
    if (now - this.confirmedAt <= this.fenceMs) return true;
    if (!this.inFlight) {
      this.clearTimer();
      this.issue({ kind: 'check-own' }, 'check');
    }
    return false;
  }

  handle(ev: ElectionEvent): void {
    const f = this.inFlight;
    if (!f || this.roleNow === 'stopped' || !answers(f.action, ev)) return;
    this.inFlight = undefined;
    switch (f.purpose) {
      case 'elect':
      case 'recheck':
        return this.onElecting(f.action, ev, f.purpose);
      case 'watch':
        return this.onWatch(ev);
      case 'check':
        return this.onCheck(ev, f.issuedAt);
    }
  }

  // ---- electing: resolve → ping → (register | unbind → claim) ----

  private onElecting(action: ElectionAction, ev: ElectionEvent, purpose: Purpose): void {
    switch (ev.kind) {
      case 'resolved':
        if (!ev.binding) return this.issue({ kind: 'claim' }, purpose);
        // our own binding (we were master before a restart): bind is idempotent for the same object
        if (ev.binding.own) return this.issue({ kind: 'claim' }, purpose);
        return this.issue({ kind: 'ping', binding: ev.binding }, purpose);
      case 'resolve-failed':
      case 'claim-failed':
      case 'unbind-failed':
      case 'register-failed':
        return this.later(() => this.issue({ kind: 'resolve' }, 'elect'), this.retryMs);
      case 'ping-ok':
        this.busyPings = 0;
        if (action.kind === 'ping') return this.issue({ kind: 'register', binding: action.binding }, purpose);
        return;
      case 'ping-failed':
        if (action.kind !== 'ping') return;
        if (ev.outage) {
          // our bus dropped: nobody could answer us; ask again once it is back, without counting it against the master
          return this.later(() => this.issue({ kind: 'resolve' }, purpose), this.retryMs);
        }
        if (ev.busy && ++this.busyPings < this.maxPingFailures) {
          // a master re-checking its binding (after a NATS outage, say): alive; ask again shortly
          return this.later(() => this.issue({ kind: 'resolve' }, purpose), this.retryMs);
        }
        this.busyPings = 0;
        this.lastGone = ev.gone === true;
        // nobody answers for the bound master: remove exactly that binding (a newer one stays), then bind ourselves
        return this.issue({ kind: 'unbind', binding: action.binding }, purpose);
      case 'unbound':
        return this.issue({ kind: 'claim' }, purpose);
      case 'claimed':
        if (purpose === 'recheck' || this.master) this.takeovers++;
        this.master = undefined;
        this.failures = 0;
        this.confirmedAt = this.clock.now();
        // A master that did not answer may still be alive (stopped, slow) and act until its own check: its last
        // confirmation was made before our unbind, so it is fenced fenceMs after that at the latest. Wait that long
        // before acting, unless the ping that decided found nobody subscribed (killed, or cut off from NATS for
        // longer than the pings took, which is longer than its fence).
        this.actingFrom = this.lastGone ? 0 : this.clock.now() + this.fenceMs;
        this.lastGone = true;
        this.setRole('master', purpose === 'recheck' ? 'the master did not answer; took over' : 'no live master was bound');
        return this.later(() => this.issue({ kind: 'check-own' }, 'check'), this.checkMasterMs);
      case 'claim-lost':
        // another distributor won: find it, ping it, register with it
        return this.issue({ kind: 'resolve' }, 'elect');
      case 'registered':
        if (action.kind !== 'register') return;
        this.master = action.binding;
        this.failures = 0;
        this.setRole('backup', 'registered with the master');
        return this.later(() => this.issue({ kind: 'ping', binding: action.binding }, 'watch'), this.pingIntervalMs);
    }
  }

  // ---- backup: check-for-master timer (3.4.5) ----

  private onWatch(ev: ElectionEvent): void {
    const m = this.master;
    if (!m) return this.issue({ kind: 'resolve' }, 'elect');
    if (ev.kind === 'ping-ok') {
      this.failures = 0;
      return this.later(() => this.issue({ kind: 'ping', binding: m }, 'watch'), this.pingIntervalMs);
    }
    // our own bus was down: the master's silence is ours, not counted
    if (ev.kind === 'ping-failed' && ev.outage) return this.later(() => this.issue({ kind: 'ping', binding: m }, 'watch'), this.pingIntervalMs);
    this.failures++;
    if (this.failures < this.maxPingFailures) return this.later(() => this.issue({ kind: 'ping', binding: m }, 'watch'), this.pingIntervalMs);
    // three in a row: resolve again and ping whatever is bound (another backup may have won)
    this.setRole('electing', `the master did not answer ${this.failures} pings`);
    this.issue({ kind: 'resolve' }, 'recheck');
  }

  // ---- master: check-master-status timer (3.3.5) ----

  private onCheck(ev: ElectionEvent, issuedAt: number): void {
    if (ev.kind === 'resolved') {
      if (ev.binding?.own) {
        this.confirmedAt = issuedAt;
        return this.later(() => this.issue({ kind: 'check-own' }, 'check'), this.checkMasterMs);
      }
      if (!ev.binding) {
        // our binding vanished and nobody took it: bind again
        this.setRole('electing', 'our session_factory binding is gone');
        return this.issue({ kind: 'claim' }, 'elect');
      }
      // replaced: step down, find the new master, register with it as a backup
      this.setRole('electing', 'another distributor holds session_factory; stepping down');
      return this.issue({ kind: 'ping', binding: ev.binding }, 'elect');
    }
    // the name server did not answer: still master, but unconfirmed (admits() fences after fenceMs)
    this.later(() => this.issue({ kind: 'check-own' }, 'check'), Math.min(this.checkMasterMs, this.retryMs));
  }

  // ---- helpers ----

  private issue(action: ElectionAction, purpose: Purpose): void {
    if (this.roleNow === 'stopped') return;
    this.clearTimer();
    this.inFlight = { action, purpose, issuedAt: this.clock.now() };
    this.opts.perform(action);
  }

  private later(fn: () => void, ms: number): void {
    this.clearTimer();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.inFlight) fn();
    }, ms);
  }

  private clearTimer(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private setRole(role: ElectionRole, why: string): void {
    const before = this.roleNow;
    this.roleNow = role;
    if (before !== role) this.opts.onRole?.(role, why);
  }
}

/** Whether an event is a result of that action. */
function answers(action: ElectionAction, ev: ElectionEvent): boolean {
  switch (action.kind) {
    case 'resolve':
    case 'check-own':
      return ev.kind === 'resolved' || ev.kind === 'resolve-failed';
    case 'ping':
      return ev.kind === 'ping-ok' || ev.kind === 'ping-failed';
    case 'unbind':
      return ev.kind === 'unbound' || ev.kind === 'unbind-failed';
    case 'claim':
      return ev.kind === 'claimed' || ev.kind === 'claim-lost' || ev.kind === 'claim-failed';
    case 'register':
      return ev.kind === 'registered' || ev.kind === 'register-failed';
  }
}
