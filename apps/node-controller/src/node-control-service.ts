import { XmlRpcFault, type XmlRpcInput, type XmlRpcValue } from '@esp/codecs';
import { UnknownProcessError, type NodeSupervisor } from './node-supervisor';
import { methodTable } from '@esp/xmlrpc-http';

/** A RestartProcess / StartProcess / StopProcess of a name the node does not run. */
export const FAULT_NO_SUCH_PROCESS = 1;

async function named(fn: () => Promise<void>): Promise<XmlRpcInput> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof UnknownProcessError) throw new XmlRpcFault(FAULT_NO_SUCH_PROCESS, err.message);
    throw err;
  }
  return 1;
}

/**
 * The node controller's XML-RPC methods (MS-FSDPD 3.5.5 names GetProcessList and RestartProcess; MS-FSNC itself is
 * not among our specs, so the shapes are ours):
 *
 *   GetProcessList() -> [ { name, pid, ppid, state, restarts, uptime }, ... ]   (ProcessInfo structs)
 *   RestartProcess([name, ...]) -> 1    every name is checked before any is restarted
 *   StartProcess(name) -> 1             a stopped process starts; a running one is left alone
 *   StopProcess(name) -> 1              stopped until StartProcess / RestartProcess
 *   ping() -> "pong"
 *
 * Unknown names are fault 1 (FAULT_NO_SUCH_PROCESS); unknown methods and wrong parameters the usual -3260x faults.
 */
/** The methods that start or stop processes: they need the admin secret (see @esp/xmlrpc-http). */
export const NODE_CONTROL_STATE_CHANGING = new Set(['RestartProcess', 'StartProcess', 'StopProcess']);

export function nodeControlMethods(sup: NodeSupervisor): (method: string, params: XmlRpcValue[], caller: unknown) => Promise<XmlRpcInput> {
  return methodTable<unknown>('NodeControl', {
    GetProcessList: { params: [], run: () => sup.list().map((p) => ({ ...p })) },
    RestartProcess: {
      params: [{ name: 'processes', type: 'string[]' }],
      run: async ([processes]) => {
        const names = processes as string[];
        const known = new Set(sup.names());
        const unknown = names.filter((n) => !known.has(n));
        if (unknown.length) throw new XmlRpcFault(FAULT_NO_SUCH_PROCESS, `no process named ${unknown.map((n) => `"${n}"`).join(', ')} on this node; there are: ${[...known].join(', ')}`);
        await Promise.all(names.map((n) => sup.restart(n)));
        return 1;
      },
    },
    StartProcess: { params: [{ name: 'name', type: 'string' }], run: ([name]) => named(() => sup.start(name as string)) },
    StopProcess: { params: [{ name: 'name', type: 'string' }], run: ([name]) => named(() => sup.stop(name as string)) },
    ping: { params: [], run: () => 'pong' },
  });
}
