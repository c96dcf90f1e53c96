import { z } from 'zod';
import { defineInterface, method } from '../define-interface';
import { operationStatusInfoSchema } from '../processing/entity-schemas';
import { OPERATION_CALLBACK_TYPE } from '../processing/dispatcher-node';
import { voidResult } from '../processing/fsidl-types';

/**
 * `coreprocessing::operation_callback` (MS-FSDP 3.4, not in our specs): the content client's callback object, passed
 * to create_session. The distributor and the indexer call it with the state of ranges of operations.
 *
 * Meaning of a status (our contract, since MS-FSCF is not available):
 * - processing / received: the distributor accepted the batch first_op_id..last_op_id and gave it to an item processor;
 * - processing / completed: the item processor finished the batch (errors and warnings of processing attached);
 * - indexing / secured: the batch is durably written;
 * - indexing / completed: FINAL for every operation of the range: an operation named in `errors` failed with that
 *   error (processing error, operation_dropped, ...), every other one is completed (searchable);
 * - any / lost: FINAL for exactly the operations named in `errors` (operation_lost, suggested action resubmit).
 * Each operation gets exactly one final status; a callback may be delivered more than once after a retry, so
 * clients treat them idempotently by operation id.
 *
 * 5.1 adds `callbacks`: several statuses in one call, applied in list order, so that what is known at the same time
 * costs one round trip (the indexer's secured and completed of a batch come out of the same commit). A call that
 * fails is retried whole; statuses of it the client had already applied are applied again (idempotent, as above).
 */
/** The most statuses one `callbacks` call carries (senders split longer backlogs). */
export const MAX_STATUSES_PER_CALLBACK = 256;

export const operationCallbackInterface = defineInterface({
  type: OPERATION_CALLBACK_TYPE,
  version: '5.1',
  doc: 'Content client callbacks: received, secured, completed and lost states of ranges of operations.',
  methods: {
    callback: method({
      params: [['status', operationStatusInfoSchema]],
      returns: voidResult,
      doc: 'One operation_status_info for the range first_op_id..last_op_id of one session.',
    }),
    callbacks: method({
      params: [['statuses', z.array(operationStatusInfoSchema).min(1).max(MAX_STATUSES_PER_CALLBACK)]],
      returns: voidResult,
      doc: 'Several operation_status_info of one session, in order: the same as calling callback with each in turn.',
    }),
  },
});
