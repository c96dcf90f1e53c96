import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: ppp-gateway [options]

Bridges ZeroMQ Paranoid Pirate peers (RFC 6) into a PPP queue on NATS: ZeroMQ PPP workers connect to the
backend ROUTER and serve NATS clients; ZeroMQ (Lazy Pirate, REQ) clients connect to the frontend ROUTER and are
served by NATS workers. Frames pass through unchanged.

Options:
  --nats <url>              NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --service <name>          PPP service (queue) name on NATS (default: default)
  --frontend <endpoint>     ZeroMQ ROUTER for clients (default: tcp://127.0.0.1:5555; tcp://*:5555 for every interface)
  --backend <endpoint>      ZeroMQ ROUTER for workers (default: tcp://127.0.0.1:5556)
  --heartbeat-ms <ms>       heartbeat interval agreed with the workers (default: 1000)
  --liveness <n>            heartbeats missed before a peer is dead (default: 3)
  --queue                   also run the PPP queue of the service in this process
  --request-timeout-ms <ms> how long a frontend request may wait for its reply (default: 30000)
  --max-inflight <n>        frontend requests in flight; beyond that they are dropped (default: 1000)
  --curve-key <file>        CURVE (ZeroMQ RFC 26) on both sockets with the key pair of this file, generated
                            there (readable by its owner only) when it does not exist; peers need its public key
  --curve-clients <file>    with --curve-key: admit only the client / worker public keys of this file (one Z85
                            key per line); without it any peer that knows the gateway's public key is admitted
  -h, --help                show this help

${NATS_SECURITY_HELP}`;

export interface GatewayCli {
  kind: 'run';
  nats: string[];
  security: NatsSecurity;
  service: string;
  frontend: string;
  backend: string;
  heartbeatMs: number;
  liveness: number;
  queue: boolean;
  requestTimeoutMs: number;
  maxInflight: number;
  curveKey: string | undefined;
  curveClients: string | undefined;
}

export type Cli = CliResult<Omit<GatewayCli, 'kind'>>;

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      service: { type: 'string' },
      frontend: { type: 'string' },
      backend: { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      liveness: { type: 'string' },
      queue: { type: 'boolean' },
      'request-timeout-ms': { type: 'string' },
      'max-inflight': { type: 'string' },
      'curve-key': { type: 'string' },
      'curve-clients': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  const heartbeatMs = integerOption('heartbeat-ms', values['heartbeat-ms'], 1000, 10, 600_000);
  if (typeof heartbeatMs === 'string') return { kind: 'error', message: heartbeatMs };
  const liveness = integerOption('liveness', values.liveness, 3, 1, 100);
  if (typeof liveness === 'string') return { kind: 'error', message: liveness };
  const requestTimeoutMs = integerOption('request-timeout-ms', values['request-timeout-ms'], 30_000, 1, 3_600_000);
  if (typeof requestTimeoutMs === 'string') return { kind: 'error', message: requestTimeoutMs };
  const maxInflight = integerOption('max-inflight', values['max-inflight'], 1000, 1, 1_000_000);
  if (typeof maxInflight === 'string') return { kind: 'error', message: maxInflight };
  if (values['curve-clients'] !== undefined && values['curve-key'] === undefined) return { kind: 'error', message: '--curve-clients needs --curve-key' };
  for (const name of ['frontend', 'backend'] as const) {
    const v = values[name];
    if (v !== undefined && !/^(tcp|ipc|inproc):\/\/.+/.test(v)) return { kind: 'error', message: `--${name} must be a ZeroMQ endpoint such as tcp://*:5555, got "${v}"` };
  }
  return {
    kind: 'run',
    nats: natsServers(values.nats, env),
    security,
    service: values.service ?? 'default',
    frontend: values.frontend ?? 'tcp://127.0.0.1:5555',
    backend: values.backend ?? 'tcp://127.0.0.1:5556',
    heartbeatMs,
    liveness,
    queue: values.queue ?? false,
    requestTimeoutMs,
    maxInflight,
    curveKey: values['curve-key'],
    curveClients: values['curve-clients'],
  };
}
