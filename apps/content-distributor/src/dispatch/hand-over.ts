import { SubsystemIdSet, type OperationSet } from '@esp/codecs';
import { processorServerInterface, ShuttingDown, SystemResourceError, type BatchSigner } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { CallAbandoned, CallTimeout, ObjectNotExist, TransportError, type Middleware } from '@esp/middleware';
import type { LivenessTracker } from '@esp/ppp';
import { pickProcessor } from './dispatch-rule';
import type { DispatchTarget } from './dispatch-target';
import type { Leases } from './leases';
import type { InFlightOperation, ProcessorEntry, ProcessorPool } from './processor-pool';

const INDEXING_ONLY = () => new SubsystemIdSet({ ids: ['indexing'] });

export interface HandOverOptions {
  mw: Middleware;
  log: Logger;
  pool: ProcessorPool;
  leases: Leases;
  liveness: LivenessTracker;
  /** The batch key's signer: the batch's token goes with it, for the indexer (none without a key). */
  signer?: BatchSigner;
}

export interface PlaceOptions {
  /** Processors that must not get this batch (the dead one it comes from). */
  exclude?: ReadonlySet<string>;
  /**
   * Runs once a processor is assigned and before it gets the batch (the batch goes into the session's replica
   * first); when it throws, the processor is released and the error goes to the caller.
   */
  accept?: (p: ProcessorEntry) => Promise<void>;
  /** 'throw' (a client's batch: the client hears it) or 'next' (a waiting batch: logged, the next processor tries). */
  onError: 'throw' | 'next';
  /** What the batch is, for the log when a processor fails to take it. */
  what: string;
}

/**
 * The one hand-over loop of the distributor: the dispatch rule picks a processor, the pool assigns the batch to it,
 * its Lease Timeout starts, and processor_server.process hands the batch over. A processor that refuses before taking
 * it (shutting down, busy, gone) is released and the next one is tried; each processor once.
 */
export class HandOver {
  /** The process call in flight to each processor, to abandon when it is declared dead. */
  private readonly calls = new Map<string, AbortController>();

  constructor(private readonly o: HandOverOptions) {}

  /**
   * The processor is declared dead or gone: its process call in flight, if any, is abandoned now rather than waited
   * out (its batch has gone the dead processor's way already), so whoever waits on it goes on.
   */
  abandon(name: string, why: string): void {
    this.calls.get(name)?.abort(new Error(why));
  }

  /** The processor that took the batch, undefined when none did. */
  async place(target: DispatchTarget, batch: OperationSet, ops: InFlightOperation[], opts: PlaceOptions): Promise<ProcessorEntry | undefined> {
    const { pool, leases } = this.o;
    const tried = new Set(opts.exclude);
    for (;;) {
      const p = pickProcessor(pool.all(), tried);
      if (!p) return undefined;
      tried.add(p.name);
      pool.assign(p, target.id, ops, batch);
      if (opts.accept) {
        try {
          await opts.accept(p);
        } catch (err) {
          pool.release(p);
          throw err;
        }
      }
      leases.start(p.name, p.leaseMs);
      const outcome = await this.call(p, target, batch).catch((err: Error) => {
        if (opts.onError === 'throw') throw err;
        this.o.log.warn({ procserver: p.name, err: err.message }, `${opts.what} not taken`);
        return 'retry' as const;
      });
      if (outcome === 'taken') return p;
    }
  }

  /** Gives the batch to one processor; 'retry' when it refused before taking it (the loop tries the next one). */
  private async call(p: ProcessorEntry, target: DispatchTarget, batch: OperationSet): Promise<'taken' | 'retry'> {
    const { mw, log, pool, leases, liveness } = this.o;
    const ac = new AbortController();
    this.calls.set(p.name, ac);
    const token = this.o.signer?.token(target.id, target.collection, batch);
    try {
      for (;;) {
        try {
          await mw.proxy(processorServerInterface, p.proxy, { timeoutMs: 10_000, signal: ac.signal }).process(target.coreSession, target.id, target.collection, batch, INDEXING_ONLY(), token);
          liveness.renew(p.name);
          return 'taken';
        } catch (err) {
          if (err instanceof TransportError && err.data['in_flight'] === true) {
            // the bus dropped before the answer came: the processor may hold the batch or not. Once the bus is back
            // it gets the batch again, unless it was reported or declared dead meanwhile (a processor that has the
            // batch says so: sent twice, it is taken once)
            await mw.connection.whenUp();
            if (p.batch !== batch) return 'taken';
            log.info({ procserver: p.name, session: target.id }, 'process call cut by a bus outage; sending the batch again');
            continue;
          }
          throw err;
        }
      }
    } catch (err) {
      if (err instanceof CallAbandoned) {
        // declared dead while it had the call: the batch is an orphan already, on its way to another processor
        log.warn({ procserver: p.name, session: target.id }, 'process call abandoned: the item processor was declared dead');
        return 'taken';
      }
      if (err instanceof CallTimeout) {
        // it may hold the batch: the lease decides (lost at expiry unless processed arrives)
        log.warn({ procserver: p.name, session: target.id }, 'process call timed out; the lease will tell');
        return 'taken';
      }
      leases.cancel(p.name);
      pool.release(p);
      if (err instanceof ShuttingDown) {
        p.terminating = true;
        log.info({ procserver: p.name }, 'item processor is shutting down; no more batches for it');
        return 'retry';
      }
      if (err instanceof SystemResourceError) return 'retry';
      if (err instanceof ObjectNotExist) {
        log.warn({ procserver: p.name, pid: p.pid }, 'item processor is gone; unregistering it');
        leases.drop(p.name);
        pool.unregister(p.name);
        return 'retry';
      }
      throw err;
    } finally {
      if (this.calls.get(p.name) === ac) this.calls.delete(p.name);
    }
  }
}
