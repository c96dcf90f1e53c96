import { versionCompatible, type Aor, type InterfaceDef, type ProxyOf } from '@esp/interfaces';
import { errors, type Msg, type NatsConnection } from '@nats-io/transport-node';
import type { BusState } from './bus-state';
import type { Incarnations } from './incarnations';
import { abandoned, requestEndingEarly, SETTLE_RETRY_MS, waitUntil } from './call-in-flight';
import { CallTimeout, SystemException, ObjectNotExist, PayloadTooLarge, TransportError, VersionMismatch } from './system-exceptions';
import { decodeReply, encodeRequest } from './wire-envelope';

export interface ProxyOptions {
  /** Deadline of each call (ms, default 30000). */
  timeoutMs?: number;
  /**
   * Abandons the calls of this proxy when it aborts: they fail at once with CallAbandoned (the reason in its
   * message), whether or not the server got them. For a caller that learnt otherwise that no reply will come.
   */
  signal?: AbortSignal;
  /** After how long a waiting call has its server watched (ms, default 1000; 0: never). See CallContext. */
  watchMs?: number;
}

/** How one call is sent: its deadline, and what makes it end early. */
export interface CallContext {
  timeoutMs: number;
  /** The connection's state: a call in flight when the connection drops fails then with TransportError. */
  bus?: BusState;
  /** The server process last seen at each address (from replies): a restarted server ends a watched call. */
  incarnations?: Incarnations;
  signal?: AbortSignal;
  /**
   * While the call waits longer than this (ms), the server's object is pinged; no responders twice in a row (its
   * process is gone) fails the call with object_not_exist (data.in_flight) rather than at its deadline. 0: never.
   * Default 1000 with a bus state.
   */
  watchMs?: number;
}

/** Sends one call and returns its result, or throws the exception the server raised (rebuilt as the same class). */
export async function invoke(
  nc: NatsConnection,
  subject: string,
  interfaceType: string,
  interfaceVersion: string,
  method: string,
  args: unknown[],
  ctx: CallContext,
): Promise<unknown> {
  const { timeoutMs } = ctx;
  let bytes: Uint8Array;
  try {
    bytes = encodeRequest({ interfaceType, interfaceVersion, method, args, timeoutMs });
  } catch (err) {
    throw new TransportError(`${method}: arguments could not be encoded: ${(err as Error).message}`, {}, { cause: err });
  }
  if (ctx.signal?.aborted) throw abandoned(method, subject, ctx.signal);
  const deadline = Date.now() + timeoutMs;
  const bus = ctx.bus;
  let reply: Msg;
  for (;;) {
    // sent while the connection is down, a request would sit in the client's buffer with nobody to guarantee it goes
    // out: it waits for the reconnect instead, within its deadline
    if (bus?.current === 'down') await waitUntil(bus.whenUp(), deadline - Date.now());
    const left = deadline - Date.now();
    if (left <= 0) throw new CallTimeout(`${method}: the connection to NATS stayed down for the call's ${timeoutMs} ms`, { subject, timeoutMs });
    try {
      reply = await (bus || ctx.signal ? requestEndingEarly(nc, subject, bytes, { method, interfaceType, interfaceVersion }, { ...ctx, timeoutMs: left }) : nc.request(subject, bytes, { timeout: left }));
      break;
    } catch (err) {
      // ended early (call-in-flight.ts): already the exception to raise
      if (err instanceof SystemException) throw err;
      const mapped = mapTransportError(err, subject, method, timeoutMs, bytes.length);
      // just after a reconnect, no responders may mean a server still on its way back, not one that is gone; the
      // request reached nobody, so it is sent again
      if (mapped instanceof ObjectNotExist && bus?.settling() && deadline - Date.now() > SETTLE_RETRY_MS) {
        await new Promise((r) => setTimeout(r, SETTLE_RETRY_MS));
        continue;
      }
      throw mapped;
    }
  }
  const r = decodeReply(reply.data);
  if (r.ok) {
    ctx.incarnations?.note(subject, r.incarnation);
    return r.value;
  }
  throw r.error;
}

function mapTransportError(err: unknown, subject: string, method: string, timeoutMs: number, size: number): Error {
  const cause = err as Error;
  if (err instanceof errors.RequestError && err.isNoResponders()) {
    return new ObjectNotExist(`${method}: no object serves ${subject}`, { subject }, { cause });
  }
  if (err instanceof errors.NoRespondersError) return new ObjectNotExist(`${method}: no object serves ${subject}`, { subject }, { cause });
  if (err instanceof errors.TimeoutError || (err instanceof errors.RequestError && cause.cause instanceof errors.TimeoutError)) {
    return new CallTimeout(`${method}: no reply from ${subject} within ${timeoutMs} ms`, { subject, timeoutMs }, { cause });
  }
  if (err instanceof errors.InvalidArgumentError && /max_payload/.test(cause.message)) {
    return new PayloadTooLarge(`${method}: request of ${size} bytes exceeds the bus's max_payload`, { size }, { cause });
  }
  if (err instanceof errors.ClosedConnectionError || err instanceof errors.DrainingConnectionError) {
    return new TransportError(`${method}: connection is ${err instanceof errors.ClosedConnectionError ? 'closed' : 'draining'}`, {}, { cause });
  }
  return new TransportError(`${method}: ${cause?.message ?? String(err)}`, {}, { cause });
}

/**
 * A typed client proxy of the object at `aor`. Refuses at once an AOR of another interface type or of an
 * incompatible version (the version rule: same major, server minor >= ours).
 */
export function createProxy<I extends InterfaceDef>(nc: NatsConnection, iface: I, aor: Aor, subject: string, opts: ProxyOptions & { bus?: BusState; incarnations?: Incarnations } = {}): ProxyOf<I> {
  if (aor.interface_type !== iface.type) {
    throw new VersionMismatch(`object ${aor.object_id} serves ${aor.interface_type}, not ${iface.type}`, { served: aor.interface_type, requested: iface.type });
  }
  if (!versionCompatible(aor.interface_version, iface.version)) {
    throw new VersionMismatch(`object ${aor.object_id} serves ${iface.type} ${aor.interface_version}; this client needs ${iface.version}`, {
      served: aor.interface_version,
      requested: iface.version,
    });
  }
  const ctx: CallContext = { timeoutMs: opts.timeoutMs ?? 30_000, bus: opts.bus, incarnations: opts.incarnations, signal: opts.signal, ...(opts.watchMs !== undefined ? { watchMs: opts.watchMs } : {}) };
  const pingCtx: CallContext = { ...ctx, timeoutMs: Math.min(ctx.timeoutMs, 5_000) };
  const proxy: Record<string, (...args: unknown[]) => Promise<unknown>> = {
    __ping: async () => {
      await invoke(nc, subject, iface.type, iface.version, '__ping', [], pingCtx);
    },
  };
  for (const name of Object.keys(iface.methods)) {
    proxy[name] = (...args: unknown[]) => invoke(nc, subject, iface.type, iface.version, name, args, ctx);
  }
  return proxy as unknown as ProxyOf<I>;
}
