/**
 * How many item processors the client believes are free, learned from what the distributor says: processors_busy
 * means none (MS-FSDPD 3.5.6: it refuses at once rather than queue), and each processing-completed callback (sent
 * once `processed` freed a processor, 3.5.4.3) means one more. The client waits for a free one before it sends,
 * instead of retrying into processors_busy on a timer: every refused attempt cost the whole batch's encoding, two
 * trips of it through NATS and its decoding in the distributor, for nothing.
 *
 *   const credits = new ProcessorCredits();
 *   await credits.ready();   // at once until the first busy; then until a processor is freed, at most the cap
 *   const mark = credits.mark();  // then the call; after it: credits.taken(), or credits.busy(mark)
 *   credits.freed()               // on each processing-completed callback
 *
 * Only a hint: unknown (unbounded) until the first processors_busy, and ready() never waits longer than the wait
 * cap, so a callback that is late or lost (the distributor drops informational callbacks when a client lags, a
 * processor may be freed by another client's batch) costs at most that much before the client simply tries again.
 * The cap adapts to how long processors take: it starts at minWaitMs; a wait that ran out and was answered by
 * processors_busy again was too short (on a loaded machine a batch can take longer than 50 ms), so the cap doubles,
 * up to maxWaitMs; a wait that a processor ended, or a try after a wait that ran out that was taken, halves it back.
 */
import { systemClock, type Clock } from '@esp/timers';

export class ProcessorCredits {
  private free = Number.POSITIVE_INFINITY;
  private freedTotal = 0;
  private waiters: (() => void)[] = [];

  /** The longest the next ready() waits (ms). */
  private waitMs: number;
  /** The last wait ran out without a processor freed: the next busy() or taken() says whether it was long enough. */
  private ranOut = false;

  constructor(
    private readonly minWaitMs = 50,
    private readonly clock: Clock = systemClock,
    private readonly maxWaitMs = 800,
  ) {
    this.waitMs = minWaitMs;
  }

  /** The current wait cap (ms). */
  get waitCapMs(): number {
    return this.waitMs;
  }

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
    // the wait ran out and the processors were still all busy: that try cost a batch's trip for nothing
    if (this.ranOut) this.waitMs = Math.min(this.maxWaitMs, this.waitMs * 2);
    this.ranOut = false;
  }

  /** A batch was taken by a processor. */
  taken(): void {
    if (this.free > 0 && Number.isFinite(this.free)) this.free--;
    if (this.ranOut) this.shorten();
    this.ranOut = false;
  }

  private shorten(): void {
    this.waitMs = Math.max(this.minWaitMs, this.waitMs / 2);
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
        this.ranOut = true;
        resolve();
      }, this.waitMs);
      const wake = () => {
        this.clock.clearTimeout(timer);
        this.ranOut = false;
        this.shorten();
        resolve();
      };
      this.waiters.push(wake);
    });
  }
}
