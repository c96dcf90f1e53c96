import { z } from 'zod';
import { defineInterface, method } from '../define-interface';
import { operationSetSchema } from '../processing/entity-schemas';
import { OPERATION_CALLBACK_TYPE } from '../processing/dispatcher-node';
import { CORE_PROCESSING_SESSION_TYPE, coreProcessingSessionAorSchema } from '../processing/processor-server';
import { aorOf, nonEmptyString, nonNegativeLong, voidResult } from '../processing/fsidl-types';
import { CORE_SESSION_FACTORY_TYPE } from './feeding-types';
import { batchTokenSchema } from './batch-token-schema';

/**
 * `coreprocessing::session_factory` (MS-FSDP 3.2.4, not in our specs): the indexing dispatcher's factory of indexing
 * sessions. A content distributor calls create when it creates a feeding session (MS-FSCDFT 3.5.4.1), passing the
 * content client's callback so that the indexer reports secured / completed / lost straight to the client.
 */
export const coreSessionFactoryInterface = defineInterface({
  type: CORE_SESSION_FACTORY_TYPE,
  version: '5.0',
  doc: 'Indexing dispatcher: creates, recreates and closes indexing sessions.',
  methods: {
    create: method({
      params: [
        ['id', nonNegativeLong],
        ['collection', nonEmptyString],
        ['callback', aorOf(OPERATION_CALLBACK_TYPE)],
      ],
      returns: coreProcessingSessionAorSchema,
      raises: ['unknown_collection', 'system_resource_error'],
      doc: 'A new indexing session for the feeding session id; recreating an existing id returns it.',
    }),
    recreate: method({
      params: [
        ['id', nonNegativeLong],
        ['collection', nonEmptyString],
        ['callback', aorOf(OPERATION_CALLBACK_TYPE)],
      ],
      returns: coreProcessingSessionAorSchema,
      raises: ['unknown_collection', 'system_resource_error'],
      doc: 'The existing session id (callback updated), or a new one; what survives of a session across restarts.',
    }),
    close: method({
      params: [['id', nonNegativeLong]],
      returns: voidResult,
      doc: 'Closes the session once its queued operations are written and reported.',
    }),
  },
});

/**
 * `coreprocessing::session` (MS-FSDP 3.2, not in our specs): an indexing session. process takes a batch of
 * update / partial_update / urlchange / remove operations and failed_operation entities (processing failures, and
 * operations lost by a content distributor, MS-FSDPD 3.5.5). The session is the arbiter of final statuses: each
 * operation id is reported final once; a late copy of a batch whose operations were already reported is ignored.
 */
export const coreSessionInterface = defineInterface({
  type: CORE_PROCESSING_SESSION_TYPE,
  version: '5.0',
  doc: 'Indexing session: durable writes, secured / completed / lost callbacks.',
  methods: {
    process: method({
      // ours: batch_token, the distributor's proof that this batch was dispatched to the caller (batch-token.ts)
      params: [['batch', operationSetSchema], ['batch_token', batchTokenSchema]],
      returns: voidResult,
      raises: ['system_resource_error', 'unknown_session', 'batch_not_authorized'],
      doc: 'Queues the batch for writing (bounded: system_resource_error when full). Callbacks follow. An indexer that holds the batch key refuses a batch without its token (batch_not_authorized).',
    }),
  },
});

export const coreSessionRefSchema = z.object({ aor: coreProcessingSessionAorSchema });
