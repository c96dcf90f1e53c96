/**
 * Delivers operation statuses to one content client's operation_callback, in order, everything waiting in one
 * `callbacks` call (operation_callback 5.1: one round trip however many statuses wait), retrying a failed call
 * (timeout, no responders, an exception from the client, anything) with exponential backoff. It never blocks the
 * producer: `enqueue` hands statuses over and returns; `backlog` is what a producer looks at to push back.
 *
 * The two senders of the feeding chain differ only in what may be lost, so that is what the options say:
 * - the indexer's finals are durable (its outbox): unbounded, each acknowledged by `onDelivered` so that it leaves
 *   the outbox, what is pending at `stop()` stays for the next start, and given up (`giveUp`, `onGivenUp`: out of
 *   the outbox too) only once the client's callback object has been gone for long;
 * - the distributor's are informational: bounded (`maxQueued`, the oldest dropped) and given up (`giveUp`) once the
 *   client is gone for good.
 *
 *   const sender = new CallbackSender({ proxy: (aor) => mw.proxy(operationCallbackInterface, aor), target: aor,
 *                                       statusOf: (e) => e.status, onDelivered: (e) => outbox.ack(e.seq), log });
 *   sender.enqueue(entries);          // after the transaction that wrote them to the outbox committed
 *   await sender.idle(5_000);         // true once everything is delivered
 */
import { operationStateName, type OperationStatusInfo } from '@esp/codecs';
import { MAX_STATUSES_PER_CALLBACK, type Aor, type ProxyOf, type operationCallbackInterface } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { backoffDelay, systemClock, type Clock, type TimerHandle } from '@esp/timers';

export type CallbackProxy = Pick<ProxyOf<typeof operationCallbackInterface>, 'callbacks'>;

export interface CallbackRetry {
  /** First wait after a failure (ms). */
  initialMs: number;
  /** Longest wait between attempts (ms). */
  maxMs: number;
}

export const DEFAULT_CALLBACK_RETRY: CallbackRetry = { initialMs: 100, maxMs: 5_000 };

export interface CallbackSenderOptions<T> {
  /** The proxy to a callback object (made again on setTarget). */
  proxy: (aor: Aor) => CallbackProxy;
  target: Aor;
  /** The status an item carries (items are statuses themselves, or outbox entries holding one). */
  statusOf: (item: T) => OperationStatusInfo;
  /** Called for each item, in order, once the call that carried it returned. */
  onDelivered?: (item: T) => void;
  /** At most this many items wait; beyond that the oldest are dropped, with a warning (default: no bound). */
  maxQueued?: number;
  /** After a failure: drop everything waiting and stop trying (`failures`: in a row, this one included; default never). */
  giveUp?: (err: unknown, failures: number) => boolean;
  /** What a giveUp dropped, in order (the indexer deletes it from its outbox, so that no restart brings it back). */
  onGivenUp?: (items: T[]) => void;
  retry?: CallbackRetry;
  clock?: Clock;
  log: Logger;
}

