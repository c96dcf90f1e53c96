/**
 * Binds an object under a name, taking the name over from a holder that is gone. Bind is create-if-absent, so a
 * binding left by a process killed with -9 (on this host or another, under this object id or another) would otherwise
 * block its restart. The holder is pinged: only a holder that no object serves (object_not_exist) — or, when asked,
 * one that does not answer in time — is unbound, at the revision we saw, and the bind tried again. A holder that
 * answers keeps the name and the caller gets NameHeld.
 *
 *   const { revision } = await bindOrTakeOver(mw, searchInterface, INDEX_SEARCH_NAME, obj.aor, { holderHint: 'is another indexer running?' });
 */
import { AlreadyBound, ResolveException, type Aor, type Binding, type InterfaceDef } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { retry } from '@esp/timers';
import type { Middleware } from './middleware';
import { CallTimeout, ObjectNotExist } from './system-exceptions';

export interface BindOrTakeOverOptions {
  /** Binds tried in all, each after the binding changed under us (default 5). */
  attempts?: number;
  /** How long the holder has to answer the ping (default 2000 ms). */
  pingTimeoutMs?: number;
  /**
   * A holder that does not answer the ping in time is taken to be gone too (default false: only object_not_exist is).
   * A stopped or overloaded process holding the name then loses it.
   */
  takeOverUnanswered?: boolean;
  /** Said after the error of a live holder, e.g. 'is another indexer running?'. */
  holderHint?: string;
  /** Where the take-over is logged (default the middleware's logger). */
  log?: Logger;
}

/** The name is bound, for this interface, to an object that answers: we do not take it over. */
export class NameHeld extends AlreadyBound {
  override name = 'NameHeld';
  constructor(
    message: string,
    readonly holder: Aor,
    options?: { cause?: unknown },
  ) {
    super(message, { holder }, options);
  }
}

/** The binding changed between our bind, resolve and unbind every time we tried (another process is binding too). */
export class NameContended extends AlreadyBound {
  override name = 'NameContended';
}

/** The binding we saw is gone or was replaced: bind again. Internal to the loop. */
class BindingChanged extends Error {
  override name = 'BindingChanged';
}

/** Binds `aor` under `name` for `iface`, taking over a stale binding; resolves with the revision of our binding. */
export async function bindOrTakeOver(mw: Middleware, iface: InterfaceDef, name: string, aor: Aor, opts: BindOrTakeOverOptions = {}): Promise<{ revision: number }> {
  const attempts = opts.attempts ?? 5;
  const log = opts.log ?? mw.log;
  try {
    // short waits only: what we wait for is another process's bind or unbind, a round trip to the name server
    return await retry(() => bindOnce(mw, iface, name, aor, opts, log), {
      attempts,
      initialMs: 10,
      maxMs: 200,
      jitter: true,
      retryable: (err) => err instanceof BindingChanged,
    });
  } catch (err) {
    if (err instanceof BindingChanged) throw new NameContended(`${name} (${iface.type}): could not bind in ${attempts} attempts, the binding kept changing`, {}, { cause: err });
    throw err;
  }
}

async function bindOnce(mw: Middleware, iface: InterfaceDef, name: string, aor: Aor, opts: BindOrTakeOverOptions, log: Logger): Promise<{ revision: number }> {
  try {
    return await mw.names.bind(name, aor);
  } catch (err) {
    if (!(err instanceof AlreadyBound)) throw err;
  }
  const holder = await findHolder(mw, iface, name);
  if (!holder) throw new BindingChanged(`${name} (${iface.type}) was unbound after our bind`);
  // the holder may be bound at another version of the interface: ping it at ours, which every version answers
  const pinged = await mw
    .proxy(iface, { ...holder.aor, interface_version: iface.version }, { timeoutMs: opts.pingTimeoutMs ?? 2000 })
    .__ping()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  const gone = pinged instanceof ObjectNotExist || (opts.takeOverUnanswered === true && pinged instanceof CallTimeout);
  if (!gone) {
    const h = holder.aor;
    const hint = opts.holderHint ? `; ${opts.holderHint}` : '';
    throw new NameHeld(`${name} (${iface.type}) is held by a live object ${h.object_id} at ${h.host}:${h.port}${hint}`, h, pinged === undefined ? undefined : { cause: pinged });
  }
  log.warn({ name, interface: iface.type, stale: holder.aor, why: (pinged as Error).name }, 'taking over a binding whose object is gone');
  await mw.names.unbind(name, iface.type, holder.revision);
  throw new BindingChanged(`${name} (${iface.type}): took over the binding of ${holder.aor.object_id}`);
}

/** The binding of `name` for the interface's type, at any version; undefined when there is none. */
async function findHolder(mw: Middleware, iface: InterfaceDef, name: string): Promise<Binding | undefined> {
  try {
    return await mw.names.resolve(name, iface.type, iface.version);
  } catch (err) {
    if (!(err instanceof ResolveException)) throw err;
    // none at a compatible version: there may be one at another
    return (await mw.names.list(name)).find((b) => b.name === name && b.aor.interface_type === iface.type);
  }
}
