import type { Implementation, sessionFactoryInterface } from '@esp/interfaces';
import type { SessionPlacement } from '../master/session-placement';

/** session_factory (MS-FSCDFT 3.3.4 / 3.6, ours): the master forwards each call to the node the session belongs on. */
export function sessionFactory(placement: SessionPlacement): Implementation<typeof sessionFactoryInterface> {
  return {
    create_session: (id, collection, callback, g, priority) => placement.forward(id, (n) => n.create_session(id, collection, callback, g, priority)),
    create: (id, collection, g, priority, external) => placement.forward(id, (n) => n.create(id, collection, g, priority, external)),
    recreate: (id, collection, g, priority, external) => placement.forward(id, (n) => n.recreate(id, collection, g, priority, external)),
    destroy_session: async (id) => {
      if (!(await placement.homeOf(id))) return;
      await placement.forward(id, (n) => n.destroy_session(id));
      placement.forget(id);
    },
  };
}
