/**
 * Delivers one session's statuses to the content client's operation_callback, in order, everything pending in one
 * `callbacks` call (operation_callback 5.1; a batch's secured and completed come out of one commit, so they travel
 * together: one round trip through NATS instead of two), and keeps trying: a failed call (timeout, no responders, a retryable exception from the client, anything) is retried
 * with exponential backoff for as long as the session lives. It never blocks the writer: the writer hands over
 * statuses already committed to the outbox and goes on; `backlog` is what process() looks at to push back.
 *
 *   const sender = new CallbackSender((aor) => mw.proxy(operationCallbackInterface, aor), aor, (seq) => acks.push(seq), log);
 *   sender.enqueue(entries);          // after the transaction that wrote them to the outbox committed
 *   await sender.idle(5_000);         // true once everything is delivered
 */
import { MAX_STATUSES_PER_CALLBACK, type Aor, type ProxyOf, type operationCallbackInterface } from '@esp/interfaces';
import { operationStateName } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { OutboxEntry } from './session-journal';

export type CallbackProxy = Pick<ProxyOf<typeof operationCallbackInterface>, 'callbacks'>;

export interface RetryPolicy {
  /** First wait after a failure (ms). */
  minMs: number;
  /** Longest wait between attempts (ms). */
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { minMs: 100, maxMs: 5_000 };

export class CallbackSender {
  private readonly pending: OutboxEntry[] = [];
  private proxy: CallbackProxy;
  private running = false;
  private done: Promise<void> = Promise.resolve();
  private stopped = false;
  private wake: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];
  private failures = 0;
  /** Statuses delivered since start (for logs and tests). */
  delivered = 0;

  constructor(
    private readonly makeProxy: (aor: Aor) => CallbackProxy,
    private target: Aor,
    private readonly onDelivered: (entry: OutboxEntry) => void,
    private readonly log: Logger,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {
    this.proxy = makeProxy(target);
  }

  /** Statuses waiting for delivery (the one in flight included). */
  get backlog(): number {
    return this.pending.length;
  }

  get callback(): Aor {
    return this.target;
  }

  /** A new callback object (recreate): later attempts go there, at once. */
  setTarget(aor: Aor): void {
    this.target = aor;
    this.proxy = this.makeProxy(aor);
    this.failures = 0;
    this.wake?.();
  }

  enqueue(entries: readonly OutboxEntry[]): void {
    if (this.stopped || entries.length === 0) return;
    this.pending.push(...entries);
    if (!this.running) {
      this.running = true;
      this.done = this.loop();
    }
  }

  /** Resolves true once nothing is pending, or false after timeoutMs. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.pending.length === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(done);
    });
  }

  /**
   * Stops delivering (what is pending stays in the outbox for the next start). Resolves once a call in flight has
   * returned, so that its acknowledgement is not lost.
   */
  stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    return this.done;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    while (this.pending.length > 0 && !this.stopped) {
      const proxy = this.proxy;
      // only enqueue() changes `pending` meanwhile, and it appends: the sent ones stay its head
      const entries = this.pending.slice(0, MAX_STATUSES_PER_CALLBACK);
      const entry = entries[0] as OutboxEntry;
      try {
        await proxy.callbacks(entries.map((e) => e.status));
      } catch (err) {
        if (this.stopped) break;
        this.failures++;
        const e = err as { code?: string; retryable?: boolean; message?: string };
        const wait = Math.min(this.retry.maxMs, this.retry.minMs * 2 ** Math.min(this.failures - 1, 20));
        const fields = {
          callback: `${this.target.host}:${this.target.port}/${this.target.object_id}`,
          state: operationStateName(entry.status.state),
          first_op_id: entry.status.first_op_id,
          last_op_id: entry.status.last_op_id,
          statuses: entries.length,
          code: e.code,
          err: e.message,
          attempt: this.failures,
          retry_in_ms: wait,
        };
        // the first failure and then every tenth: a client that is away for long does not flood the log
        if (this.failures === 1 || this.failures % 10 === 0) {
          if (e.retryable === false && e.code !== 'object_not_exist') this.log.error(fields, 'callback refused; retrying (a client bug or version skew?)');
          else this.log.warn(fields, 'callback failed; retrying');
        }
        await this.sleep(wait);
        continue;
      }
      if (this.failures > 0) this.log.info({ attempts: this.failures + 1 }, 'callback delivered after retries');
      this.failures = 0;
      this.pending.splice(0, entries.length);
      this.delivered += entries.length;
      for (const e of entries) this.onDelivered(e);
    }
    this.running = false;
    if (this.pending.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}
