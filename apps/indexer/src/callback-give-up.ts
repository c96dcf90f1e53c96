import type { Clock } from '@esp/timers';

/**
 * When the indexer stops retrying a client's callbacks: once its callback object has been gone (object_not_exist:
 * nobody serves it) for `giveUpMs` without a break. Any other failure (a timeout, a client that throws) and any
 * delivery in between start the count again: a slow or restarting client is retried for ever, as its statuses are
 * durable; only one that is gone is given up on (the CallbackSender then drops what waits, and the indexer deletes
 * it from its outbox, logs it and counts it).
 *
 *   const sender = new CallbackSender({ ..., giveUp: giveUpWhenGone(600_000, clock), onGivenUp: (e) => drop(e) });
 */
export function giveUpWhenGone(giveUpMs: number, clock: Clock): (err: unknown, failures: number) => boolean {
  let goneSince: number | undefined;
  return (err, failures) => {
    const gone = (err as { code?: string } | undefined)?.code === 'object_not_exist';
    // failures counts in a row: 1 is the first failure after a delivery (or ever)
    if (failures === 1 || !gone) goneSince = undefined;
    if (!gone) return false;
    goneSince ??= clock.now();
    return clock.now() - goneSince >= giveUpMs;
  };
}
