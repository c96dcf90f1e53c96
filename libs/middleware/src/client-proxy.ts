import { versionCompatible, type Aor, type InterfaceDef, type ProxyOf } from '@esp/interfaces';
import { errors, type NatsConnection } from '@nats-io/transport-node';
import { CallTimeout, ObjectNotExist, PayloadTooLarge, TransportError, VersionMismatch } from './system-exceptions';
import { decodeReply, encodeRequest } from './wire-envelope';

export interface ProxyOptions {
  /** Deadline of each call (ms, default 30000). */
  timeoutMs?: number;
}

/** Sends one call and returns its result, or throws the exception the server raised (rebuilt as the same class). */
export async function invoke(
  nc: NatsConnection,
  subject: string,
  interfaceType: string,
  interfaceVersion: string,
  method: string,
  args: unknown[],
  timeoutMs: number,
): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = encodeRequest({ interfaceType, interfaceVersion, method, args, timeoutMs });
  } catch (err) {
    throw new TransportError(`${method}: arguments could not be encoded: ${(err as Error).message}`, {}, { cause: err });
  }
  let reply;
  try {
    reply = await nc.request(subject, bytes, { timeout: timeoutMs });
  } catch (err) {
    throw mapTransportError(err, subject, method, timeoutMs, bytes.length);
  }
  const r = decodeReply(reply.data);
  if (r.ok) return r.value;
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
export function createProxy<I extends InterfaceDef>(nc: NatsConnection, iface: I, aor: Aor, subject: string, opts: ProxyOptions = {}): ProxyOf<I> {
  if (aor.interface_type !== iface.type) {
    throw new VersionMismatch(`object ${aor.object_id} serves ${aor.interface_type}, not ${iface.type}`, { served: aor.interface_type, requested: iface.type });
  }
  if (!versionCompatible(aor.interface_version, iface.version)) {
    throw new VersionMismatch(`object ${aor.object_id} serves ${iface.type} ${aor.interface_version}; this client needs ${iface.version}`, {
      served: aor.interface_version,
      requested: iface.version,
    });
  }
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const proxy: Record<string, (...args: unknown[]) => Promise<unknown>> = {
    __ping: async () => {
      await invoke(nc, subject, iface.type, iface.version, '__ping', [], Math.min(timeoutMs, 5_000));
    },
  };
  for (const name of Object.keys(iface.methods)) {
    proxy[name] = (...args: unknown[]) => invoke(nc, subject, iface.type, iface.version, name, args, timeoutMs);
  }
  return proxy as unknown as ProxyOf<I>;
}
