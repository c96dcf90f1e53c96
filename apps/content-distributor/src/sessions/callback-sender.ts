import type { OperationStatusInfo } from '@esp/codecs';
import { MAX_STATUSES_PER_CALLBACK, operationCallbackInterface, type Aor, type ProxyOf } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { retry } from '@esp/timers';

/**
 * Delivers the distributor's callbacks (processing completed; received goes back in process's reply) to one content
 * client, in order, retrying transient failures. What queued up while a call was in flight goes in one `callbacks`
 * call (operation_callback 5.1): one round trip however many statuses wait. Bounded: these callbacks are
 * informational (finals come from the indexer), so when a client stops listening the oldest are dropped with a
 * warning instead of growing without bound.
 */
export class CallbackSender {
  private readonly queue: OperationStatusInfo[] = [];
  private running = false;
  private closed = false;
  private readonly proxy: ProxyOf<typeof operationCallbackInterface>;
  dropped = 0;

  constructor(
    mw: Middleware,
    readonly callback: Aor,
    private readonly log: Logger,
    private readonly maxQueued = 10_000,
  ) {
    this.proxy = mw.proxy(operationCallbackInterface, callback, { timeoutMs: 10_000 });
  }

  send(status: OperationStatusInfo): void {
    if (this.closed) return;
    if (this.queue.length >= this.maxQueued) {
      this.queue.shift();
      if (this.dropped++ % 1000 === 0) this.log.warn({ dropped: this.dropped }, 'client is not taking callbacks; dropping the oldest informational ones');
    }
    this.queue.push(status);
    if (!this.running) void this.pump();
  }

  private async pump(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0 && !this.closed) {
      let statuses: OperationStatusInfo[] = [];
      let gone = false;
      try {
        await retry(
          (attempt) => {
            if (this.closed) return Promise.reject(new Error('callback sender closed'));
            // the head of the queue, as it is now (send may drop the oldest meanwhile: remove what was sent by identity)
            statuses = this.queue.slice(0, MAX_STATUSES_PER_CALLBACK);
            gone = false;
            return this.proxy.callbacks(statuses).catch((err: unknown) => {
              gone = (err as { code?: string }).code === 'object_not_exist' && attempt > 20;
              throw err;
            });
          },
          {
            initialMs: 50,
            maxMs: 2000,
            retryable: () => !this.closed && !gone,
            onRetry: (err, attempt) => this.log.debug({ err: (err as Error).message, attempt }, 'callback failed; retrying'),
          },
        );
      } catch {
        if (gone) {
          this.log.warn({ callback: this.callback.object_id }, 'content client gone; dropping its callbacks');
          this.queue.length = 0;
        }
        break;
      }
      const sent = new Set(statuses);
      let n = 0;
      while (n < this.queue.length && sent.has(this.queue[n] as OperationStatusInfo)) n++;
      this.queue.splice(0, n);
    }
    this.running = false;
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
  }
}
