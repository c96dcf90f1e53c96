import type { Implementation, masterDispatcherInterface } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { DispatcherHolder } from '../master/dispatcher-holder';

/** master_dispatcher (MS-FSDPD 3.3, MS-FSCDFT 3.1): dispatcher nodes and item processors register with the master. */
export function masterDispatcher(holder: DispatcherHolder, log: Logger): Implementation<typeof masterDispatcherInterface> {
  return {
    register_dispatcher: async (nodeId) => {
      await holder.register(nodeId);
      log.info({ node: nodeId }, 'dispatcher registered');
    },
    unregister_dispatcher: (nodeId) => {
      holder.unregister(nodeId);
      log.info({ node: nodeId }, 'dispatcher unregistered');
    },
    register_procserver: (name) => {
      holder.registerProcserver(name);
      log.info({ procserver: name }, 'item processor registered with master');
    },
    assign_dispatcher: (name) => holder.assign(name),
    unregister_procserver: (name) => {
      holder.unregisterProcserver(name);
      log.info({ procserver: name }, 'item processor unregistered from master');
    },
  };
}
