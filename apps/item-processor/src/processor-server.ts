import { processorServerInterface, type Implementation } from '@esp/interfaces';
import type { BatchProcessor } from './batch-processor';
import type { Registration } from './registration';

/** The processor_server object (MS-FSDPD 3.5): batches go to the batch processor; reassign registers anew. */
export function processorServer(batches: BatchProcessor, registration: Registration): Implementation<typeof processorServerInterface> {
  return {
    process: (next, session_id, collection, batch, _subsystem_ids, batch_token) => batches.accept({ next, session_id, collection, batch, token: batch_token }),
    flush: async () => {
      await batches.whenIdle();
    },
    reassign: () => registration.restart('processor_server::reassign'),
  };
}
