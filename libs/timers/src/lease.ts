import { systemClock, type Clock, type TimerHandle } from './clock';

/**
 * A lease: expires `durationMs` after start or the last renew unless cancelled. MS-FSDPD's Lease Timeout (300 s,
 * renewable) and Reregistration Lease are leases.
 */
export class Lease {
  private handle: TimerHandle | undefined;
  private expiresAt = 0;

  constructor(
    private durationMs: number,
    private readonly onExpire: () => void,
    private readonly clock: Clock = systemClock,
  ) {}

  get active(): boolean {
    return this.handle !== undefined;
  }

  get remainingMs(): number {
    return this.active ? Math.max(0, this.expiresAt - this.clock.now()) : 0;
  }

  get duration(): number {
    return this.durationMs;
  }

  /** (Re)starts the lease from now, optionally with a new duration. */
  start(durationMs = this.durationMs): void {
    this.cancel();
    this.durationMs = durationMs;
    this.expiresAt = this.clock.now() + durationMs;
    this.handle = this.clock.setTimeout(() => {
      this.handle = undefined;
      this.onExpire();
    }, durationMs);
  }

  /** Sets the duration; an active lease restarts from now with it. */
  renew(durationMs = this.durationMs): void {
    this.durationMs = durationMs;
    if (this.active) this.start(durationMs);
  }

  cancel(): void {
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
