import { registerCheetahExtension } from '@esp/codecs';
import { UserException, userExceptionFromWire } from '@esp/interfaces';
import { Packr } from 'msgpackr';
import { BadRequest, SystemException, systemExceptionFromWire } from './system-exceptions';

/**
 * The bytes of a call and of its reply, msgpack with the Cheetah extension so entities travel anywhere in the
 * arguments. Arrays rather than maps: small and fast.
 *
 *   request: [WIRE_VERSION, interface_type, interface_version, method, args[], timeout_ms]
 *   reply:   [0, result, incarnation?]  or  [1, [kind 'u'|'s', code, message, data]]
 *
 * The incarnation names the server process that answered (random per process): a caller that sees another one at
 * the same address knows the process was replaced, and that a call it had in flight there is lost.
 */
export const WIRE_VERSION = 1;

const packr = registerCheetahExtension(new Packr({ useRecords: false, mapsAsObjects: true }));

export interface CallRequest {
  interfaceType: string;
  interfaceVersion: string;
  method: string;
  args: unknown[];
  timeoutMs: number;
}

export function encodeRequest(r: CallRequest): Uint8Array {
  return packr.pack([WIRE_VERSION, r.interfaceType, r.interfaceVersion, r.method, r.args, r.timeoutMs]);
}

/** Decodes and checks the envelope; throws BadRequest saying what is wrong. */
export function decodeRequest(bytes: Uint8Array): CallRequest {
  let v: unknown;
  try {
    v = packr.unpack(bytes);
  } catch (err) {
    throw new BadRequest(`malformed request: ${(err as Error).message}`, {}, { cause: err });
  }
  if (!Array.isArray(v) || v.length !== 6) throw new BadRequest('malformed request: expected a 6-element envelope array');
  const [ver, interfaceType, interfaceVersion, method, args, timeoutMs] = v as unknown[];
  if (ver !== WIRE_VERSION) throw new BadRequest(`unsupported wire version ${String(ver)} (this server speaks ${WIRE_VERSION})`);
  if (typeof interfaceType !== 'string' || typeof interfaceVersion !== 'string' || typeof method !== 'string') {
    throw new BadRequest('malformed request: interface type, version and method must be strings');
  }
  if (!Array.isArray(args)) throw new BadRequest('malformed request: arguments must be an array');
  if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0)) throw new BadRequest('malformed request: timeout must be a non-negative number');
  return { interfaceType, interfaceVersion, method, args, timeoutMs };
}

export function encodeResult(value: unknown, incarnation?: string): Uint8Array {
  return packr.pack(incarnation === undefined ? [0, value] : [0, value, incarnation]);
}

export function encodeException(err: UserException | SystemException): Uint8Array {
  const kind = err instanceof UserException ? 'u' : 's';
  return packr.pack([1, [kind, err.code, err.message, err.data]]);
}

export type DecodedReply = { ok: true; value: unknown; incarnation?: string } | { ok: false; error: UserException | SystemException };

/** Decodes a reply; a reply that is not one becomes a BadRequest error (the peer is not speaking our protocol). */
export function decodeReply(bytes: Uint8Array): DecodedReply {
  let v: unknown;
  try {
    v = packr.unpack(bytes);
  } catch (err) {
    return { ok: false, error: new BadRequest(`malformed reply: ${(err as Error).message}`) };
  }
  if (Array.isArray(v) && v.length === 3 && v[0] === 0 && typeof v[2] === 'string') return { ok: true, value: v[1], incarnation: v[2] };
  if (Array.isArray(v) && v.length === 2) {
    if (v[0] === 0) return { ok: true, value: v[1] };
    const e = v[1] as unknown;
    if (v[0] === 1 && Array.isArray(e) && e.length === 4 && typeof e[1] === 'string' && typeof e[2] === 'string') {
      const data = (e[3] && typeof e[3] === 'object' ? e[3] : {}) as Record<string, unknown>;
      return { ok: false, error: e[0] === 'u' ? userExceptionFromWire(e[1], e[2], data) : systemExceptionFromWire(e[1], e[2], data) };
    }
  }
  return { ok: false, error: new BadRequest('malformed reply: not a middleware reply envelope') };
}

/** For components that share the middleware's encoding (for example the PPP content frames). */
export function packValue(value: unknown): Uint8Array {
  return packr.pack(value);
}
export function unpackValue(bytes: Uint8Array): unknown {
  return packr.unpack(bytes);
}
