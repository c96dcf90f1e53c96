import type { GuaranteeSet } from '@esp/codecs';
import type { dispatcherNodeInterface, Implementation } from '@esp/interfaces';
import type { SessionDirectory } from '../sessions/session-directory';
import type { SessionHost } from '../sessions/session-host';

/**
 * dispatcher_node (MS-FSCDFT 3.5.4) of this node: the sessions it holds, and its load. A session call carries the
 * client's owner token (or none, from a caller of the spec's signature); the host decides whether it may touch an
 * existing session.
 */
export function dispatcherNode(host: SessionHost, sessions: SessionDirectory, load: () => number): Implementation<typeof dispatcherNodeInterface> {
  return {
    create_session: (id, collection, callback, _g: GuaranteeSet, _p, token) => host.open(id, collection, callback, false, { token }),
    create: (id, collection, _g, _p, external, token) => host.open(id, collection, undefined, external, { token }),
    recreate: (id, collection, _g, _p, external, token) => host.open(id, collection, undefined, external, { token, recreate: true }),
    destroy_session: (id, token) => host.destroy(id, { token }),
    remove_sessions: (collection) => host.removeCollection(collection),
    get_sessions: () => sessions.ids(),
    get_load: () => load(),
  };
}
