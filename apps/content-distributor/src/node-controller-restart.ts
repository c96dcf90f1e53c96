import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { XmlRpcFault, type XmlRpcInput, type XmlRpcStruct, type XmlRpcValue } from '@esp/codecs';
import { CONFIG_SERVICE_NAME, LEASE_TIMEOUT_NODE_CONTROLLER_LOOKUP, configServiceInterface, type ModuleRecord } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { xmlRpcCall } from '@esp/xmlrpc-http';

/**
 * The restart path of a Lease Timeout (MS-FSDPD 3.5.5): resolve `fds/configservice` (configservice::config 5.2),
 * get_active_module_list("NodeControl"), XML-RPC GetProcessList on the node controllers, pick the ProcessInfo of the
 * unresponsive item processor, RestartProcess([its name]).
 *
 *   const r = await restartThroughNodeController(mw, { name: 'procserver_1', pid: 4242, host: 'node-a' }, { log });
 *   // { restarted: true, process: 'item-processor-1', node_controller: 'http://10.0.0.5:16015/RPC2' }
 *
 * Which ProcessInfo: the one whose `pid` is the processor's registered pid (the node controller reports the pid of
 * the app process it runs, and an item processor registers its own process.pid), or, as the spec words it, the one
 * whose `pid` is the parent of that pid (an app that runs its processor in a child; the parent is read from /proc,
 * so only when the processor runs on this host). Node controllers on the processor's host are asked first.
 * Never throws: what went wrong is in the result and the log.
 */
export interface RestartOutcome {
  restarted: boolean;
  /** The ProcessInfo name restarted. */
  process?: string;
  node_controller?: string;
  /** Why nothing was restarted. */
  reason?: string;
}

export interface RestartOptions {
  log: Logger;
  /** Deadline of each XML-RPC call (default 30 s: RestartProcess waits for the old process to stop). */
  timeoutMs?: number;
  /** The admin secret sent with each call (default: the one of $ESP_ADMIN_SECRET_FILE; null: none). */
  secret?: string | null;
  /** The parent pid of a local pid (default: /proc/<pid>/stat). */
  parentPidOf?: (pid: number) => number | undefined;
}

interface ProcessInfo {
  name: string;
  pid: number;
}

function procParent(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One call to a node controller: with the stack's admin secret (ESP_ADMIN_SECRET_FILE, as every process of npm start
 * has it; RestartProcess needs it, and so does GetProcessList unless reads are open), the response read within
 * its bound (xmlRpcCall: 1 MiB by default).
 */
async function xmlRpc(url: string, method: string, params: XmlRpcInput[], timeoutMs: number, secret: string | null | undefined): Promise<XmlRpcValue> {
  try {
    return await xmlRpcCall(url, method, params, { timeoutMs, ...(secret !== undefined ? { secret } : {}) });
  } catch (err) {
    if (err instanceof XmlRpcFault) throw new Error(`${method}: fault ${err.faultCode}: ${err.faultString}`, { cause: err });
    throw err;
  }
}

function processList(v: XmlRpcValue): ProcessInfo[] {
  if (!Array.isArray(v)) throw new Error('GetProcessList did not return an array');
  return v.flatMap((row) => {
    const s = row as XmlRpcStruct;
    return s && typeof s === 'object' && typeof s['name'] === 'string' && typeof s['pid'] === 'number' ? [{ name: s['name'], pid: s['pid'] }] : [];
  });
}

function urlOf(m: ModuleRecord): string {
  return `http://${m.host.includes(':') ? `[${m.host}]` : m.host}:${m.port}/RPC2`;
}

export async function restartThroughNodeController(mw: Middleware, p: { name: string; pid: number; host: string }, opts: RestartOptions): Promise<RestartOutcome> {
  const log = opts.log.child({ procserver: p.name, pid: p.pid, host: p.host });
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const giveUp = (reason: string, extra: Record<string, unknown> = {}): RestartOutcome => {
    log.warn({ ...extra, reason }, 'item processor not restarted through a node controller');
    return { restarted: false, reason };
  };

  let modules: ModuleRecord[];
  try {
    const { proxy } = await mw.names.resolveProxy(configServiceInterface, CONFIG_SERVICE_NAME, { timeoutMs: 10_000 });
    modules = await proxy.get_active_module_list(LEASE_TIMEOUT_NODE_CONTROLLER_LOOKUP.nodeControllerModuleType);
  } catch (err) {
    return giveUp(`no config server at ${CONFIG_SERVICE_NAME}: ${(err as Error).message}`);
  }
  if (!modules.length) return giveUp('the config server knows no node controller (no module of type NodeControl registered)');

  const local = p.host === hostname();
  const parent = local ? (opts.parentPidOf ?? procParent)(p.pid) : undefined;
  const sameHost = (m: ModuleRecord) => m.host === p.host || (local && (m.host === '127.0.0.1' || m.host === '::1' || m.host === 'localhost'));
  const ordered = [...modules.filter(sameHost), ...modules.filter((m) => !sameHost(m))];
  const asked: string[] = [];
  for (const m of ordered) {
    const url = urlOf(m);
    asked.push(url);
    let rows: ProcessInfo[];
    try {
      rows = processList(await xmlRpc(url, 'GetProcessList', [], timeoutMs, opts.secret));
    } catch (err) {
      log.warn({ node_controller: url, err: (err as Error).message }, 'GetProcessList failed');
      continue;
    }
    const info = rows.find((r) => r.pid === p.pid) ?? (parent !== undefined ? rows.find((r) => r.pid === parent) : undefined);
    if (!info) continue;
    try {
      await xmlRpc(url, 'RestartProcess', [[info.name]], timeoutMs, opts.secret);
    } catch (err) {
      return giveUp(`RestartProcess(["${info.name}"]) at ${url} failed: ${(err as Error).message}`);
    }
    log.info({ node_controller: url, process: info.name }, 'item processor restarted through its node controller');
    return { restarted: true, process: info.name, node_controller: url };
  }
  return giveUp(`no node controller runs pid ${p.pid}${parent ? ` (or its parent ${parent})` : ''}`, { asked });
}
