import type { OperationStatusInfo } from '@esp/codecs';
import { operationCallbackInterface, type Aor, type ProxyOf } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { backoffDelay, sleep } from '@esp/timers';

/**
 * Delivers the distributor's callbacks (received, processing completed) to one content client, in order, retrying
 * transient failures. Bounded: these callbacks are informational (finals come from the indexer), so when a client
 * stops listening the oldest are dropped with a warning instead of growing without bound.
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
    let attempt = 0;
    for (let status = this.queue[0]; status && !this.closed; status = this.queue[0]) {
      try {
        await this.proxy.callback(status);
        this.queue.shift();
        attempt = 0;
      } catch (err) {
        const e = err as { retryable?: boolean; code?: string };
        if (e.code === 'object_not_exist' && attempt > 20) {
          this.log.warn({ callback: this.callback.object_id }, 'content client gone; dropping its callbacks');
          this.queue.length = 0;
          break;
        }
        this.log.debug({ err: (err as Error).message, attempt }, 'callback failed; retrying');
        await sleep(backoffDelay(attempt++, { initialMs: 50, maxMs: 2000 }));
      }
    }
    this.running = false;
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
  }
}
