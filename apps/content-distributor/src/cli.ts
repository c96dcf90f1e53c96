import { readFileSync } from 'node:fs';
import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';
import { DEFAULT_PING_INTERVAL_MS } from './election';
import { DEFAULT_QUOTA_LIMITS, DEFAULT_SESSION_IDLE_MS } from './sessions/session-quota';

const D = DEFAULT_QUOTA_LIMITS;

export const HELP = `Usage: content-distributor [options]

A content distributor (MS-FSDPD, MS-FSCDFT): takes feeding sessions from content clients and hands their batches to
free item processors; reports lost operations when an item processor's lease runs out.

Options:
  --nats <url>            NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --node-id <n>           dispatcher identifier of this node (default: 0)
  --base-port <n>         base port; objects are on base + 390, external sessions on base + 391 (default: 16000)
  --collections <a,b>     collections this distributor accepts (default: default)
  --config <file>         JSON file {"collections": ["a", "b"]} (merged with --collections)
  --config-service        take the collections from the config server at fds/configservice (get_collections):
                          a collection added there is accepted without a restart; --collections / --config
                          are then accepted in addition (default: off)
  --lease-seconds <n>     Lease Timeout of item processors, MS-FSDPD 3.5.2 (default: 300)
  --heartbeat-ms <n>      heartbeat interval of item processors, PPP (default: 1000)
  --liveness <n>          silent heartbeat intervals before an item processor is declared dead (default: 3)
  --gone-probe <on|off>   an item processor late for a heartbeat whose process is gone (no responders) is declared
                          dead at once (default: on; off leaves it to liveness and the Lease Timeout)
  --ping-interval-ms <n>  check-for-master timer of a backup: __ping of the master, MS-FSCDFT 3.4.2 (default: 1000);
                          three failures in a row (one when the master is gone: no responders) and the backup takes over
  --check-master-ms <n>   check-master-status timer of the master, MS-FSCDFT 3.3.2 (default: 5000)
  --session-replication <on|off>
                          keep feeding sessions in session replication (SSR, ack mode, cluster "feeding"): a
                          batch is acknowledged once the session holding it is on a second distributor, and the
                          sessions of a distributor that dies go on elsewhere without the client sending
                          acknowledged operations again (default: on)
  --session-timer-ms <n>  with session replication: the timer of a session with batches in flight; when its
                          distributor is dead and no client call comes, the replica's timer (this plus the SSR
                          grace) makes the session's home reactivate it (default: 10000)
  --client-max-sessions <n>
                          sessions one client (one owner token; callers without a token are one client) may hold
                          on this distributor; one more raises quota_exceeded (default: $ESP_CLIENT_MAX_SESSIONS
                          or ${D.perClient.sessions})
  --max-sessions <n>      sessions of all clients on this distributor, at most (default: $ESP_MAX_SESSIONS or ${D.global.sessions})
  --client-max-bytes-in-flight <n>
                          bytes of one client's batches accepted and not yet processed; a batch over it raises
                          quota_exceeded (default: $ESP_CLIENT_MAX_BYTES_IN_FLIGHT or ${D.perClient.bytes_in_flight})
  --session-idle-ms <n>   a session with no call and no callback taken by its client for this long is destroyed,
                          its indexing session closed; 0: never (default: $ESP_SESSION_IDLE_MS or ${DEFAULT_SESSION_IDLE_MS})
  --wait                  keep retrying until NATS is reachable
  -h, --help              show this help

${NATS_SECURITY_HELP}`;

export interface DistributorCli {
  kind: 'run';
  nats: string[];
  security: NatsSecurity;
  nodeId: number;
  basePort: number;
  collections: string[];
  /** The collection holder is the config server (configservice::config get_collections). */
  configService: boolean;
  leaseSeconds: number;
  heartbeatMs: number;
  liveness: number;
  goneProbe: boolean;
  pingIntervalMs: number;
  checkMasterMs: number;
  sessionReplication: boolean;
  sessionTimerMs: number;
  clientMaxSessions: number;
  maxSessions: number;
  clientMaxBytesInFlight: number;
  sessionIdleMs: number;
  wait: boolean;
}

export type Cli = CliResult<Omit<DistributorCli, 'kind'>>;


