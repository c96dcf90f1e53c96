/**
 * Whether a duplicate server primary is to be taken for dead, from what a node scheduler sees: operations waiting
 * on it, and when anything last came from it. Pure, so the rule is tested with a ManualClock.
 *
 *   watch.busy(now)        // an operation was sent while none was waiting
 *   watch.heard(now)       // any message from the primary (an answer, a keep-alive, a probe's ack)
 *   watch.check(now, n)    // 'ok' | 'probe' (halfway: ask it with a keep-alive) | 'dead'
 */
export type PrimaryVerdict = 'ok' | 'probe' | 'dead';

export class PrimaryWatch {
  private lastHeard = -Infinity;
  private busySince = -Infinity;
  private probed = false;

  constructor(private readonly deadAfterMs: number) {}

  busy(now: number): void {
    this.busySince = now;
  }

  heard(now: number): void {
    this.lastHeard = now;
    this.probed = false;
  }

  /** inFlight: operations waiting on the primary. Idle, nothing is concluded (there is nothing to wait for). */
  check(now: number, inFlight: number): PrimaryVerdict {
    if (inFlight === 0) {
      this.probed = false;
      return 'ok';
    }
    const silentFor = now - Math.max(this.lastHeard, this.busySince);
    if (silentFor >= this.deadAfterMs) return 'dead';
    if (silentFor >= this.deadAfterMs / 2 && !this.probed) {
      this.probed = true;
      return 'probe';
    }
    return 'ok';
  }
}
