/**
 * @esp/timers: time for protocol state machines, injectable so tests drive it.
 *
 *   import { Lease, ManualClock } from '@esp/timers';
 *   const clock = new ManualClock();
 *   const lease = new Lease(300_000, () => reportLost(), clock);
 *   lease.start(); clock.advance(300_000);   // fires
 */
export { systemClock, type Clock, type TimerHandle } from './clock';
export { ManualClock } from './manual-clock';
export { Lease } from './lease';
export { backoffDelay, sleep } from './backoff';
export { retry, type RetryOptions } from './retry';
export { IdleReaper, type IdleReaperOptions } from './idle-reaper';
