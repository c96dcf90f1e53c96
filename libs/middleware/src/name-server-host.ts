import { nameServerInterface, NAME_SERVER_OBJECT_ID, type Aor } from '@esp/interfaces';
import type { Middleware } from './middleware';
import { NameRegistry, type NameRegistryOptions } from './name-registry';
import type { ServerObject } from './server-object';
import { NAME_SERVER_QUEUE, nameServerSubject } from './subjects';

/**
 * Serves the name server on the bus from this process: the registry in JetStream KV behind the well-known
 * subject, in a queue group so several instances share the load and any one may die.
 */
export async function serveNameServer(
  mw: Middleware,
  opts: NameRegistryOptions = {},
): Promise<{ registry: NameRegistry; object: ServerObject<typeof nameServerInterface> }> {
  const registry = await NameRegistry.open(mw.nc, mw.log, opts);
  const aor: Aor = {
    name: 'fsmw/nameserver',
    object_id: NAME_SERVER_OBJECT_ID,
    host: mw.host,
    port: 0,
    interface_type: nameServerInterface.type,
    interface_version: nameServerInterface.version,
  };
  const object = await mw.activateAt(nameServerSubject(), nameServerInterface, registry, aor, { queue: NAME_SERVER_QUEUE });
  return { registry, object };
}
