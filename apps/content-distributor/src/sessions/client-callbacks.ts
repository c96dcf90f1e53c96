import { CallbackSender } from '@esp/content-client';
import { operationCallbackInterface, type Aor } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';

/** A client gone for this many failed calls in a row (object_not_exist) takes its callbacks with it. */
const GONE_AFTER_FAILURES = 22;

/**
 * The sender of a session's callbacks to its content client (processing completed; received goes back in process's
 * reply). These callbacks are informational (finals come from the indexer), so the sender is bounded: when a client
 * stops listening the oldest are dropped, and a client that is gone loses what waited for it.
 */
export function clientCallbacks(mw: Middleware, callback: Aor, log: Logger): CallbackSender {
  return new CallbackSender({
    proxy: (aor) => mw.proxy(operationCallbackInterface, aor, { timeoutMs: 10_000 }),
    target: callback,
    statusOf: (s) => s,
    maxQueued: 10_000,
    giveUp: (err, failures) => (err as { code?: string }).code === 'object_not_exist' && failures >= GONE_AFTER_FAILURES,
    retry: { initialMs: 50, maxMs: 2000 },
    log,
  });
}
