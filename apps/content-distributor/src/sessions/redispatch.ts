import { OperationState, OperationStatusInfo, type OperationSet } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Dispatcher } from '../dispatch/dispatcher';
import { docIdOf } from '../dispatch/operation-ids';
import type { FeedingSession } from './feeding-session';
import { decodeBatch, type InFlightBatch } from './session-artifact';
import type { SessionDirectory } from './session-directory';

export interface RedispatchOptions {
  log: Logger;
  dispatcher: Dispatcher;
  sessions: SessionDirectory;
  stopping: () => boolean;
  /** How long a batch waits for a free item processor before it is reported lost. */
  deadlineMs: number;
}

/**
 * The batches in flight of a session reactivated from its replica go to item processors again, oldest first
 * (MS-FSDPD 3.5.6 as for any batch), through the dispatcher's waiting batches. Right after a failover this node may
 * have no free processor yet (those of the dead distributor register again within a heartbeat or two): they wait,
 * up to the deadline, then are reported lost (the client resubmits lost operations as its suggested action says).
 */
export class Redispatch {
  readonly counters = { redispatchedBatches: 0, redispatchedOps: 0, redispatchLost: 0 };

  constructor(private readonly o: RedispatchOptions) {}

  send(session: FeedingSession, batches: readonly InFlightBatch[]): Promise<void> {
    const { log, dispatcher, sessions } = this.o;
    const deadline = dispatcher.now() + this.o.deadlineMs;
    const waiting = batches.flatMap((b) => {
      let batch: OperationSet;
      try {
        batch = decodeBatch(b);
      } catch (err) {
        log.error({ session: session.id, first: b.first, last: b.last, err: (err as Error).message }, 'in-flight batch of a reactivated session undecodable');
        return [];
      }
      const ops = batch.operations.map((op) => ({ opId: op.id, docId: docIdOf(op), sessionId: session.id }));
      return [
        {
          kind: 'redispatch' as const,
          sessionId: session.id,
          batch,
          ops,
          deadline,
          // reported processed or lost meanwhile (by a processor that had the original), or the session went
          wanted: () => !this.o.stopping() && sessions.get(session.id) === session && session.inFlight.has(b.first),
          lostWhy: `no item processor took a batch of reactivated session ${session.id} within ${this.o.deadlineMs} ms`,
          taken: () => {
            this.counters.redispatchedBatches++;
            this.counters.redispatchedOps += ops.length;
            session.callbacks?.enqueue([new OperationStatusInfo({ first_op_id: b.first, last_op_id: b.last, state: OperationState.received, subsystem: 'processing', errors: [], warnings: [] })]);
          },
          lost: () => this.counters.redispatchLost++,
        },
      ];
    });
    return dispatcher.enqueue(waiting);
  }
}
