import { sessionGuarantees, type dispatcherNodeInterface, type Implementation } from '@esp/interfaces';
import type { SessionDirectory } from '../sessions/session-directory';
import type { SessionHost } from '../sessions/session-host';

/**
 * dispatcher_node (MS-FSCDFT 3.5.4) of this node: the sessions it holds, and its load. A session call carries the
 * client's owner token (or none, from a caller of the spec's signature); the host decides whether it may touch an
 * existing session. A guarantee set other than one feeding_priority or none raises unsupported_guarantee_set
 * (MS-FSCDFT 3.5.4.1-3.5.4.3); the priority is kept with the session.
 */
export function dispatcherNode(host: SessionHost, sessions: SessionDirectory, load: () => number): Implementation<typeof dispatcherNodeInterface> {
  return {
    create_session: async (id, collection, callback, g, _p, token) => host.open(id, collection, callback, false, { token, guarantees: sessionGuarantees(g) }),
    create: async (id, collection, g, _p, external, token) => host.open(id, collection, undefined, external, { token, guarantees: sessionGuarantees(g) }),
    recreate: async (id, collection, g, _p, external, token) => host.open(id, collection, undefined, external, { token, recreate: true, guarantees: sessionGuarantees(g) }),
    destroy_session: (id, token) => host.destroy(id, { token }),
    remove_sessions: (collection) => host.removeCollection(collection),
    get_sessions: () => sessions.ids(),
    get_load: () => load(),
  };
}
