/**
 * Cheetah entity parameters of the processing interfaces, with the per-method MUSTs of the specs on top of what
 * the entity classes of @esp/codecs already check.
 */
import {
  GuaranteeSet,
  OperationSet,
  OperationState,
  OperationStatusInfo,
  SubsystemIdSet,
} from '@esp/codecs';
import { PROCESS_NEXT_SUBSYSTEM, PROCESSING_SUBSYSTEM } from './constants';
import { cheetahEntity } from './fsidl-types';

/** `cht::core::guarantee_set` (MS-FSCDFT 2.2.3), any content. */
export const guaranteeSetSchema = cheetahEntity(GuaranteeSet);

/**
 * The `guarantees` argument of dispatcher_node create_session / create / recreate (MS-FSCDFT 3.5.4.1-3.5.4.3): any
 * guarantee_set entity. Whether the distributor can keep it (one `cht::core::feeding_priority` or nothing) is the
 * server's rule, answered with `core::unsupported_guarantee_set` (./session-guarantees), not a malformed argument.
 */
export const sessionGuaranteesSchema = guaranteeSetSchema;

/** `cht::documentmessages::operation_set` (MS-FSDPD 2.2.11): a batch of item operations. */
export const operationSetSchema = cheetahEntity(OperationSet);

/** `cht::documentmessages::subsystem_id_set` (MS-FSDPD 2.2.34), empty or ["indexing"]. */
export const subsystemIdSetSchema = cheetahEntity(SubsystemIdSet);

/**
 * The `subsystem_ids` argument of processor_server::process (MS-FSDPD 3.1.4.1): where the batch goes after
 * processing. Its value MUST be "indexing", so the empty set the entity itself allows is refused here.
 */
export const processSubsystemIdsSchema = subsystemIdSetSchema.refine(
  (s) => s.ids.length === 1 && s.ids[0] === PROCESS_NEXT_SUBSYSTEM,
  { message: 'MUST be set to "indexing" (MS-FSDPD 3.1.4.1)', path: ['ids'] },
);

/** `cht::documentmessages::operation_status_info` (MS-FSDPD 2.2.35), any content. */
export const operationStatusInfoSchema = cheetahEntity(OperationStatusInfo);

/**
 * The `status` argument of procserver_handler::processed (MS-FSDPD 3.5.4.3): state MUST be `completed` and
 * subsystem MUST be "processing" (errors and warnings carry what went wrong; `completed=false` says the batch did not
 * reach the next subsystem).
 */
export const processedStatusSchema = operationStatusInfoSchema
  .refine((s) => s.subsystem === PROCESSING_SUBSYSTEM, {
    message: 'subsystem MUST be "processing" (MS-FSDPD 3.5.4.3)',
    path: ['subsystem'],
  })
  .refine((s) => s.state === OperationState.completed, {
    message: 'state MUST be operation_state::completed (MS-FSDPD 3.5.4.3)',
    path: ['state'],
  });
