import { integerOption, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: node-controller --profile <node.json> [options]

Supervises the processes of one node (MS-FSDPD 3.5.5 node controller): starts the apps of the node profile
(node --import tsx <entry>, or the entry's build under dist/ when the node controller runs built), restarts
one that dies (with backoff), and stops them in reverse order on SIGTERM.
Serves XML-RPC at POST http://<host>:<port>/RPC2: GetProcessList, RestartProcess, StartProcess, StopProcess, ping.

Options:
  --profile <file>          node profile JSON (which apps, how many instances, args, env)  (required)
  --port <n>                XML-RPC port; 0 picks a free one (default: 0)
  --listen <addr>           address to listen on (default: 127.0.0.1; 0.0.0.0 for every interface)
  --cwd <dir>               working directory of the apps; profile entries are relative to it (default: .)
  --config-server <url>     register as module type "NodeControl" with this config server
                            (e.g. http://cfg:16005/RPC2), retrying with backoff
  --advertise-host <host>   host the config server hands out for us (default: the address it sees)
  --restart-delay-ms <n>    first restart delay after a crash, doubling per crash in a row up to 30 s (default: 100)
  --stop-timeout-ms <n>     SIGKILL a process that has not exited this long after SIGTERM (default: 10000)
  -h, --help                show this help
`;

export interface RunOptions {
  kind: 'run';
  profile: string;
  port: number;
  listen: string;
  cwd: string;
  configServer: string | undefined;
  advertiseHost: string | undefined;
  restartDelayMs: number;
  stopTimeoutMs: number;
}

export type Cli = CliResult<Omit<RunOptions, 'kind'>>;

export function parseCli(argv: string[]): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      profile: { type: 'string' },
      port: { type: 'string' },
      listen: { type: 'string' },
      cwd: { type: 'string' },
      'config-server': { type: 'string' },
      'advertise-host': { type: 'string' },
      'restart-delay-ms': { type: 'string' },
      'stop-timeout-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  if (!values.profile) return { kind: 'error', message: '--profile <node.json> is required' };
  const port = integerOption('port', values.port, 0, 0, 65535);
  if (typeof port === 'string') return { kind: 'error', message: port };
  const restartDelayMs = integerOption('restart-delay-ms', values['restart-delay-ms'], 100, 10, 600_000);
  if (typeof restartDelayMs === 'string') return { kind: 'error', message: restartDelayMs };
  const stopTimeoutMs = integerOption('stop-timeout-ms', values['stop-timeout-ms'], 10_000, 100, 600_000);
  if (typeof stopTimeoutMs === 'string') return { kind: 'error', message: stopTimeoutMs };
  const configServer = values['config-server'];
  if (configServer !== undefined && !/^https?:\/\/[^/]+/.test(configServer)) {
    return { kind: 'error', message: `--config-server must be an http:// URL such as http://cfg:16005/RPC2, got "${configServer}"` };
  }
  return {
    kind: 'run',
    profile: values.profile,
    port,
    listen: values.listen ?? '127.0.0.1',
    cwd: values.cwd ?? '.',
    configServer: configServer === undefined ? undefined : withRpcPath(configServer),
    advertiseHost: values['advertise-host'],
    restartDelayMs,
    stopTimeoutMs,
  };
}

/** http://cfg:16005 means http://cfg:16005/RPC2 (the XML-RPC path of MS-FSDPD 2.1). */
function withRpcPath(url: string): string {
  return new URL(url).pathname === '/' ? new URL('/RPC2', url).toString() : url;
}
