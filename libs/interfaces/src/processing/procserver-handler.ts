import { z } from 'zod';
import { defineInterface, method } from '../define-interface';
import { processedStatusSchema } from './entity-schemas';
import { aorOf, nonEmptyString, positiveLong, voidResult, zeroPriority } from './fsidl-types';

/** A `processing::processor_server` client proxy, as passed to register_procserver. */
export const processorServerAorSchema = aorOf('processing::processor_server');

/**
 * `processing::procserver_handler`: served by a content distributor under dispatcherNodeName(C), C its dispatcher
 * identifier, on base port + 390 (MS-FSDPD 3.5.3); item processors register with it and report finished batches.
 *
 * Version 5.0, not 5.2. The spec gives both: the AOR of the bind (3.5.3), the resolve of the client (3.6.3) and the
 * example code (4.1.1, 4.1.2) all say "5.0", while the informative appendix A says `pragma version
 * procserver_handler 5.2`. What goes into bind and resolve is what a peer sees, and those normative tables say 5.0,
 * so the interface is 5.0. The methods are appendix A's five, including flush_pipelines, which section 3 does not
 * list; a 5.0 client that never calls it is unaffected.
 */
export const procserverHandlerInterface = defineInterface({
  type: 'processing::procserver_handler',
  version: '5.0',
  doc: 'Content distributor side of the item processors: registration, processed callbacks, lease renewal (MS-FSDPD 3.5).',
  methods: {
    register_procserver: method({
      params: [
        ['procserver', processorServerAorSchema],
        ['name', nonEmptyString],
        ['hostname', nonEmptyString],
        ['pid', positiveLong],
        ['priority', zeroPriority],
      ],
      returns: voidResult,
      doc:
        'MS-FSDPD 3.5.4.1: keep procserver under name (the name given to master_dispatcher::register_procserver), ' +
        'its pid for a restart by the node controller, and an empty item operation list.',
    }),
    unregister_procserver: method({
      params: [['name', nonEmptyString]],
      returns: voidResult,
      doc: 'MS-FSDPD 3.5.4.2: forget the processor_server proxy, the pid and the item operation list of name.',
    }),
    processed: method({
      params: [
        ['name', nonEmptyString],
        ['completed', z.boolean()],
        ['status', processedStatusSchema],
      ],
      returns: voidResult,
      doc:
        'MS-FSDPD 3.5.4.3: mark name not busy, drop operations first_op_id..last_op_id from the item operation holder ' +
        'and session mapper, and make the callbacks in status available to the content client.',
    }),
    flush_pipelines: method({
      params: [],
      returns: voidResult,
      doc: 'MS-FSDPD appendix A only (no section 3 text): ask the item processors to flush their pipelines (our reading).',
    }),
    renew: method({
      params: [
        ['name', nonEmptyString],
        ['period', positiveLong],
      ],
      returns: voidResult,
      doc: 'MS-FSDPD 3.5.4.4: set the Lease Timeout of name to period seconds (default 300, DEFAULT_LEASE_TIMEOUT_SECONDS).',
    }),
  },
});
