import { defineInterface, method } from '../define-interface';
import { nonEmptyString, nonNegativeLong, voidResult } from './fsidl-types';

/**
 * `processing::master_dispatcher` 5.0: served by the master content distributor, bound under DISPATCHER_NAME on base
 * port + 390 (MS-FSCDFT 3.1.3, MS-FSDPD 3.3.3). Its methods are the union of MS-FSCDFT 3.1 (content distributors
 * register their dispatcher_node) and MS-FSDPD 3.3 (item processors register and get a procserver_handler), as in the
 * FSIDL of MS-FSDPD appendix A (`pragma version master_dispatcher 5.0`, also MS-FSCDFT appendix A).
 *
 * Parameter names: the item-processor methods name their argument `name` in the normative MS-FSDPD 3.3.4 and
 * `procserver_id` in the informative appendix A; we follow section 3 (it is also the `name` that
 * procserver_handler's methods MUST repeat, MS-FSDPD 3.5.4).
 */
export const masterDispatcherInterface = defineInterface({
  type: 'processing::master_dispatcher',
  version: '5.0',
  doc:
    'Master content distributor: registration of backup content distributors and of item processors ' +
    '(MS-FSCDFT 3.1, MS-FSDPD 3.3).',
  methods: {
    register_dispatcher: method({
      params: [['node_id', nonNegativeLong]],
      returns: voidResult,
      doc:
        'MS-FSCDFT 3.1.4.1: resolve processing::dispatcher_node 5.1 at dispatcherNodeName(node_id) and keep the proxy in ' +
        'the dispatcher node state. Called by the master and by every backup at start-up.',
    }),
    unregister_dispatcher: method({
      params: [['node_id', nonNegativeLong]],
      returns: voidResult,
      doc:
        'MS-FSDPD appendix A only (no section 3 text): the inverse of register_dispatcher, dropping the dispatcher_node ' +
        'proxy of node_id from the dispatcher node state.',
    }),
    register_procserver: method({
      params: [['name', nonEmptyString]],
      returns: voidResult,
      doc: 'MS-FSDPD 3.3.4.1: store the item processor name in the item processing component identifier holder.',
    }),
    assign_dispatcher: method({
      params: [['name', nonEmptyString]],
      returns: nonNegativeLong,
      doc:
        'MS-FSDPD 3.3.4.2: return the dispatcher identifier C of a procserver_handler (bound at dispatcherNodeName(C)); ' +
        'MUST return 1 (ASSIGN_DISPATCHER_NONE_AVAILABLE) when the dispatcher holder is empty.',
    }),
    unregister_procserver: method({
      params: [['name', nonEmptyString]],
      returns: voidResult,
      doc: 'MS-FSDPD 3.3.4.3: remove the name from the item processing component identifier holder.',
    }),
  },
});
