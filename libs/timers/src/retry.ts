import { backoffDelay } from './backoff';
import type { Clock } from './clock';

export interface RetryOptions {
  /** At most this many calls in all (default: no limit but the deadline). */
  attempts?: number;
  /**
   * No call starts later than this long after the first one (default: no deadline): the last wait is cut short to
   * end at the deadline, and an error at or after it goes to the caller.
   */
  deadlineMs?: number;
  /**
   * With a deadline: false gives up instead of cutting the last wait short, when the backoff would end after the
   * deadline (default true). For a caller that must act by the deadline and cannot wait for one more call there.
   */
  shortenLastWait?: boolean;
  /** Wait before the second call, doubled for each one after it up to maxMs (see backoffDelay). */
  initialMs: number;
  maxMs: number;
  /** Each wait drawn between half and all of the backoff delay, so that peers that failed together do not retry together. */
  jitter?: boolean;
  /** Whether an error is worth another call (default: every error). */
  retryable?: (err: unknown) => boolean;
  /** Called before each wait, with the error, the attempt that failed (from 0) and the wait. */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Time and timers (default: the system's, with waits that keep the process alive). */
  clock?: Clock;
  /**
   * Aborting ends a wait at once and starts no further call: the caller gets the last error (for a loop that a stop()
   * must be able to end without waiting out the backoff).
   */
  signal?: AbortSignal;
}

/**
 * Calls `fn` until it resolves, waiting with exponential backoff between calls; the error of the last call goes to
 * the caller as it is, when it is not retryable, or the attempts or the deadline are spent.
 *
 *   const artifact = await retry(() => node.get(id), { deadlineMs: 3000, initialMs: 20, maxMs: 250, jitter: true,
 *                                                     retryable: (err) => err instanceof SsrError && err.retryable });
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const clock = opts.clock;
  const now = clock ? () => clock.now() : Date.now;
  const timers: Pick<Clock, 'setTimeout' | 'clearTimeout'> = clock ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
  const signal = opts.signal;
  const wait = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = (): void => {
        timers.clearTimeout(handle);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const handle = timers.setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });
  const deadline = opts.deadlineMs === undefined ? Infinity : now() + opts.deadlineMs;
  const attempts = opts.attempts ?? Infinity;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const left = deadline - now();
      if (attempt + 1 >= attempts || left <= 0 || signal?.aborted || (opts.retryable && !opts.retryable(err))) throw err;
      const backoff = backoffDelay(attempt, opts);
      if (backoff > left && opts.shortenLastWait === false) throw err;
      const delay = Math.min(backoff, left);
      opts.onRetry?.(err, attempt, delay);
      await wait(delay);
      if (signal?.aborted) throw err;
    }
  }
}
