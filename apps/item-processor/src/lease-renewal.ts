import type { Logger } from '@esp/logging';
import { systemClock, type Clock, type TimerHandle } from '@esp/timers';
import type { ProcserverHandler } from './registration';

export interface LeaseRenewalOptions {
  /** The item processing component identifier, as registered (the `name` of renew). */
  name: string;
  /** The Lease Timeout asked by each renew, in seconds (MS-FSDPD 3.5.2: default 300). */
  periodSeconds: number;
  /** The distributor handle of the current registration. */
  handler: () => ProcserverHandler | undefined;
  /**
   * One batch is renewed for at most this long (default 1 h): a batch whose work never ends (a stage waiting for
   * ever) is then left to its Lease Timeout, and the distributor restarts the processor as for a hung one.
   */
  maxBatchMs?: number;
  clock?: Clock;
  log: Logger;
}

/**
 * procserver_handler::renew (MS-FSDPD 3.5.4.4) while a batch runs: the distributor's Lease Timeout runs from
 * processor_server::process to processed (3.5.2) and restarts the processor when it expires (3.5.5), so a batch that
 * takes longer than the lease (large documents) is renewed every third of the period, as long as this process runs.
 * A processor that is stopped or stuck in a loop renews nothing: its lease runs out as before.
 */
export class LeaseRenewal {
  private timer: TimerHandle | undefined;
  private since = 0;
  private readonly clock: Clock;
  renewals = 0;

  constructor(private readonly o: LeaseRenewalOptions) {
    this.clock = o.clock ?? systemClock;
  }

  private get everyMs(): number {
    return Math.max(100, Math.floor((this.o.periodSeconds * 1000) / 3));
  }

  /** A batch was taken. */
  begin(): void {
    this.end();
    this.since = this.clock.now();
    this.arm();
  }

  /** The batch is done (processed is being reported). */
  end(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.clock.now() - this.since >= (this.o.maxBatchMs ?? 3_600_000)) {
        this.o.log.warn({ running_ms: this.clock.now() - this.since }, 'batch still running after the longest renewal; its lease is left to run out');
        return;
      }
      this.arm();
      void this.renew();
    }, this.everyMs);
  }

  private async renew(): Promise<void> {
    const handler = this.o.handler();
    if (!handler) return;
    try {
      await handler.renew(this.o.name, this.o.periodSeconds);
      this.renewals++;
      this.o.log.debug({ period: this.o.periodSeconds }, 'lease renewed');
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, 'procserver_handler::renew failed');
    }
  }
}
