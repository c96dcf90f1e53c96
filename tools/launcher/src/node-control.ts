import { readFileSync } from 'node:fs';
import { decodeXmlRpcResponse, encodeXmlRpcRequest } from '@esp/codecs';

/** One row of the node controller's GetProcessList (ProcessInfo). */
export interface ProcessRow {
  name: string;
  pid: number;
  ppid: number;
  state: string;
  restarts: number;
  uptime: number;
}

/** GetProcessList over XML-RPC (POST <url>, url is the node controller's xmlrpc_url). */
export async function getProcessList(url: string, timeoutMs = 5000): Promise<ProcessRow[]> {
  const res = await fetch(url, { method: 'POST', body: encodeXmlRpcRequest('GetProcessList', []), headers: { 'Content-Type': 'text/xml' }, signal: AbortSignal.timeout(timeoutMs) });
  const reply = decodeXmlRpcResponse(new Uint8Array(await res.arrayBuffer()));
  if (reply.kind === 'fault') throw reply.fault;
  return reply.value as unknown as ProcessRow[];
}

/**
 * Reads a node profile template and fills the launcher's placeholders ({home}, {collections}, ...) in every string;
 * the node controller's own placeholders ({name}, {instance}) are left for it.
 */
export function fillProfile(path: string, vars: Record<string, string>): unknown {
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(JSON.parse(readFileSync(path, 'utf8')));
}
