import type { GuaranteeSet } from '@esp/codecs';
import type { dispatcherNodeInterface, Implementation } from '@esp/interfaces';
import type { SessionDirectory } from '../sessions/session-directory';
import type { SessionHost } from '../sessions/session-host';

/** dispatcher_node (MS-FSCDFT 3.5.4) of this node: the sessions it holds, and its load. */
export function dispatcherNode(host: SessionHost, sessions: SessionDirectory, load: () => number): Implementation<typeof dispatcherNodeInterface> {
  return {
    create_session: (id, collection, callback, _g: GuaranteeSet) => host.open(id, collection, callback, false),
    create: (id, collection, _g, _p, external) => host.open(id, collection, undefined, external),
    recreate: (id, collection, _g, _p, external) => host.open(id, collection, undefined, external, true),
    destroy_session: (id) => host.destroy(id),
    remove_sessions: (collection) => host.removeCollection(collection),
    get_sessions: () => sessions.ids(),
    get_load: () => load(),
  };
}