export class CallbackSender<T = OperationStatusInfo> {
  private readonly pending: T[] = [];
  private proxy: CallbackProxy;
  private target: Aor;
  private running = false;
  private done: Promise<void> = Promise.resolve();
  private stopped = false;
  private wake: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];
  private failures = 0;
  private readonly clock: Clock;
  private readonly retry: CallbackRetry;
  /** Items delivered since start (for logs and tests). */
  delivered = 0;
  /** Items dropped: beyond maxQueued, or given up. */
  dropped = 0;

  constructor(private readonly opts: CallbackSenderOptions<T>) {
    this.target = opts.target;
    this.proxy = opts.proxy(opts.target);
    this.clock = opts.clock ?? systemClock;
    this.retry = opts.retry ?? DEFAULT_CALLBACK_RETRY;
  }

  /** Items waiting for delivery (those in flight included). */
  get backlog(): number {
    return this.pending.length;
  }

  get callback(): Aor {
    return this.target;
  }

  /** A new callback object (recreate): later attempts go there, at once. */
  setTarget(aor: Aor): void {
    this.target = aor;
    this.proxy = this.opts.proxy(aor);
    this.failures = 0;
    this.wake?.();
  }

  enqueue(items: readonly T[]): void {
    if (this.stopped || items.length === 0) return;
    for (const item of items) this.pending.push(item);
    const max = this.opts.maxQueued;
    if (max !== undefined && this.pending.length > max) {
      const over = this.pending.length - max;
      this.pending.splice(0, over);
      if (this.dropped % 1000 < over) this.opts.log.warn({ dropped: this.dropped + over, max_queued: max }, 'client is not taking callbacks; dropping the oldest');
      this.dropped += over;
    }
    if (!this.running) {
      this.running = true;
      this.done = this.loop();
    }
  }

  /** Resolves true once nothing is pending, or false after timeoutMs. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.pending.length === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = (): void => {
        this.clock.clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(done);
    });
  }

  /**
   * Stops delivering; what is pending stays pending (in the indexer's outbox, for the next start). Resolves once a
   * call in flight has returned, so that its acknowledgement is not lost.
   */
  stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    return this.done;
  }

  /** Stops delivering and drops what is pending (informational callbacks of a session that ended). */
  close(): Promise<void> {
    this.dropped += this.pending.length;
    this.pending.length = 0;
    return this.stop();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer: { handle?: TimerHandle } = {};
      const end = (): void => {
        if (timer.handle !== undefined) this.clock.clearTimeout(timer.handle);
        this.wake = undefined;
        resolve();
      };
      timer.handle = this.clock.setTimeout(end, ms);
      this.wake = end;
    });
  }

  private async loop(): Promise<void> {
    while (this.pending.length > 0 && !this.stopped) {
      const proxy = this.proxy;
      // enqueue() appends, and drops from the head only beyond maxQueued: what is still at the head once the call
      // returned is what it carried
      const items = this.pending.slice(0, MAX_STATUSES_PER_CALLBACK);
      try {
        await proxy.callbacks(items.map((i) => this.opts.statusOf(i)));
      } catch (err) {
        if (this.stopped) break;
        this.failures++;
        if (this.opts.giveUp?.(err, this.failures)) {
          this.opts.log.warn({ callback: this.target.object_id, failures: this.failures, dropped: this.pending.length }, 'content client gone; dropping its callbacks');
          this.dropped += this.pending.length;
          const dropped = this.pending.splice(0);
          this.opts.onGivenUp?.(dropped);
          break;
        }
        this.logFailure(err, items);
        await this.sleep(backoffDelay(this.failures - 1, this.retry));
        continue;
      }
      if (this.failures > 0) this.opts.log.info({ attempts: this.failures + 1 }, 'callback delivered after retries');
      this.failures = 0;
      const sent = new Set(items);
      let n = 0;
      while (n < this.pending.length && sent.has(this.pending[n] as T)) n++;
      const delivered = this.pending.splice(0, n);
      this.delivered += delivered.length;
      for (const item of delivered) this.opts.onDelivered?.(item);
    }
    this.running = false;
    if (this.pending.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** The first failure and then every tenth: a client that is away for long does not flood the log. */
  private logFailure(err: unknown, items: T[]): void {
    if (this.failures !== 1 && this.failures % 10 !== 0) return;
    const e = err as { code?: string; retryable?: boolean; message?: string };
    const first = this.opts.statusOf(items[0] as T);
    const fields = {
      callback: `${this.target.host}:${this.target.port}/${this.target.object_id}`,
      state: operationStateName(first.state),
      first_op_id: first.first_op_id,
      last_op_id: first.last_op_id,
      statuses: items.length,
      code: e.code,
      err: e.message,
      attempt: this.failures,
      retry_in_ms: backoffDelay(this.failures - 1, this.retry),
    };
    if (e.retryable === false && e.code !== 'object_not_exist') this.opts.log.error(fields, 'callback refused; retrying (a client bug or version skew?)');
    else this.opts.log.warn(fields, 'callback failed; retrying');
  }
}
