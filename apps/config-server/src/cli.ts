import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: config-server [options]

The configuration service: configservice::config 5.2 bound at "fds/configservice" on the middleware
(get_active_module_list, get_collections) and XML-RPC at POST http://<host>:<port>/RPC2 (RegisterModule,
UnregisterModule, LoadConfigFile, LoadConfigFileBase64, RegisterProcessorPipelines, GetActiveModuleList,
ReloadConfig, ping). Sends ConfigurationChanged alerts to registered modules that asked for them.

Options:
  --nats <url>          NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --port <n>            XML-RPC port; 0 picks a free one (default: 0)
  --listen <addr>       address to listen on (default: 127.0.0.1; 0.0.0.0 for every interface)
  --config-dir <dir>    collections.json and <module>/<filepath> config files (default: none)
  --max-modules <n>     modules registered at most; more are refused until some expire (default: 1000)
  --module-ttl <s>      a module that did not register again for this long is dropped (default: 120)
  --wait                keep retrying until NATS is reachable instead of failing at once
  -h, --help            show this help

SIGHUP reloads the config directory (as the ReloadConfig method does).

RegisterModule, UnregisterModule, RegisterProcessorPipelines and ReloadConfig change state: they need the admin
secret of the file $ESP_ADMIN_SECRET_FILE (HTTP Authorization), or without one a caller on this machine. A
module registers only its own address.

${NATS_SECURITY_HELP}`;

export type Cli = CliResult<{ nats: string[]; security: NatsSecurity; port: number; listen: string; configDir: string | undefined; maxModules: number; moduleTtlS: number; wait: boolean }>;

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      port: { type: 'string' },
      listen: { type: 'string' },
      'config-dir': { type: 'string' },
      'max-modules': { type: 'string' },
      'module-ttl': { type: 'string' },
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
  const maxModules = integerOption('max-modules', values['max-modules'], 1000, 1, 1_000_000);
  if (typeof maxModules === 'string') return { kind: 'error', message: maxModules };
  const moduleTtlS = integerOption('module-ttl', values['module-ttl'], 120, 1, 86_400);
  if (typeof moduleTtlS === 'string') return { kind: 'error', message: moduleTtlS };
  return { kind: 'run', nats: natsServers(values.nats, env), security, port, listen: values.listen ?? '127.0.0.1', configDir: values['config-dir'], maxModules, moduleTtlS, wait: values.wait ?? false };
}
