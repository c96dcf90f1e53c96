import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';
import { parsePeerSpec } from '@esp/crawl-bus';
import type { ConnectSpec, ListenSpec } from './gateway';

export const HELP = `Usage: fscmt-gateway --listen <host:port>=<role>/<id> ... [--connect <host:port>=<role>/<id> ...] [options]

Lets crawler peers that speak the MS-FSCMT TCP wire format (big-endian length + FSWCU (dict, priority) frames)
join the crawl cluster on NATS, frames unchanged in both directions.

  --listen 127.0.0.1:13000=mns/main   external node schedulers connect here to reach the multinode scheduler
  --listen 127.0.0.1:13001=dup/dup1   ... and here to reach duplicate server dup1
  --connect 10.0.0.5:13002=dup/ext1   an external duplicate server, reachable by cluster peers as dup/ext1

Options:
  --nats <url>              NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --cluster <name>          crawl cluster name on NATS (default: default)
  --id <name>               this gateway's name; connections appear as tcp/<name>.<n> (default: gw)
  --max-frame-bytes <n>     largest frame accepted from a peer (default: 16777216)
  --max-queue-bytes <n>     most bytes waiting to be sent to one peer (default: 33554432)
  --stall-ms <ms>           a peer half-way through a frame, or not reading, this long is disconnected (default: 30000)
  --max-connections <n>     open TCP connections at most (default: 1024)
  -h, --help                show this help

${NATS_SECURITY_HELP}`;

export type Cli = CliResult<{
  nats: string[];
  security: NatsSecurity;
  cluster: string;
  id: string;
  listen: ListenSpec[];
  connect: ConnectSpec[];
  maxFrameBytes: number;
  maxQueueBytes: number;
  stallMs: number;
  maxConnections: number;
}>;

function endpoint(option: string, raw: string, cluster: string): { host: string; port: number; peer: ReturnType<typeof parsePeerSpec> } | string {
  const m = /^(.+):(\d+)=(.+)$/.exec(raw);
  if (!m) return `--${option} takes <host:port>=<role>/<id>, got "${raw}"`;
  const port = Number(m[2]);
  if (port > 65535) return `--${option}: port ${port} is out of range`;
  return { host: m[1] ?? '', port, peer: parsePeerSpec(m[3] ?? '', cluster) };
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      cluster: { type: 'string' },
      id: { type: 'string' },
      listen: { type: 'string', multiple: true },
      connect: { type: 'string', multiple: true },
      'max-frame-bytes': { type: 'string' },
      'max-queue-bytes': { type: 'string' },
      'stall-ms': { type: 'string' },
      'max-connections': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  const cluster = values.cluster ?? 'default';
  const listen: ListenSpec[] = [];
  const connect: ConnectSpec[] = [];
  for (const raw of values.listen ?? []) {
    const e = endpoint('listen', raw, cluster);
    if (typeof e === 'string') return { kind: 'error', message: e };
    if (typeof e.peer === 'string') return { kind: 'error', message: `--listen: ${e.peer}` };
    listen.push({ host: e.host, port: e.port, target: e.peer });
  }
  for (const raw of values.connect ?? []) {
    const e = endpoint('connect', raw, cluster);
    if (typeof e === 'string') return { kind: 'error', message: e };
    if (typeof e.peer === 'string') return { kind: 'error', message: `--connect: ${e.peer}` };
    connect.push({ host: e.host, port: e.port, as: e.peer });
  }
  if (listen.length + connect.length === 0) return { kind: 'error', message: 'give at least one --listen or --connect' };
  const maxFrameBytes = integerOption('max-frame-bytes', values['max-frame-bytes'], 16 * 1024 * 1024, 16, 256 * 1024 * 1024);
  if (typeof maxFrameBytes === 'string') return { kind: 'error', message: maxFrameBytes };
  const maxQueueBytes = integerOption('max-queue-bytes', values['max-queue-bytes'], 32 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024);
  if (typeof maxQueueBytes === 'string') return { kind: 'error', message: maxQueueBytes };
  const stallMs = integerOption('stall-ms', values['stall-ms'], 30_000, 10, 3_600_000);
  if (typeof stallMs === 'string') return { kind: 'error', message: stallMs };
  const maxConnections = integerOption('max-connections', values['max-connections'], 1024, 1, 100_000);
  if (typeof maxConnections === 'string') return { kind: 'error', message: maxConnections };
  return { kind: 'run', nats: natsServers(values.nats, env), security, cluster, id: values.id ?? 'gw', listen, connect, maxFrameBytes, maxQueueBytes, stallMs, maxConnections };
}
