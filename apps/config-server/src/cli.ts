import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: config-server [options]

The configuration service: configservice::config 5.2 bound at "fds/configservice" on the middleware
(get_active_module_list, get_collections) and XML-RPC at POST http://<host>:<port>/RPC2 (RegisterModule,
UnregisterModule, LoadConfigFile, LoadConfigFileBase64, RegisterProcessorPipelines, GetActiveModuleList,
ReloadConfig, ping). Sends ConfigurationChanged alerts to registered modules that asked for them.

Options:
  --nats <url>          NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --port <n>            XML-RPC port; 0 picks a free one (default: 0)
  --listen <addr>       address to listen on (default: 0.0.0.0)
  --config-dir <dir>    collections.json and <module>/<filepath> config files (default: none)
  --wait                keep retrying until NATS is reachable instead of failing at once
  -h, --help            show this help

SIGHUP reloads the config directory (as the ReloadConfig method does).

${NATS_SECURITY_HELP}`;

export type Cli = CliResult<{ nats: string[];
  security: NatsSecurity; port: number; listen: string; configDir: string | undefined; wait: boolean }>;

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      port: { type: 'string' },
      listen: { type: 'string' },
      'config-dir': { type: 'string' },
      wait: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  const port = integerOption('port', values.port, 0, 0, 65535);
  if (typeof port === 'string') return { kind: 'error', message: port };
  return { kind: 'run', nats: natsServers(values.nats, env), security, port, listen: values.listen ?? '0.0.0.0', configDir: values['config-dir'], wait: values.wait ?? false };
}
