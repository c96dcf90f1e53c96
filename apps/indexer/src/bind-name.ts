/**
 * Binds an object under a name, taking the name over from a holder that is gone: bind is create-if-absent, so a
 * binding left by an indexer that died on another host (or under another object id) would otherwise block the
 * restart. The holder is pinged; only "no object serves it" (object_not_exist) lets us unbind it, at the revision
 * we saw, and bind again. A live holder keeps the name and we fail with a clear error.
 */
import { AlreadyBound, ResolveException, type Aor, type InterfaceDef } from '@esp/interfaces';
import { ObjectNotExist, type Middleware } from '@esp/middleware';

export class NameHeldError extends Error {
  override name = 'NameHeldError';
}

export async function bindName(mw: Middleware, iface: InterfaceDef, name: string, aor: Aor): Promise<void> {
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      await mw.names.bind(name, aor);
      return;
    } catch (err) {
      if (!(err instanceof AlreadyBound)) throw err;
    }
    let holder;
    try {
      holder = await mw.names.resolve(name, iface.type, iface.version);
    } catch (err) {
      if (err instanceof ResolveException) {
        // removed in between, or bound at an incompatible version: that one we may not take over
        const b = (await mw.names.list(name)).find((x) => x.name === name && x.aor.interface_type === iface.type);
        if (!b) continue;
        holder = b;
      } else {
        throw err;
      }
    }
    try {
      await mw.proxy(iface, { ...holder.aor, interface_version: iface.version }, { timeoutMs: 2_000 }).__ping();
    } catch (err) {
      if (err instanceof ObjectNotExist) {
        mw.log.warn({ name, holder: holder.aor }, 'the name is bound to an object that is gone: taking it over');
        await mw.names.unbind(name, iface.type, holder.revision);
        continue;
      }
      throw err;
    }
    const h = holder.aor;
    throw new NameHeldError(`${name} (${iface.type}) is bound to a live object ${h.object_id} at ${h.host}:${h.port}; is another indexer running?`);
  }
  throw new NameHeldError(`${name} (${iface.type}): could not bind, the binding kept changing`);
}
