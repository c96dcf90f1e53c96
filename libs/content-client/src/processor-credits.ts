/**
 * How many item processors the client believes are free, learned from what the distributor says: processors_busy
 * means none (MS-FSDPD 3.5.6: it refuses at once rather than queue), and each processing-completed callback (sent
 * once `processed` freed a processor, 3.5.4.3) means one more. The client waits for a free one before it sends,
 * instead of retrying into processors_busy on a timer: every refused attempt cost the whole batch's encoding, two
 * trips of it through NATS and its decoding in the distributor, for nothing.
 *
 *   const credits = new ProcessorCredits();
 *   await credits.ready();   // at once until the first busy; then until a processor is freed, at most maxWaitMs
 *   const mark = credits.mark();  // then the call; after it: credits.taken(), or credits.busy(mark)
 *   credits.freed()               // on each processing-completed callback
 *
 * Only a hint: unknown (unbounded) until the first processors_busy, and ready() never waits longer than maxWaitMs,
 * so a callback that is late or lost (the distributor drops informational callbacks when a client lags) costs at
 * most that much before the client simply tries again.
 */
import { systemClock, type Clock } from '@esp/timers';

export class ProcessorCredits {
  private free = Number.POSITIVE_INFINITY;
  private freedTotal = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly maxWaitMs = 50,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The number believed free (Infinity: not known yet). */
  get available(): number {
    return this.free;
  }

  /** Taken before a call, for busy(): a processor freed while the call was under way is free still. */
  mark(): number {
    return this.freedTotal;
  }

  /** processors_busy for a call made at `mark`: none was free, but those freed since then are. */
  busy(mark: number): void {
    this.free = Math.max(0, this.freedTotal - mark);
  }

  /** A batch was taken by a processor. */
  taken(): void {
    if (this.free > 0 && Number.isFinite(this.free)) this.free--;
  }

  /** A processor reported its batch processed: it is free again. */
  freed(): void {
    this.freedTotal++;
    if (Number.isFinite(this.free)) this.free++;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves when a processor is believed free, or after maxWaitMs. */
  ready(): Promise<void> {
    if (this.free > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve();
      }, this.maxWaitMs);
      const wake = () => {
        this.clock.clearTimeout(timer);
        resolve();
      };
      this.waiters.push(wake);
    });
  }
}
