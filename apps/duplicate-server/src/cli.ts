import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: duplicate-server --id <node id> --data <dir> [options]

MS-FSCMT duplicate server on the NATS crawl cluster: a checksum store per crawl collection (16-byte checksum ->
owner URI and node), kept in SQLite under --data so that it survives a restart. With --replica, every add and
remove is forwarded to that duplicate server and the node scheduler is answered only after the replica
acknowledged. A duplicate server is a replica when another one forwards to it; nothing else is needed.

Options:
  --nats <url>               NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --cluster <name>           crawl cluster name on NATS (default: default)
  --id <node id>             this server's node identifier (its address is dup/<id>)
  --data <dir>               directory of the checksum databases
  --replica <node id>        the replica's node identifier
  --sync <normal|full>       SQLite synchronous mode (default: normal; survives kill -9, full also a power cut)
  --keepalive-ms <ms>        keep-alive interval (default: 120000)
  --replica-timeout-ms <ms>  how long an add/remove may wait for the replica (default: 10000)
  -h, --help                 show this help

${NATS_SECURITY_HELP}`;

export type Cli = CliResult<{
  nats: string[];
  security: NatsSecurity;
  cluster: string;
  id: string;
  dataDir: string;
  replica: string | undefined;
  sync: 'normal' | 'full';
  keepaliveMs: number;
  replicaTimeoutMs: number;
}>;

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      cluster: { type: 'string' },
      id: { type: 'string' },
      data: { type: 'string' },
      replica: { type: 'string' },
      sync: { type: 'string' },
      'keepalive-ms': { type: 'string' },
      'replica-timeout-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  if (!values.id) return { kind: 'error', message: '--id is required' };
  if (!values.data) return { kind: 'error', message: '--data is required' };
  if (values.replica === values.id) return { kind: 'error', message: '--replica must be another server than --id' };
  const sync = values.sync ?? 'normal';
  if (sync !== 'normal' && sync !== 'full') return { kind: 'error', message: `--sync must be normal or full, got "${sync}"` };
  const keepaliveMs = integerOption('keepalive-ms', values['keepalive-ms'], 120_000, 10, 86_400_000);
  if (typeof keepaliveMs === 'string') return { kind: 'error', message: keepaliveMs };
  const replicaTimeoutMs = integerOption('replica-timeout-ms', values['replica-timeout-ms'], 10_000, 1, 3_600_000);
  if (typeof replicaTimeoutMs === 'string') return { kind: 'error', message: replicaTimeoutMs };
  return {
    kind: 'run',
    nats: natsServers(values.nats, env),
    security,
    cluster: values.cluster ?? 'default',
    id: values.id,
    dataDir: values.data,
    replica: values.replica,
    sync,
    keepaliveMs,
    replicaTimeoutMs,
  };
}
