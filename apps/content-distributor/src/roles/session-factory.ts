import { sessionGuarantees, type Implementation, type sessionFactoryInterface } from '@esp/interfaces';
import type { SessionPlacement } from '../master/session-placement';

/**
 * session_factory (MS-FSCDFT 3.3.4 / 3.6, ours): the master forwards each call to the node the session belongs on,
 * the owner token with it (the node that holds the session checks it: docs/decisions/0013-session-ownership.md). A
 * guarantee set no distributor can keep is refused here, before any forward (unsupported_guarantee_set).
 */
export function sessionFactory(placement: SessionPlacement): Implementation<typeof sessionFactoryInterface> {
  return {
    create_session: async (id, collection, callback, g, priority, token) => {
      sessionGuarantees(g);
      return placement.forward(id, (n) => n.create_session(id, collection, callback, g, priority, token));
    },
    create: async (id, collection, g, priority, external, token) => {
      sessionGuarantees(g);
      return placement.forward(id, (n) => n.create(id, collection, g, priority, external, token));
    },
    recreate: async (id, collection, g, priority, external, token) => {
      sessionGuarantees(g);
      return placement.forward(id, (n) => n.recreate(id, collection, g, priority, external, token));
    },
    destroy_session: async (id, token) => {
      if (!(await placement.homeOf(id))) return;
      await placement.forward(id, (n) => n.destroy_session(id, token));
      placement.forget(id);
    },
  };
}
