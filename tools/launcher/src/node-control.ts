import { readFileSync } from 'node:fs';
import { xmlRpcCall } from '@esp/xmlrpc-http';

/** One row of the node controller's GetProcessList (ProcessInfo). */
export interface ProcessRow {
  name: string;
  pid: number;
  ppid: number;
  state: string;
  restarts: number;
  uptime: number;
}

/**
 * GetProcessList over XML-RPC (POST <url>, url is the node controller's xmlrpc_url), with the admin secret (reads
 * need it too, unless the stack runs with --admin-read-open) and the response read within its bound.
 */
export async function getProcessList(url: string, timeoutMs = 5000, secret?: string): Promise<ProcessRow[]> {
  return (await xmlRpcCall(url, 'GetProcessList', [], { timeoutMs, ...(secret !== undefined ? { secret } : {}) })) as unknown as ProcessRow[];
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
