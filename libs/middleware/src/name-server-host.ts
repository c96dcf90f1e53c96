import { nameServerInterface, NAME_SERVER_OBJECT_ID, type Aor } from '@esp/interfaces';
import type { Middleware } from './middleware';
import { NameRegistry, type NameRegistryOptions } from './name-registry';
import type { ServerObject } from './server-object';
import { NAME_SERVER_QUEUE, NAME_WRITE_SUBJECTS, nameServerSubject, nameWriteSubject } from './subjects';
import { BadRequest } from './system-exceptions';

const WRITES = new Set(['bind', 'unbind']);

/**
 * Serves the name server on the bus from this process: the registry in JetStream KV, in a queue group so several
 * instances share the load and any one may die. Reads (resolve, list) on the well-known subject; writes (bind,
 * unbind) only on the name's own write subject, so that who may change a name is a NATS permission.
 */
export async function serveNameServer(
  mw: Middleware,
  opts: NameRegistryOptions = {},
): Promise<{ registry: NameRegistry; object: ServerObject<typeof nameServerInterface>; writes: ServerObject<typeof nameServerInterface> }> {
  const registry = await NameRegistry.open(mw.nc, mw.log, opts);
  const aor: Aor = {
    name: 'fsmw/nameserver',
    object_id: NAME_SERVER_OBJECT_ID,
    host: mw.host,
    port: 0,
    interface_type: nameServerInterface.type,
    interface_version: nameServerInterface.version,
  };
  const object = await mw.activateAt(nameServerSubject(), nameServerInterface, registry, aor, {
    queue: NAME_SERVER_QUEUE,
    admit: (method, args) =>
      WRITES.has(method) ? new BadRequest(`${method} goes to the name's write subject ${nameWriteSubject(String(args[0]))}`, { method }) : undefined,
  });
  const writes = await mw.activateAt(NAME_WRITE_SUBJECTS, nameServerInterface, registry, aor, {
    queue: NAME_SERVER_QUEUE,
    admit: (method, args, subject) => {
      if (!WRITES.has(method)) return new BadRequest(`${method} goes to ${nameServerSubject()}`, { method });
      const expected = nameWriteSubject(String(args[0]));
      return subject === expected ? undefined : new BadRequest(`${method} of ${String(args[0])} arrived on ${subject}, not on ${expected}`, { method, subject });
    },
  });
  return { registry, object, writes };
}
