import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: name-server [options]

Serves bind / resolve / unbind / list of server objects (MS-FSMW) on NATS. Bindings live in the
JetStream KV bucket "esp_names"; any number of instances may run at once.

Options:
  --nats <url>        NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --replicas <n>      JetStream replicas of the bindings bucket: 1, or 3 on a three-server cluster (default: 1)
  --wait              keep retrying until NATS is reachable instead of failing at once
  --clear-bindings    drop every binding in the bucket at start: for the name server of a stack that has
                      just started its own NATS server (npm start), where every binding left is a dead
                      process's (it also heals a bucket whose index was damaged)
  -h, --help          show this help

${NATS_SECURITY_HELP}`;

export type Cli = CliResult<{ nats: string[];
  security: NatsSecurity; replicas: number; wait: boolean; clearBindings: boolean }>;

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      replicas: { type: 'string' },
      wait: { type: 'boolean' },
      'clear-bindings': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  const replicas = integerOption('replicas', values.replicas, 1, 1, 5);
  if (typeof replicas === 'string') return { kind: 'error', message: replicas };
  const nats = natsServers(values.nats, env);
  return { kind: 'run', nats, security, replicas, wait: values.wait ?? false, clearBindings: values['clear-bindings'] ?? false };
}
