import type { Implementation, procserverHandlerInterface } from '@esp/interfaces';
import type { Processors } from '../dispatch/processors';

/** procserver_handler (MS-FSDPD 3.5) of this node: item processors register here and report their batches. */
export function procserverHandler(processors: Processors): Implementation<typeof procserverHandlerInterface> {
  return {
    register_procserver: (procserver, name, hostname, pid) => processors.register(procserver, name, hostname, pid),
    unregister_procserver: (name) => processors.unregister(name),
    processed: (name, completed, status) => processors.processed(name, completed, status),
    flush_pipelines: () => processors.flush(),
    renew: (name, period) => processors.renew(name, period),
  };
}