export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      'node-id': { type: 'string' },
      'base-port': { type: 'string' },
      collections: { type: 'string' },
      config: { type: 'string' },
      'config-service': { type: 'boolean' },
      'lease-seconds': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      liveness: { type: 'string' },
      'gone-probe': { type: 'string' },
      'ping-interval-ms': { type: 'string' },
      'check-master-ms': { type: 'string' },
      'session-replication': { type: 'string' },
      'session-timer-ms': { type: 'string' },
      'client-max-sessions': { type: 'string' },
      'max-sessions': { type: 'string' },
      'client-max-bytes-in-flight': { type: 'string' },
      'session-idle-ms': { type: 'string' },
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
  const nodeId = integerOption('node-id', values['node-id'], 0, 0, 2 ** 31 - 1);
  const basePort = integerOption('base-port', values['base-port'], 16000, 1, 65535 - 391);
  const leaseSeconds = integerOption('lease-seconds', values['lease-seconds'], 300, 1, 86_400);
  const heartbeatMs = integerOption('heartbeat-ms', values['heartbeat-ms'], 1000, 10, 600_000);
  const liveness = integerOption('liveness', values.liveness, 3, 1, 1000);
  const pingIntervalMs = integerOption('ping-interval-ms', values['ping-interval-ms'], DEFAULT_PING_INTERVAL_MS, 10, 600_000);
  const checkMasterMs = integerOption('check-master-ms', values['check-master-ms'], 5000, 10, 600_000);
  const sessionTimerMs = integerOption('session-timer-ms', values['session-timer-ms'], 10_000, 100, 3_600_000);
  const clientMaxSessions = integerOption('client-max-sessions', values['client-max-sessions'] ?? env['ESP_CLIENT_MAX_SESSIONS'], D.perClient.sessions ?? 32, 1, 1_000_000);
  const maxSessions = integerOption('max-sessions', values['max-sessions'] ?? env['ESP_MAX_SESSIONS'], D.global.sessions ?? 1000, 1, 1_000_000);
  const clientMaxBytesInFlight = integerOption('client-max-bytes-in-flight', values['client-max-bytes-in-flight'] ?? env['ESP_CLIENT_MAX_BYTES_IN_FLIGHT'], D.perClient.bytes_in_flight ?? 0, 1024, 2 ** 40);
  const sessionIdleMs = integerOption('session-idle-ms', values['session-idle-ms'] ?? env['ESP_SESSION_IDLE_MS'], DEFAULT_SESSION_IDLE_MS, 0, 7 * 86_400_000);
  for (const v of [nodeId, basePort, leaseSeconds, heartbeatMs, liveness, pingIntervalMs, checkMasterMs, sessionTimerMs, clientMaxSessions, maxSessions, clientMaxBytesInFlight, sessionIdleMs]) if (typeof v === 'string') return { kind: 'error', message: v };
  const configService = values['config-service'] ?? false;
  const goneProbe = values['gone-probe'] ?? 'on';
  if (goneProbe !== 'on' && goneProbe !== 'off') return { kind: 'error', message: `--gone-probe must be on or off, not "${goneProbe}"` };
  const ssr = values['session-replication'] ?? 'on';
  if (ssr !== 'on' && ssr !== 'off') return { kind: 'error', message: `--session-replication must be on or off, not "${ssr}"` };
  const collections = new Set((values.collections ?? (values.config || configService ? '' : 'default')).split(',').map((s) => s.trim()).filter(Boolean));
  if (values.config) {
    try {
      const cfg = JSON.parse(readFileSync(values.config, 'utf8')) as { collections?: unknown };
      if (!Array.isArray(cfg.collections) || !cfg.collections.every((c) => typeof c === 'string' && c.length > 0)) {
        return { kind: 'error', message: `${values.config}: "collections" must be an array of non-empty strings` };
      }
      for (const c of cfg.collections as string[]) collections.add(c);
    } catch (err) {
      return { kind: 'error', message: `${values.config}: ${(err as Error).message}` };
    }
  }
  if (collections.size === 0 && !configService) return { kind: 'error', message: 'no collections configured' };
  const nats = natsServers(values.nats, env);
  return { kind: 'run', nats, security, nodeId: nodeId as number, basePort: basePort as number, collections: [...collections], configService, leaseSeconds: leaseSeconds as number, heartbeatMs: heartbeatMs as number, liveness: liveness as number, goneProbe: goneProbe === 'on', pingIntervalMs: pingIntervalMs as number, checkMasterMs: checkMasterMs as number, sessionReplication: ssr === 'on', sessionTimerMs: sessionTimerMs as number, clientMaxSessions: clientMaxSessions as number, maxSessions: maxSessions as number, clientMaxBytesInFlight: clientMaxBytesInFlight as number, sessionIdleMs: sessionIdleMs as number, wait: values.wait ?? false };
}
