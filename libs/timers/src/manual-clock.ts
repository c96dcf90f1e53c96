import type { Clock, TimerHandle } from './clock';

/**
 * A clock that moves only when told to: `advance(ms)` fires, in order, every timer that falls due. For tests of
 * leases, heartbeats and elections without sleeping.
 */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    if ('id' in handle && typeof handle.id === 'number') this.timers.delete(handle.id);
  }

  /** Moves time forward, firing due timers in time order (timers set while firing are honoured). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at || (e[1].at === next[1].at && e[0] < next[0]))) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
  }

  get pending(): number {
    return this.timers.size;
  }
}
