import { defineInterface, method } from '../define-interface';
import { operationSetSchema, processSubsystemIdsSchema } from './entity-schemas';
import { aorOf, nonEmptyString, nonNegativeLong, voidResult } from './fsidl-types';
import { batchTokenSchema } from '../feeding/batch-token-schema';

/** FSIDL type of the indexing dispatcher's session that process forwards the batch to (MS-FSDP section 3). */
export const CORE_PROCESSING_SESSION_TYPE = 'coreprocessing::session';

/** A `coreprocessing::session` client proxy (the next subsystem, normally the indexing dispatcher). */
export const coreProcessingSessionAorSchema = aorOf(CORE_PROCESSING_SESSION_TYPE);

/**
 * `processing::processor_server` 5.2: served by each item processor and handed to the content distributor as a proxy
 * in procserver_handler::register_procserver (never bound in the name server; MS-FSDPD 3.1, 3.5.4.1). The version is
 * the `pragma version processor_server 5.2` of MS-FSDPD appendix A (section 3 gives none, as no bind or resolve uses
 * it).
 *
 * Raises (process): `processing::shutting_down {}` (MS-FSDPD 2.2.37, no fields) and
 * `processing::system_resource_error { string what; }` (2.2.38; `message` in appendix A): the description of the
 * resource constraint is the SystemResourceError's message.
 */
/**
 * The object id of an item processor's processor_server: `processor_server/<name>/<pid>`. Its name is a subject token
 * of its own, so that the bus gives each processor's identity its own objects (docs/security.md).
 */
export function processorServerObjectId(name: string, pid: number): string {
  return `${processorServerIdPrefix(name)}/${pid}`;
}

/** The object ids of every processor_server of the processor named `name`. */
export function processorServerIdPrefix(name: string): string {
  return `processor_server/${name}`;
}

export const processorServerInterface = defineInterface({
  type: 'processing::processor_server',
  version: '5.2',
  doc: 'Item processor: runs a batch of item operations through the pipeline (MS-FSDPD 3.1).',
  methods: {
    process: method({
      params: [
        ['next_subsystem_session', coreProcessingSessionAorSchema],
        ['session_id', nonNegativeLong],
        ['collection', nonEmptyString],
        ['batch', operationSetSchema],
        ['subsystem_ids', processSubsystemIdsSchema],
        // ours: the distributor's token for this batch, passed on with it to next_subsystem_session.process
        ['batch_token', batchTokenSchema],
      ],
      returns: voidResult,
      raises: ['shutting_down', 'system_resource_error'],
      doc:
        'MS-FSDPD 3.1.4.1: raise shutting_down if terminating; else process the batch (Status logs and statistics), ' +
        'pass it on with next_subsystem_session.process, then call procserver_handler::processed.',
    }),
    flush: method({
      params: [],
      returns: voidResult,
      doc: 'MS-FSDPD appendix A only (no section 3 text): flush the work the item processor holds (our reading).',
    }),
    reassign: method({
      params: [],
      returns: voidResult,
      doc:
        'MS-FSDPD appendix A only (no section 3 text): re-run registration with master_dispatcher (assign_dispatcher) ' +
        'and move to the procserver_handler it names (our reading).',
    }),
  },
});
