/**
 * Constants of the processing feeding chain that servers and clients both need, each with the spec section it
 * comes from. MS-FSCDFT = content distributor fault tolerance, MS-FSDPD = document processing distribution.
 *
 * Interface types and versions are not repeated here: they are `xxxInterface.type` / `xxxInterface.version`.
 */

// ---- well-known names in the name server

/**
 * Name of the master content distributor's objects: `processing::session_factory` (5.1) and
 * `processing::master_dispatcher` (5.0) are both bound under it (MS-FSCDFT 3.1.3, 3.2.3, 3.3.3, 3.4.3, 3.4.5;
 * MS-FSDPD 3.3.3, 3.4.3).
 */
export const DISPATCHER_NAME = 'esp/subsystems/processing/dispatcher';

/**
 * Name of one content distributor's per-node objects: `processing::dispatcher_node` (5.1) bound by every content
 * distributor under its node_id (MS-FSCDFT 3.5.3), and `processing::procserver_handler` (5.0) bound under its
 * dispatcher identifier C (MS-FSDPD 3.5.3, 3.6.3); an item processor builds it from the value of assign_dispatcher
 * (MS-FSDPD 3.4.3).
 *
 * MS-FSCDFT 3.1.4.1 spells the resolve name "esp/subsystem/processing/dispatcher/<node_id>" (no "s"); a resolve must
 * find what 3.5.3 bound, so both use the "subsystems" spelling here.
 */
export function dispatcherNodeName(id: number): string {
  if (!Number.isInteger(id) || id < 0) throw new RangeError(`dispatcher id must be an integer >= 0, got ${String(id)}`);
  return `${DISPATCHER_NAME}/${id}`;
}

// ---- ports (offsets from the installation's base port)

/**
 * Port of the AORs of session_factory, master_dispatcher, dispatcher_node and procserver_handler: base port + 390
 * (MS-FSCDFT 3.1.3, 3.3.3, 3.5.3; MS-FSDPD 3.3.3, 3.5.3). Also the port of a `processing::session` created by
 * dispatcher_node::create_session, or by create / recreate with external_client = false (MS-FSCDFT 3.5.4.1-3.5.4.3).
 *
 * MS-FSCDFT 3.5.3 says dispatcher_node itself is on "base port plus 390 or plus 391, as specified in section 3.5.4",
 * but 3.5.4 only places the sessions it creates; the dispatcher_node object is internal (called by the master only),
 * so it is on +390 here.
 */
export const INTERNAL_PORT_OFFSET = 390;

/**
 * Port of a `processing::session` created by create / recreate with external_client = true: base port + 391
 * (MS-FSCDFT 3.5.4.2, 3.5.4.3).
 */
export const EXTERNAL_SESSION_PORT_OFFSET = 391;

/** Where a `processing::session` is activated: +391 for an external client, +390 otherwise (MS-FSCDFT 3.5.4.2-3). */
export function sessionPortOffset(externalClient: boolean): number {
  return externalClient ? EXTERNAL_SESSION_PORT_OFFSET : INTERNAL_PORT_OFFSET;
}

// ---- timers

/**
 * "check master status" timer of the master: resolve session_factory to check it is still the one bound; default
 * interval 5 s (MS-FSCDFT 3.3.2, 3.3.5).
 */
export const CHECK_MASTER_STATUS_INTERVAL_SECONDS = 5;
export const CHECK_MASTER_STATUS_INTERVAL_MS = CHECK_MASTER_STATUS_INTERVAL_SECONDS * 1000;

/** "check for master" timer of a backup: __ping the master's session_factory; default interval 5 s (MS-FSCDFT 3.4.2). */
export const CHECK_FOR_MASTER_INTERVAL_SECONDS = 5;
export const CHECK_FOR_MASTER_INTERVAL_MS = CHECK_FOR_MASTER_INTERVAL_SECONDS * 1000;

/**
 * A backup takes over after this many successive failed __ping calls on the master: it unbinds the old
 * session_factory and binds its own (MS-FSCDFT 3.4.5; section 3 also re-resolves and pings once more first).
 */
export const MASTER_PING_FAILURES_BEFORE_TAKEOVER = 3;

/**
 * Lease Timeout: the longest time from processor_server::process to procserver_handler::processed; default 300 s
 * (SHOULD, MS-FSDPD 3.5.2). An item processor changes it with procserver_handler::renew(name, period in seconds)
 * (MS-FSDPD 3.5.4.4).
 */
export const DEFAULT_LEASE_TIMEOUT_SECONDS = 300;
export const DEFAULT_LEASE_TIMEOUT_MS = DEFAULT_LEASE_TIMEOUT_SECONDS * 1000;

/**
 * Reregistration Lease of an item processor: if it has processed nothing when it expires, it unregisters from
 * master_dispatcher and procserver_handler and registers again; default 180 s (SHOULD, MS-FSDPD 3.4.2, 3.4.5).
 */
export const DEFAULT_REREGISTRATION_LEASE_SECONDS = 180;
export const DEFAULT_REREGISTRATION_LEASE_MS = DEFAULT_REREGISTRATION_LEASE_SECONDS * 1000;

// ---- values fixed by the specs

/**
 * What master_dispatcher::assign_dispatcher returns when the dispatcher holder is empty: 1 (MUST, MS-FSDPD 3.3.4.2).
 * Note that 1 is also a valid dispatcher id: a caller cannot tell "none" from dispatcher 1 by the value; it finds
 * out when resolving `dispatcherNodeName(1)` fails with resolve_exception.
 */
export const ASSIGN_DISPATCHER_NONE_AVAILABLE = 1;

/**
 * The `priority` argument of dispatcher_node create_session / create / recreate (MS-FSCDFT 3.5.4.1-3.5.4.3) and of
 * procserver_handler::register_procserver (MS-FSDPD 3.5.4.1), like feeding_priority.priority (MS-FSCDFT 2.2.2):
 * MUST be 0.
 */
export const REQUIRED_PRIORITY = 0;

/** The `subsystem_ids` of processor_server::process MUST be "indexing" (MS-FSDPD 3.1.4.1). */
export const PROCESS_NEXT_SUBSYSTEM = 'indexing';

/**
 * `subsystem` of the status an item processor reports in procserver_handler::processed, and of failed_operation
 * (MS-FSDPD 3.5.4.3, 3.5.5).
 */
export const PROCESSING_SUBSYSTEM = 'processing';

/**
 * The operation_lost error the distributor puts in each failed_operation after a Lease Timeout (MS-FSDPD 3.5.5):
 * error_code 4, suggested action `resubmit`, subsystem "processing", this description, and
 * failed_operation.operation_type "failed_operation" (MS-FSDPD 2.2.33).
 */
export const LEASE_LOST_ERROR_CODE = 4;
export const LEASE_LOST_DESCRIPTION = 'failed to submit operation to next subsystem';
export const FAILED_OPERATION_TYPE = 'failed_operation';

// ---- the node controller, reached on a Lease Timeout (MS-FSDPD 3.5.5)

/**
 * To restart an unresponsive item processor, the distributor resolves the configuration service (name
 * "fds/configservice", `configservice::config` 5.2), asks get_active_module_list("NodeControl") for the node
 * controller's port, then calls the node controller's XML-RPC GetProcessList / RestartProcess (MS-FSDPD 3.5.5).
 */
export const LEASE_TIMEOUT_NODE_CONTROLLER_LOOKUP = Object.freeze({
  configServiceName: 'fds/configservice',
  configServiceInterfaceType: 'configservice::config',
  configServiceInterfaceVersion: '5.2',
  nodeControllerModuleType: 'NodeControl',
} as const);
