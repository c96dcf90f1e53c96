import { z } from 'zod';
import { defineInterface, method } from '../define-interface';
import { operationSetSchema, operationStatusInfoSchema } from '../processing/entity-schemas';
import { PROCESSING_SESSION_TYPE } from '../processing/dispatcher-node';
import { fsidlLongint, voidResult } from '../processing/fsidl-types';

/**
 * `processing::session` (MS-FSCF 3.4, not in our specs; designed on MS-FSCDFT 3.5.4 and MS-FSDPD 2.2.11 / 2.2.35):
 * a feeding session on a content distributor, for one collection. The client sends operation_set batches whose
 * operation ids increase across the session, with completed_op_id = the highest id below which it has every final
 * callback (so the chain can forget those ids).
 *
 * 5.2: process returns the batch's `received` status (and any other statuses of the session the distributor has
 * ready) instead of sending it as a separate callback: the reply goes back anyway, and a callback is a round trip
 * more through NATS per batch. The client applies them as it applies callbacks.
 */
export const processingSessionInterface = defineInterface({
  type: PROCESSING_SESSION_TYPE,
  version: '5.2',
  doc: 'Feeding session: batches in, callbacks out (to the operation_callback given at creation).',
  methods: {
    process: method({
      params: [['batch', operationSetSchema]],
      returns: z.array(operationStatusInfoSchema),
      raises: ['processors_busy', 'shutting_down', 'system_resource_error', 'unknown_session'],
      doc:
        'Hands the batch to a free item processor (MS-FSDPD 3.5.6). processors_busy (retryable) when none is free: ' +
        'nothing of the batch was accepted. Returns once the batch is accepted, with its received status (an empty ' +
        'batch: none), to be applied as callbacks are.',
    }),
    accepted_op_id: method({
      params: [],
      returns: fsidlLongint,
      doc:
        'Ours: the highest operation id this session has accepted, -1 when none. A session kept in session ' +
        'replication keeps it across the death of its distributor, so after a failover a client sends again only the ' +
        'operations above it; a session that was not replicated answers -1 and the client sends everything unfinished.',
    }),
    close: method({
      params: [],
      returns: voidResult,
      doc: 'Ends the session (destroy_session on the distributor that holds it).',
    }),
  },
});
