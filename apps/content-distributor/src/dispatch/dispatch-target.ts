import type { OperationStatusInfo } from '@esp/codecs';
import type { Aor } from '@esp/interfaces';
import type { InFlightOperation } from './processor-pool';

/** What a processor needs to know of the session a batch belongs to (processor_server.process arguments). */
export interface DispatchTarget {
  readonly id: number;
  readonly collection: string;
  /** The indexing session the processor hands the batch to. */
  readonly coreSession: Aor;
}

/** What dispatch needs of the sessions whose batches it places (the feeding sessions implement it). */
export interface BatchOwners {
  /** The session `sessionId` while it is open here. */
  target(sessionId: number): DispatchTarget | undefined;
  /** A processor reported (part of) a batch: the status goes to the client; `done` left the distributor's hands. */
  processed(sessionId: number, status: OperationStatusInfo, done: readonly InFlightOperation[]): void;
  /** Operations no processor will report: sent to the indexer as lost (failed_operation, operation_lost). */
  lost(ops: readonly InFlightOperation[], why: string): Promise<void>;
}
