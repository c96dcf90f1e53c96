import { AlreadyBound, type Aor, type InterfaceDef } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { CallTimeout, ObjectNotExist, type Middleware } from '@esp/middleware';

/** A binding this node made, as unbind needs it. */
export interface NodeBinding {
  name: string;
  type: string;
  revision: number;
}

/** Binds; a stale binding of a dead object (a previous run killed with -9) is taken over, a live one is not. */
export async function bindOrTakeOver(mw: Middleware, log: Logger, name: string, iface: InterfaceDef, aor: Aor): Promise<NodeBinding> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const { revision } = await mw.names.bind(name, aor);
      return { name, type: aor.interface_type, revision };
    } catch (err) {
      if (!(err instanceof AlreadyBound)) throw err;
      const held = await mw.names.resolve(name, aor.interface_type, aor.interface_version).catch(() => undefined);
      if (!held) continue;
      const alive = await mw
        .proxy(iface, held.aor, { timeoutMs: 2000 })
        .__ping()
        .then(() => true)
        .catch((e: unknown) => !(e instanceof ObjectNotExist || e instanceof CallTimeout));
      if (alive) throw new AlreadyBound(`${name} (${aor.interface_type}) is held by a live object at ${held.aor.host}:${held.aor.port}; is another distributor running with the same role or node id?`);
      log.warn({ name, interface: aor.interface_type, stale: held.aor }, 'taking over a binding whose object is gone');
      await mw.names.unbind(name, aor.interface_type, held.revision);
    }
  }
  throw new AlreadyBound(`${name} (${aor.interface_type}): could not bind`);
}
