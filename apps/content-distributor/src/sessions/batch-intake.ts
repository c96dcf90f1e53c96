import { encodedEntityOf, OperationState, OperationStatusInfo, type OperationSet } from '@esp/codecs';
import { ShuttingDown } from '@esp/interfaces';
import { BadParameter } from '@esp/middleware';
import type { Dispatcher } from '../dispatch/dispatcher';
import { docIdOf } from '../dispatch/operation-ids';
import type { InFlightOperation } from '../dispatch/processor-pool';
import type { FeedingSession } from './feeding-session';
import { encodeBatch, type InFlightBatch } from './session-artifact';
import type { SessionQuota } from './session-quota';

/**
 * A client's batch into its feeding session (processing_session.process, MS-FSDPD 3.5.6): operation ids checked,
 * the batch on the session's replica (with session replication) and with an item processor, then `received`.
 */
export class BatchIntake {
  /** Batches accepted since start. */
  accepted = 0;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly stopping: () => boolean,
    /** Bytes in flight per client (the encoded batch as it came; a process that keeps no encoded forms counts none). */
    private readonly quota?: SessionQuota,
  ) {}

  async accept(session: FeedingSession, batch: OperationSet): Promise<OperationStatusInfo[]> {
    if (this.stopping()) throw new ShuttingDown('content distributor is shutting down');
    const ops = batch.operations;
    if (ops.length === 0) return [];
    let prev = session.lastAcceptedOpId;
    for (const op of ops) {
      if (op.id <= prev) {
        throw new BadParameter(`operation ids must increase within the session: ${op.id} after ${prev}`, { argument: 'batch', operation_id: op.id, last_accepted: session.lastAcceptedOpId });
      }
      prev = op.id;
    }
    const first = ops[0]?.id ?? prev;
    this.quota?.takeBatch(session.id, first, prev, encodedEntityOf(batch)?.length ?? 0);
    const inFlight: InFlightOperation[] = ops.map((op) => ({ opId: op.id, docId: docIdOf(op), sessionId: session.id }));
    // with session replication the batch goes into the session artifact, on the buddy, before any processor has it
    // and before the client hears it was accepted: from then on no distributor death can lose it
    let stored: InFlightBatch | undefined;
    const store = session.store;
    const replicate = async (): Promise<void> => {
      if (!store || stored) return;
      stored = encodeBatch(batch);
      session.inFlight.set(stored.first, stored);
      // the batch as a child of the session's artifact; the session's own artifact only when its timer is not armed
      // yet (the first batch in flight): it must be, should this distributor die with no client calling
      const writes = [store.putBatch(session.id, stored)];
      if (!store.armed(session.id)) writes.push(session.save());
      await Promise.all(writes);
    };
    try {
      await this.dispatcher.placeNew(session, batch, inFlight, store ? replicate : undefined);
    } catch (err) {
      this.quota?.settled(session.id, first, prev);
      if (stored && session.inFlight.get(stored.first) === stored) {
        // refused: nothing of it was accepted. Should this distributor die before its artifact is removed, the new home
        // sends the batch once more, which the indexer's arbitration makes harmless
        session.inFlight.delete(stored.first);
        store?.retire(session.id, [stored]);
        session.saveLater();
      }
      throw err;
    }
    session.lastAcceptedOpId = prev;
    session.completedOpId = Math.max(session.completedOpId, batch.completed_op_id);
    this.accepted++;
    // received goes back in the reply (processing session 5.2), not as a callback of its own: one round trip less
    return [new OperationStatusInfo({ first_op_id: ops[0]?.id ?? prev, last_op_id: prev, state: OperationState.received, subsystem: 'processing', errors: [], warnings: [] })];
  }
}
