import { coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME, type Aor } from '@esp/interfaces';
import { ObjectNotExist, type Middleware } from '@esp/middleware';

/**
 * An indexing session that has no responders: gone for good, or its indexer is away and coming back (killed and
 * restarted by its node controller, it restores its sessions from its journal and serves them at the same address).
 * Told apart by the indexer's session factory, bound by name: still bound at the session's address but answering
 * no-responders too, the whole indexer is away (true); answering, the session alone is gone (false); not bound, or
 * bound elsewhere, nothing says it comes back (false).
 */
export async function indexerAway(mw: Middleware, session: Aor): Promise<boolean> {
  try {
    const b = await mw.names.resolve(INDEXING_DISPATCHER_NAME, coreSessionFactoryInterface.type, coreSessionFactoryInterface.version);
    if (b.aor.host !== session.host || b.aor.port !== session.port) return false;
    await mw.proxy(coreSessionFactoryInterface, b.aor, { timeoutMs: 2_000 }).__ping();
    return false;
  } catch (err) {
    return err instanceof ObjectNotExist;
  }
}
