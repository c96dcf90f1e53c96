import { defineInterface } from '../define-interface';
import { dispatcherNodeInterface } from './dispatcher-node';

/**
 * `processing::session_factory` 5.1: bound by the master content distributor under DISPATCHER_NAME on base port + 390
 * (MS-FSCDFT 3.3.3), before master_dispatcher. Backups `__ping` it every CHECK_FOR_MASTER_INTERVAL_MS and take over
 * after MASTER_PING_FAILURES_BEFORE_TAKEOVER failures (MS-FSCDFT 3.4.5); the master re-resolves it every
 * CHECK_MASTER_STATUS_INTERVAL_MS to learn whether it is still master (MS-FSCDFT 3.3.5).
 *
 * MS-FSCDFT 3.3.4 uses only `__ping` (answered by every server object, so not declared here; appendix A lists just
 * `void __ping()`) and leaves "the other methods" to MS-FSCF section 3, which is not among our specs. The method set
 * would be empty. Content clients need a door to create sessions, so (our design, on the model of MS-FSCDFT 3.5.4)
 * the master's session_factory takes the dispatcher_node session methods, with the same signatures, and forwards
 * each to the dispatcher_node with the lowest get_load.
 */
export const sessionFactoryInterface = defineInterface({
  type: 'processing::session_factory',
  version: '5.1',
  doc: 'Master content distributor liveness (__ping) and, per MS-FSCF, feeding session creation (MS-FSCDFT 3.3).',
  methods: {
    create_session: dispatcherNodeInterface.methods.create_session,
    create: dispatcherNodeInterface.methods.create,
    recreate: dispatcherNodeInterface.methods.recreate,
    destroy_session: dispatcherNodeInterface.methods.destroy_session,
  },
});
