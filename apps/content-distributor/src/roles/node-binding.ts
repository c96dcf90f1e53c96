import type { Aor, InterfaceDef } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { bindOrTakeOver, type Middleware } from '@esp/middleware';

/** A binding this node made, as unbind needs it. */
export interface NodeBinding {
  name: string;
  type: string;
  revision: number;
}

/**
 * Binds one of the node's own objects (3.5.3). A binding left by a previous run killed with -9 is taken over, also
 * when its holder times out rather than answering object_not_exist; a live holder is another distributor with the
 * same role or node id, and stops this start.
 */
export async function bindNodeObject(mw: Middleware, log: Logger, name: string, iface: InterfaceDef, aor: Aor): Promise<NodeBinding> {
  const { revision } = await bindOrTakeOver(mw, iface, name, aor, {
    takeOverUnanswered: true,
    holderHint: 'is another distributor running with the same role or node id?',
    log,
  });
  return { name, type: aor.interface_type, revision };
}
