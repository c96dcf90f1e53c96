import type { OperationSet } from '@esp/codecs';
import { ProcessorsBusy } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { backoffDelay, type Clock, type TimerHandle } from '@esp/timers';
import { excludedFor, newBatchMustWait, waitingOrder, whenNoneTook, type WaitingState } from './dispatch-rule';
import type { BatchOwners, DispatchTarget } from './dispatch-target';
import type { HandOver, PlaceOptions } from './hand-over';
import type { InFlightOperation, ProcessorEntry, ProcessorPool } from './processor-pool';

/** A batch already accepted that waits for a processor (see WaitingState). */
export interface WaitingBatch extends WaitingState {
  sessionId: number;
  /** The batch as it was sent; an orphan of a processor whose batch is unknown has none (then it is lost). */
  batch: OperationSet | undefined;
  ops: InFlightOperation[];
  /** Still to be sent (a re-dispatch: its session is still here and the batch was not reported meanwhile). */
  wanted?: () => boolean;
  /** Why it is lost when no processor takes it (an orphan whose session or batch is gone: its processor died). */
  lostWhy: string;
  taken?: (p: ProcessorEntry) => void;
  lost?: () => void;
}

export interface DispatcherOptions {
  log: Logger;
  clock: Clock;
  pool: ProcessorPool;
  /** The hand-over loop (a stand-in in the dispatcher's spec). */
  handOver: Pick<HandOver, 'place'>;
  owners: BatchOwners;
}

/**
 * Dispatch of batches to item processors (MS-FSDPD 3.5.6): a client's new batch, and the batches that wait for a
 * processor (orphans of processors declared dead, batches of sessions reactivated from their replica). Each goes
 * through the one hand-over loop (./hand-over); the dispatch rule (./dispatch-rule) says which goes next and what
 * becomes of one nobody took. Waiting batches are tried again when a processor may have become free (processed,
 * alive again, registered) and on a short backoff while any wait.
 */
export class Dispatcher {
  private readonly waiting: WaitingBatch[] = [];
  private seq = 0;
  private draining: Promise<void> | undefined;
  private drainAgain = false;
  private poll: TimerHandle | undefined;
  private polls = 0;
  private stopped = false;

  constructor(private readonly o: DispatcherOptions) {}

  /** The dispatcher's time (deadlines of waiting batches are on it). */
  now(): number {
    return this.o.clock.now();
  }

  /** Batches waiting for a processor, of that kind. */
  waitingCount(kind?: WaitingState['kind']): number {
    return kind ? this.waiting.filter((w) => w.kind === kind).length : this.waiting.length;
  }

  /**
   * A client's batch: to the processor the rule picks, at once, or ProcessorsBusy (retryable: nothing of it was taken)
   * when batches wait or no processor is free.
   */
  async placeNew(target: DispatchTarget, batch: OperationSet, ops: InFlightOperation[], accept?: PlaceOptions['accept']): Promise<ProcessorEntry> {
    const { pool } = this.o;
    // batches of dead processors get the free processors first
    if (newBatchMustWait(this.waiting) === 'orphans') await this.drain();
    const waitsFor = newBatchMustWait(this.waiting);
    if (waitsFor === 'orphans') throw new ProcessorsBusy(`item processors are taking over the batches of a dead one; retry shortly`, { registered: pool.size });
    if (waitsFor === 'redispatches') throw new ProcessorsBusy(`batches of a reactivated session are being dispatched again first; retry shortly`, { registered: pool.size });
    const p = await this.o.handOver.place(target, batch, ops, { onError: 'throw', what: 'batch', ...(accept ? { accept } : {}) });
    if (!p) throw new ProcessorsBusy(`no free item processor (${pool.size} registered, ${pool.inFlightBatches} busy); retry shortly`, { registered: pool.size });
    return p;
  }

  /** Batches that wait for a processor: they go before any new batch, in the rule's order. */
  enqueue(batches: Omit<WaitingBatch, 'seq'>[]): Promise<void> {
    for (const b of batches) this.waiting.push({ ...b, seq: this.seq++ });
    return this.drain();
  }

  /** A processor may have become free: waiting batches try again. */
  kick(): void {
    if (this.waiting.length) void this.drain();
  }

  stop(): void {
    this.stopped = true;
    if (this.poll) this.o.clock.clearTimeout(this.poll);
    this.poll = undefined;
  }

  /** One pass at a time; a kick during a pass makes another. */
  private drain(): Promise<void> {
    if (this.draining) {
      this.drainAgain = true;
      return this.draining;
    }
    this.draining = (async () => {
      try {
        do {
          this.drainAgain = false;
          await this.pass();
        } while (this.drainAgain);
      } finally {
        this.draining = undefined;
      }
      this.schedulePoll();
    })();
    return this.draining;
  }

  private async pass(): Promise<void> {
    const { log, pool, owners, clock } = this.o;
    for (const w of waitingOrder(this.waiting)) {
      if (w.wanted && !w.wanted()) {
        this.remove(w);
        continue;
      }
      const target = owners.target(w.sessionId);
      const p = target && w.batch ? await this.o.handOver.place(target, w.batch, w.ops, { exclude: excludedFor(w), onError: 'next', what: w.kind === 'orphan' ? 'batch of a dead item processor' : 'batch of a reactivated session' }) : undefined;
      if (p) {
        this.remove(w);
        this.polls = 0;
        const where = { session: w.sessionId, first: w.ops[0]?.opId, ops: w.ops.length };
        if (w.kind === 'orphan') log.warn({ from: w.from, to: p.name, ...where }, 'batch of a dead item processor dispatched to another item processor');
        else log.warn({ procserver: p.name, ...where, last: w.ops[w.ops.length - 1]?.opId }, 'in-flight batch of a reactivated session dispatched again');
        w.taken?.(p);
        continue;
      }
      if (target && w.batch && whenNoneTook(w, pool.all(), clock.now()) === 'wait') continue;
      this.remove(w);
      w.lost?.();
      await owners.lost(w.ops, target && w.batch ? w.lostWhy : `item processor ${w.from ?? '?'} declared dead`);
    }
  }

  private remove(w: WaitingBatch): void {
    const i = this.waiting.indexOf(w);
    if (i >= 0) this.waiting.splice(i, 1);
  }

  /** While batches wait, look again shortly: a processor may register, or a lease expire, without a kick. */
  private schedulePoll(): void {
    if (this.poll || this.stopped || !this.waiting.length) return;
    this.poll = this.o.clock.setTimeout(() => {
      this.poll = undefined;
      void this.drain();
    }, backoffDelay(this.polls++, { initialMs: 20, maxMs: 200 }));
  }
}
