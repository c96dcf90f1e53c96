import { processorServerInterface } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { ObjectNotExist, type Middleware } from '@esp/middleware';
import type { LivenessTracker } from '@esp/ppp';
import type { Clock, TimerHandle } from '@esp/timers';
import type { ProcessorPool } from './processor-pool';

export interface SilenceProbeOptions {
  mw: Middleware;
  log: Logger;
  clock: Clock;
  pool: ProcessorPool;
  liveness: LivenessTracker;
  /** The processors' heartbeat interval (ms). */
  intervalMs: number;
}

/**
 * Liveness waits liveness × interval of silence before it declares a processor dead, since a slow or stopped process
 * may come back. A process that is gone (killed, crashed) can be told apart sooner: its subscriptions went with its
 * connection, so a call to its processor_server finds no responders. A processor overdue for a heartbeat (a fifth of
 * an interval late) is asked, again every quarter interval while it stays silent; no responders declares it dead at
 * once. A question costs a healthy but late processor one __ping. Any other answer, or none, leaves it
 * to liveness. Not while the bus is down or just back: then no responders may only mean it has not reconnected yet.
 */
export class SilenceProbe {
  private timer: TimerHandle | undefined;
  private readonly asking = new Set<string>();
  private stopped = false;

  constructor(private readonly o: SilenceProbeOptions) {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = undefined;
      this.probeOverdue();
      this.schedule();
    }, this.o.intervalMs / 4);
  }

  private probeOverdue(): void {
    const { pool, liveness, clock, intervalMs, mw } = this.o;
    if (mw.connection.current === 'down' || mw.connection.settling() || liveness.isHeld) return;
    const now = clock.now();
    for (const p of pool.all()) {
      const heard = liveness.lastHeard(p.name);
      if (heard === undefined || liveness.isDead(p.name) || this.asking.has(p.name)) continue;
      if (now - heard < 1.2 * intervalMs) continue;
      this.asking.add(p.name);
      void this.ask(p.name, p.pid, p.proxy).finally(() => this.asking.delete(p.name));
    }
  }

  private async ask(name: string, pid: number, aor: Parameters<Middleware['proxy']>[1]): Promise<void> {
    const { mw, log, liveness, pool, intervalMs } = this.o;
    try {
      await mw.proxy(processorServerInterface, aor, { timeoutMs: intervalMs }).__ping();
    } catch (err) {
      // the same registration still (not re-registered meanwhile), and our bus was up for the whole question
      if (!(err instanceof ObjectNotExist) || pool.get(name)?.pid !== pid || mw.connection.settling() || mw.connection.current === 'down') return;
      log.warn({ procserver: name, pid, silent_ms: this.o.clock.now() - (liveness.lastHeard(name) ?? 0) }, 'item processor overdue for its heartbeat has no process behind it (no responders)');
      liveness.declareDead(name);
    }
  }
}
