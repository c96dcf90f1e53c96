import { decodeXmlRpcResponse, encodeXmlRpcRequest, type XmlRpcInput, type XmlRpcValue } from '@esp/codecs';
import { adminSecret, authorizationHeader } from './admin-secret';

/** A response larger than the client's bound: read no further. */
export class XmlRpcResponseTooLarge extends Error {
  override name = 'XmlRpcResponseTooLarge';
  readonly code = 'response_too_large';
}

export interface XmlRpcCallOptions {
  /** Deadline of the whole call (default 10 s). */
  timeoutMs?: number;
  /** The admin secret to send (default: adminSecret(), from $ESP_ADMIN_SECRET_FILE; null: none). */
  secret?: string | null;
  /** Largest response read (default 16 MiB); a larger one is an XmlRpcResponseTooLarge. */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * One XML-RPC call over HTTP with global fetch. A fault is thrown as the XmlRpcFault it is; HTTP errors and
 * timeouts as Errors that say which URL and method. The response is read only up to its bound, and the admin secret
 * goes with every call when there is one.
 *
 *   const n = await xmlRpcCall('http://cfg:16005/RPC2', 'RegisterModule', [{ port: 16015, type: 'NodeControl', ... }]);
 */
export async function xmlRpcCall(url: string, method: string, params: XmlRpcInput[], options: number | XmlRpcCallOptions = {}): Promise<XmlRpcValue> {
  const o: XmlRpcCallOptions = typeof options === 'number' ? { timeoutMs: options } : options;
  const secret = o.secret === undefined ? adminSecret() : (o.secret ?? undefined);
  const limit = o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const res = await fetch(url, {
    method: 'POST',
    body: encodeXmlRpcRequest(method, params),
    headers: { 'Content-Type': 'text/xml', ...(secret !== undefined ? { Authorization: authorizationHeader(secret) } : {}) },
    signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
  });
  const body = await readBounded(res, limit, `${method} at ${url}`);
  if (res.status !== 200) throw new Error(`${method} at ${url}: HTTP ${res.status} ${new TextDecoder().decode(body).trim()}`);
  const reply = decodeXmlRpcResponse(body);
  if (reply.kind === 'fault') throw reply.fault;
  return reply.value;
}

async function readBounded(res: Response, limit: number, what: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  const tooLarge = () => new XmlRpcResponseTooLarge(`${what}: the response is larger than ${limit} bytes`);
  if (declared > limit) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
