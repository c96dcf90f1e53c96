import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: ssr-node --name <instance> [options]

One SSR instance (session replication, SailFin design) as its own process: active and replica caches, buddy
replication, load requests, replica timers; serves put/get/remove on esp.raw.ssr.<cluster>.op.<name>.

Options:
  --nats <url>               NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --cluster <name>           SSR cluster (subject namespace) (default: default)
  --name <name>              instance name, its place in the ring and on the consistent hash (required)
  --heartbeat-ms <ms>        membership heartbeat (default: 200)
  --suspect-after-ms <ms>    silence before suspicion (temporary failure) (default: 3 heartbeats)
  --fail-after-ms <ms>       silence before permanent failure and reshape (default: 1500)
  --grace-ms <ms>            replica timer grace, per tree level (default: 2 x fail-after)
  --reactivate-low-ms <ms>   2.14.1 reactivation window after a failure, lower bound (default: none)
  --reactivate-high-ms <ms>  upper bound (default: 3 x low)
  --wait-for-ack             operations return after the buddy acknowledged the replica (default: asynchronous)
  --no-replication           no buddy replication (benchmark baseline)
  --state-file <path>        save the caches here on SIGTERM (after quiescence), reload them on start (2.22.1)
  -h, --help                 show this help

${NATS_SECURITY_HELP}`;

export interface NodeCli {
  nats: string[];
  security: NatsSecurity;
  cluster: string;
  name: string;
  heartbeatMs: number;
  suspectAfterMs: number | undefined;
  failAfterMs: number;
  graceMs: number | undefined;
  reactivation: { lowMs: number; highMs: number } | undefined;
  waitForAck: boolean;
  replication: boolean;
  stateFile: string | undefined;
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliResult<NodeCli> {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      cluster: { type: 'string' },
      name: { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'suspect-after-ms': { type: 'string' },
      'fail-after-ms': { type: 'string' },
      'grace-ms': { type: 'string' },
      'reactivate-low-ms': { type: 'string' },
      'reactivate-high-ms': { type: 'string' },
      'wait-for-ack': { type: 'boolean' },
      'no-replication': { type: 'boolean' },
      'state-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  if (!values.name || !/^[A-Za-z0-9_-]{1,64}$/.test(values.name)) return { kind: 'error', message: '--name is required: 1..64 letters, digits, _ or -' };
  const ints: Record<string, number | undefined> = {};
  const specs: [string, number | undefined][] = [
    ['heartbeat-ms', 200],
    ['suspect-after-ms', undefined],
    ['fail-after-ms', 1500],
    ['grace-ms', undefined],
    ['reactivate-low-ms', undefined],
    ['reactivate-high-ms', undefined],
  ];
  for (const [k, d] of specs) {
    const v = integerOption(k, values[k as keyof typeof values] as string | undefined, d, 1, 3_600_000);
    if (typeof v === 'string') return { kind: 'error', message: v };
    ints[k] = v;
  }
  const low = ints['reactivate-low-ms'];
  const failAfterMs = ints['fail-after-ms'] as number;
  const graceMs = ints['grace-ms'];
  if (graceMs !== undefined && graceMs <= failAfterMs) return { kind: 'error', message: '--grace-ms must exceed --fail-after-ms (no replica timer may fire during a temporary failure)' };
  return {
    kind: 'run',
    nats: natsServers(values.nats, env),
    security,
    cluster: values.cluster ?? 'default',
    name: values.name,
    heartbeatMs: ints['heartbeat-ms'] as number,
    suspectAfterMs: ints['suspect-after-ms'],
    failAfterMs,
    graceMs,
    reactivation: low !== undefined ? { lowMs: low, highMs: ints['reactivate-high-ms'] ?? 3 * low } : undefined,
    waitForAck: values['wait-for-ack'] ?? false,
    replication: !(values['no-replication'] ?? false),
    stateFile: values['state-file'],
  };
}
