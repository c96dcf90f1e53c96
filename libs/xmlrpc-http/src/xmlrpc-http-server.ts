import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CodecError,
  XmlRpcFault,
  XmlRpcStructureError,
  decodeXmlRpcRequest,
  encodeXmlRpcFault,
  encodeXmlRpcResponse,
  type XmlRpcInput,
  type XmlRpcValue,
} from '@esp/codecs';
import type { Logger } from '@esp/logging';
import { adminSecret, carriesSecret } from './admin-secret';
import { FAULT_INTERNAL_ERROR, FAULT_INVALID_REQUEST, FAULT_PARSE_ERROR } from './xmlrpc-methods';

/**
 * XML-RPC over HTTP for this app (modelled on the item processor's Status server; apps do not share code).
 */

/** "1": read-only methods answer without the admin secret (npm start -- --admin-read-open). */
export const ADMIN_READ_OPEN_ENV = 'ESP_ADMIN_READ_OPEN';

/** The path of every XML-RPC request (MS-FSDPD 2.1). */
export const XMLRPC_PATH = '/RPC2';

export interface XmlRpcHttpServerOptions {
  /** Address to listen on (default "127.0.0.1": this machine only). */
  host?: string;
  /** Port; 0 picks a free one (default 0). */
  port?: number;
  /** Largest request body accepted; a larger one gets HTTP 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /** Runs one call; throw an XmlRpcFault to answer with that fault. `caller` is the peer's address. */
  dispatch: (method: string, params: XmlRpcValue[], caller: { address: string }) => XmlRpcInput | Promise<XmlRpcInput>;
  /**
   * The methods that change state. With a secret they need it (HTTP 401 without); with none, only a caller on this
   * machine may call them (HTTP 403 otherwise). Default: none.
   */
  protect?: (method: string) => boolean;
  /** The admin secret (default: adminSecret(), from $ESP_ADMIN_SECRET_FILE; null: none). */
  secret?: string | null;
  /**
   * With a secret, the methods that only read answer without it too (default: $ESP_ADMIN_READ_OPEN is "1", which
   * `npm start -- --admin-read-open` sets). Otherwise every method but `ping` (a liveness probe that says nothing)
   * needs the secret. Without a secret, reads are open and state changes are this machine's only, as before.
   */
  readOpen?: boolean;
  log: Logger;
}

export interface XmlRpcHttpServer {
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(bytes.length), ...headers });
  res.end(bytes);
}

const LOOPBACK = /^(127\.|::1$)/;

/** The caller's IP address, IPv4-mapped IPv6 ("::ffff:10.0.0.5") written as plain IPv4. */
function peerAddress(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

function sendXml(res: ServerResponse, xml: string): void {
  send(res, 200, xml, { 'Content-Type': 'text/xml; charset=utf-8' });
}

/**
 * XML-RPC over HTTP on node:http, with the codec of @esp/codecs: POST /RPC2 only, a body size limit, and every
 * failure of a call (bad XML, not a methodCall, unknown method, wrong parameters, a method that throws) answered
 * with a fault whose faultString says what went wrong. The server keeps serving whatever arrives.
 */
export async function startXmlRpcHttpServer(opts: XmlRpcHttpServerOptions): Promise<XmlRpcHttpServer> {
  const maxBody = opts.maxBodyBytes ?? 1024 * 1024;
  const log = opts.log;
  const secret = opts.secret === undefined ? adminSecret() : (opts.secret ?? undefined);
  const readOpen = opts.readOpen ?? process.env[ADMIN_READ_OPEN_ENV] === '1';

  /** Why a call is refused (HTTP status and text), or undefined when it may run. */
  function refusal(method: string, caller: { address: string }, authorization: string | undefined): { status: number; text: string } | undefined {
    const changes = opts.protect?.(method) ?? false;
    if (secret !== undefined) {
      if (!changes && (readOpen || method === 'ping')) return undefined;
      if (carriesSecret(authorization, secret)) return undefined;
      log.warn({ method, caller: caller.address }, 'XML-RPC call refused: no admin secret');
      return changes
        ? { status: 401, text: `${method} changes state: it needs the admin secret (HTTP Authorization)\n` }
        : { status: 401, text: `${method} reads the stack's state: it needs the admin secret (HTTP Authorization), unless the stack runs with --admin-read-open\n` };
    }
    if (!changes) return undefined;
    if (LOOPBACK.test(caller.address)) return undefined;
    log.warn({ method, caller: caller.address }, 'XML-RPC call refused: not from this machine');
    return { status: 403, text: `${method} changes state: without an admin secret (ESP_ADMIN_SECRET_FILE) only this machine may call it\n` };
  }

  async function answer(body: Buffer, caller: { address: string }, authorization: string | undefined): Promise<string | { status: number; text: string }> {
    let method: string;
    let params: XmlRpcValue[];
    try {
      ({ methodName: method, params } = decodeXmlRpcRequest(body, { maxBytes: maxBody, wrapDoubles: true }));
    } catch (err) {
      const code = err instanceof XmlRpcStructureError ? FAULT_INVALID_REQUEST : FAULT_PARSE_ERROR;
      const what = err instanceof XmlRpcStructureError ? 'not an XML-RPC methodCall' : 'request is not valid XML-RPC';
      log.debug({ err: (err as Error).message }, 'XML-RPC request refused');
      return encodeXmlRpcFault(code, `${what}: ${(err as Error).message}`);
    }
    const refused = refusal(method, caller, authorization);
    if (refused) return refused;
    let result: XmlRpcInput;
    try {
      result = await opts.dispatch(method, params, caller);
    } catch (err) {
      if (err instanceof XmlRpcFault) return encodeXmlRpcFault(err);
      log.error({ err, method }, 'XML-RPC method failed');
      return encodeXmlRpcFault(FAULT_INTERNAL_ERROR, `${method} failed: ${(err as Error)?.message ?? String(err)}`);
    }
    try {
      return encodeXmlRpcResponse(result);
    } catch (err) {
      log.error({ err, method }, 'XML-RPC result could not be encoded');
      const reason = err instanceof CodecError ? err.message : String(err);
      return encodeXmlRpcFault(FAULT_INTERNAL_ERROR, `${method}: result could not be encoded: ${reason}`);
    }
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0];
    if (path !== XMLRPC_PATH) {
      req.resume();
      return send(res, 404, `not found: XML-RPC is served at POST ${XMLRPC_PATH}\n`);
    }
    if (req.method !== 'POST') {
      req.resume();
      return send(res, 405, `method not allowed: XML-RPC is served at POST ${XMLRPC_PATH}\n`, { Allow: 'POST' });
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    const tooLarge = () => {
      req.resume(); // read and discard the rest; the connection closes after the answer
      send(res, 413, `request body larger than ${maxBody} bytes\n`, { Connection: 'close' });
    };
    if (declared > maxBody) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBody) {
        refused = true;
        chunks.length = 0;
        tooLarge();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      void answer(Buffer.concat(chunks, size), { address: peerAddress(req) }, req.headers.authorization).then((out) =>
        typeof out === 'string' ? sendXml(res, out) : send(res, out.status, out.text, out.status === 401 ? { 'WWW-Authenticate': 'Basic realm="esp admin"' } : {}),
      );
    });
    req.on('error', (err) => log.debug({ err: err.message }, 'XML-RPC request aborted'));
  }

  const server: Server = createServer(onRequest);
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    host,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
