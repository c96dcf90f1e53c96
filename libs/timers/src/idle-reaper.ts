import { systemClock, type Clock, type TimerHandle } from './clock';

/**
 * Forgets what nobody uses any more: every tracked key that saw no activity for `idleMs` is handed to `reap`, once.
 * Activity is a `touch(key)` (a call), a change of the key's `progress` counter (callbacks delivered, batches
 * written: whatever the owner counts anyway, so that no hot path has to touch), or being `busy` (work under way).
 * Looks every `checkMs`, so a key is reaped between idleMs and idleMs + checkMs after its last activity.
 *
 *   const reaper = new IdleReaper<number>({ idleMs: 600_000, reap: (id, idle) => destroy(id), progress: (id) => delivered(id) });
 *   reaper.start();
 *   reaper.touch(7);      // on every call on session 7
 *   reaper.forget(7);     // closed by its owner
 */
export interface IdleReaperOptions<K> {
  /** Time without activity after which a key is reaped (ms). */
  idleMs: number;
  /** How often keys are looked at (ms; default idleMs / 10, between 100 ms and 60 s). */
  checkMs?: number;
  clock?: Clock;
  /** A counter of the key's progress; any change since the last look counts as activity. */
  progress?: (key: K) => number | undefined;
  /** A key with work under way is not idle, however long since its last touch. */
  busy?: (key: K) => boolean;
  /** Called once per idle key (which is no longer tracked); a rejection tracks the key again, to be tried after another idleMs. */
  reap: (key: K, idleForMs: number) => void | Promise<void>;
  /** A reap that failed (default: ignored; the key is tried again later). */
  onError?: (key: K, err: unknown) => void;
}

interface Tracked {
  lastActive: number;
  progress: number | undefined;
}

export class IdleReaper<K> {
  private readonly keys = new Map<K, Tracked>();
  private readonly clock: Clock;
  private readonly checkMs: number;
  private timer: TimerHandle | undefined;
  private running = false;
  /** Keys reaped since start. */
  reaped = 0;

  constructor(private readonly o: IdleReaperOptions<K>) {
    if (!(o.idleMs > 0)) throw new RangeError(`IdleReaper: idleMs must be positive, not ${o.idleMs}`);
    this.clock = o.clock ?? systemClock;
    this.checkMs = o.checkMs ?? Math.min(60_000, Math.max(100, Math.floor(o.idleMs / 10)));
  }

  get idleMs(): number {
    return this.o.idleMs;
  }

  get size(): number {
    return this.keys.size;
  }

  has(key: K): boolean {
    return this.keys.has(key);
  }

  /** Activity on the key (tracking it from now if it was not). */
  touch(key: K): void {
    const t = this.keys.get(key);
    if (t) t.lastActive = this.clock.now();
    else this.keys.set(key, { lastActive: this.clock.now(), progress: this.o.progress?.(key) });
  }

  /** No longer tracked (closed by its owner): never reaped. */
  forget(key: K): void {
    this.keys.delete(key);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Looks at every key now; returns those handed to `reap`. */
  check(): K[] {
    const now = this.clock.now();
    const idle: [K, number][] = [];
    for (const [key, t] of this.keys) {
      const p = this.o.progress?.(key);
      if (p !== t.progress || this.o.busy?.(key)) {
        t.progress = p;
        t.lastActive = now;
        continue;
      }
      if (now - t.lastActive >= this.o.idleMs) idle.push([key, now - t.lastActive]);
    }
    for (const [key, idleFor] of idle) {
      this.keys.delete(key);
      this.reaped++;
      const retrack = (err: unknown): void => {
        this.reaped--;
        if (!this.keys.has(key)) this.keys.set(key, { lastActive: this.clock.now(), progress: this.o.progress?.(key) });
        this.o.onError?.(key, err);
      };
      try {
        const r = this.o.reap(key, idleFor);
        if (r && typeof (r as Promise<void>).catch === 'function') (r as Promise<void>).catch(retrack);
      } catch (err) {
        retrack(err);
      }
    }
    return idle.map(([k]) => k);
  }

  private arm(): void {
    if (!this.running) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.check();
      this.arm();
    }, this.checkMs);
  }
}
