import { Lease, type Clock } from '@esp/timers';

/**
 * The Lease Timeout of each item processor (MS-FSDPD 3.5.2): started when it gets a batch, renewed by `renew`,
 * cancelled when it reports the batch; on expiry `onTimeout` gets the processor's name.
 */
export class Leases {
  private readonly byName = new Map<string, Lease>();

  constructor(
    private readonly clock: Clock,
    private readonly onTimeout: (name: string) => void,
  ) {}

  private leaseOf(name: string, durationMs: number): Lease {
    let lease = this.byName.get(name);
    if (!lease) {
      lease = new Lease(durationMs, () => this.onTimeout(name), this.clock);
      this.byName.set(name, lease);
    }
    return lease;
  }

  /** (Re)starts the processor's lease: it just got a batch. */
  start(name: string, durationMs: number): void {
    this.leaseOf(name, durationMs).start(durationMs);
  }

  /** renew(name, period): the new duration, from now when the lease runs. */
  renew(name: string, durationMs: number): void {
    this.leaseOf(name, durationMs).renew(durationMs);
  }

  cancel(name: string): void {
    this.byName.get(name)?.cancel();
  }

  /** The processor is gone: cancelled and forgotten. */
  drop(name: string): void {
    this.cancel(name);
    this.byName.delete(name);
  }

  cancelAll(): void {
    for (const l of this.byName.values()) l.cancel();
  }
}
