import type { XmlRpcInputStruct } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import { retry } from '@esp/timers';
import { xmlRpcCall } from '@esp/xmlrpc-http';

/** The module type under which node controllers register, and which the content distributor asks for (MS-FSDPD 3.5.5). */
export const NODE_CONTROL_MODULE_TYPE = 'NodeControl';
export const NODE_CONTROLLER_VERSION = '1.0';

export interface ConfigRegistrationOptions {
  /** The config server's XML-RPC URL, e.g. http://cfg:16005/RPC2. */
  url: string;
  /** Our XML-RPC port (the ModuleRegister port). */
  port: number;
  /** Host the config server should hand out for us; default: the address our request came from. */
  host?: string;
  log: Logger;
  /** Re-register this often after a success, so that a restarted config server learns of us again (default 30 s). */
  refreshMs?: number;
  /** First retry delay (doubles up to 30 s; default 500 ms). */
  retryMs?: number;
}

/**
 * Registers with the config server as module type "NodeControl" (XML-RPC RegisterModule with a ModuleRegister
 * struct), retrying with backoff until it answers, then again every refreshMs. stop() unregisters (best effort).
 */
export function registerWithConfigServer(opts: ConfigRegistrationOptions): { stop(): Promise<void>; readonly registered: boolean } {
  const module: XmlRpcInputStruct = {
    port: opts.port,
    type: NODE_CONTROL_MODULE_TYPE,
    version: NODE_CONTROLLER_VERSION,
    name: NODE_CONTROL_MODULE_TYPE,
    alerts: [],
    ...(opts.host ? { host: opts.host } : {}),
  };
  let stopped = false;
  let registered = false;
  let timer: NodeJS.Timeout | undefined;
  const stopping = new AbortController();
  const register = async (): Promise<void> => {
    timer = undefined;
    if (stopped) return;
    let failures = 0;
    try {
      await retry(() => xmlRpcCall(opts.url, 'RegisterModule', [module], 5000), {
        initialMs: opts.retryMs ?? 500,
        maxMs: 30_000,
        signal: stopping.signal,
        onRetry: (err, _attempt, delay) => {
          failures++;
          opts.log.warn({ config_server: opts.url, err: (err as Error).message, retry_in_ms: delay }, 'cannot register with the config server; retrying');
        },
      });
    } catch {
      return; // retried until stopped
    }
    if (!registered || failures > 0) opts.log.info({ config_server: opts.url, port: opts.port }, 'registered with the config server as NodeControl');
    registered = true;
    if (!stopped) timer = setTimeout(() => void register(), opts.refreshMs ?? 30_000);
  };
  void register();
  return {
    get registered() {
      return registered;
    },
    async stop() {
      stopped = true;
      stopping.abort();
      if (timer) clearTimeout(timer);
      if (!registered) return;
      await xmlRpcCall(opts.url, 'UnregisterModule', [module], 3000).catch((err: Error) => opts.log.debug({ err: err.message }, 'UnregisterModule failed'));
    },
  };
}
