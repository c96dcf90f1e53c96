import { decodeXmlRpcResponse, encodeXmlRpcRequest } from '@esp/codecs';
import { CRAWL_ROLES, crawlAddress, type CrawlRole } from '@esp/crawl-bus';
import type { Middleware } from '@esp/middleware';
import { getProcessList } from './node-control';

/** A check that failed: its message is the health check's one line of output. */
export class ProbeFailed extends Error {
  override readonly name = 'ProbeFailed';
}

/** The name server answers. */
export async function nameServerAnswers(mw: Middleware): Promise<void> {
  await mw.names.ping().catch((err: Error) => {
    throw new ProbeFailed(`the name server does not answer: ${err.message}`);
  });
}

/** `name` is bound in the name server and every object bound under it answers __ping. */
export async function boundAndAnswering(mw: Middleware, name: string): Promise<void> {
  const bindings = (await mw.names.list(name)).filter((b) => b.name === name);
  if (bindings.length === 0) throw new ProbeFailed(`nothing is bound at ${name}`);
  for (const b of bindings) {
    const iface = { type: b.aor.interface_type, version: b.aor.interface_version, methods: {} };
    await mw.proxy(iface, b.aor, { timeoutMs: 3000 }).__ping().catch((err: Error) => {
      throw new ProbeFailed(`${b.aor.object_id} (${b.aor.interface_type}) bound at ${name} does not answer: ${err.message}`);
    });
  }
}

/** The XML-RPC server at `url` answers `ping` without a fault. */
export async function xmlRpcAnswers(url: string, timeoutMs = 3000): Promise<void> {
  let body: Uint8Array;
  try {
    const res = await fetch(url, { method: 'POST', body: encodeXmlRpcRequest('ping', []), headers: { 'Content-Type': 'text/xml' }, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = new Uint8Array(await res.arrayBuffer());
  } catch (err) {
    throw new ProbeFailed(`XML-RPC ${url} does not answer: ${(err as Error).message}`);
  }
  const reply = decodeXmlRpcResponse(body);
  if (reply.kind === 'fault') throw new ProbeFailed(`XML-RPC ${url} ping: fault ${reply.fault.faultCode} ${reply.fault.faultString}`);
}

/** The node controller at `url` runs every process of its profile (each one said it is ready). */
export async function allProcessesRunning(url: string): Promise<void> {
  const rows = await getProcessList(url).catch((err: Error) => {
    throw new ProbeFailed(`node controller ${url} does not answer: ${err.message}`);
  });
  const notRunning = rows.filter((r) => r.state !== 'running');
  if (rows.length === 0) throw new ProbeFailed(`node controller ${url} runs no process`);
  if (notRunning.length) throw new ProbeFailed(`not running: ${notRunning.map((r) => `${r.name} ${r.state}`).join(', ')}`);
}

/**
 * The crawl peer `<role>/<id>` of `cluster` listens on its address. An empty message is a message of no frames, which
 * a peer takes and ignores: NATS answers "no responders" at once when nobody listens, and the request only times
 * out when the peer is subscribed.
 */
export async function crawlPeerListening(mw: Middleware, cluster: string, peer: string): Promise<void> {
  const [role, id] = peer.split('/');
  if (!id || !(CRAWL_ROLES as readonly string[]).includes(role ?? '')) throw new ProbeFailed(`not a crawl peer: ${peer} (role/id, e.g. dup/dup1)`);
  const address = crawlAddress({ cluster, role: role as CrawlRole, id });
  try {
    await mw.bus.request(address, new Uint8Array(0), 1000);
  } catch (err) {
    if (/no responders/i.test(`${(err as Error).message} ${String((err as { code?: unknown }).code ?? '')}`)) {
      throw new ProbeFailed(`nobody listens at ${address}`);
    }
    if (/timeout/i.test((err as Error).message) || (err as Error).name === 'TimeoutError') return;
    throw new ProbeFailed(`${address}: ${(err as Error).message}`);
  }
}
