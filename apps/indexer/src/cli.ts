import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';
import { isCollectionName } from './collection-store';

export const DEFAULT_DATA_DIR = '.esp/indexer';
export const DEFAULT_BASE_PORT = 16000;
export const DEFAULT_QUEUE_BATCHES = 64;
/** Twice the content distributors' idle time: they close an idle session (and so this one) first. */
export const DEFAULT_SESSION_IDLE_MS = 1_200_000;
export const DEFAULT_CALLBACK_GIVE_UP_MS = 600_000;

export const HELP = `Usage: indexer [options]

The indexing dispatcher: serves coreprocessing::session_factory at "esp/subsystems/indexing/dispatcher" and
indexing::search at "esp/subsystems/indexing/search". Each indexing session writes its batches durably to one
SQLite database per collection, then calls the content client back: secured (on disk), then completed (final),
or lost for operations a content distributor gave up on.

Options:
  --nats <url>          NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --data <dir>          where the databases live, one <collection>.sqlite each (default: ${DEFAULT_DATA_DIR})
  --collections <a,b>   the collections served; others raise unknown_collection (default: default)
  --config-service      also serve the collections the config server at fds/configservice adds while running: a
                        session on a collection it lists opens (creates) that collection's database
  --base-port <n>       installation base port; the objects' AORs carry base port + 390 (default: ${DEFAULT_BASE_PORT})
  --queue <n>           batches queued per session before process raises system_resource_error (default: ${DEFAULT_QUEUE_BATCHES})
  --session-idle-ms <n> a session with no open, no batch written and no callback delivered for this long is
                        forgotten, its journal rows deleted (its client is gone); 0: never
                        (default: $ESP_SESSION_IDLE_MS, else ${DEFAULT_SESSION_IDLE_MS})
  --callback-give-up-ms <n>
                        statuses owed to a callback object that nobody serves (object_not_exist) for this long
                        are given up: deleted from the outbox, logged and counted; 0: retried for ever
                        (default: $ESP_CALLBACK_GIVE_UP_MS, else ${DEFAULT_CALLBACK_GIVE_UP_MS})
  --wait                keep retrying until NATS is reachable instead of failing at once
  -h, --help            show this help

${NATS_SECURITY_HELP}`;

export interface RunOptions {
  nats: string[];
  security: NatsSecurity;
  dataDir: string;
  collections: string[];
  basePort: number;
  maxQueuedBatches: number;
  sessionIdleMs: number;
  callbackGiveUpMs: number;
  configService: boolean;
  wait: boolean;
}

export type Cli = CliResult<RunOptions>;


export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      data: { type: 'string' },
      collections: { type: 'string' },
      'base-port': { type: 'string' },
      queue: { type: 'string' },
      'session-idle-ms': { type: 'string' },
      'callback-give-up-ms': { type: 'string' },
      'config-service': { type: 'boolean' },
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
  const basePort = integerOption('base-port', values['base-port'], DEFAULT_BASE_PORT, 0, 65535 - 390);
  if (typeof basePort === 'string') return { kind: 'error', message: basePort };
  const queue = integerOption('queue', values.queue, DEFAULT_QUEUE_BATCHES, 1, 100_000);
  if (typeof queue === 'string') return { kind: 'error', message: queue };
  const sessionIdleMs = integerOption('session-idle-ms', values['session-idle-ms'] ?? env['ESP_SESSION_IDLE_MS'], DEFAULT_SESSION_IDLE_MS, 0, 7 * 86_400_000);
  if (typeof sessionIdleMs === 'string') return { kind: 'error', message: sessionIdleMs };
  const callbackGiveUpMs = integerOption('callback-give-up-ms', values['callback-give-up-ms'] ?? env['ESP_CALLBACK_GIVE_UP_MS'], DEFAULT_CALLBACK_GIVE_UP_MS, 0, 7 * 86_400_000);
  if (typeof callbackGiveUpMs === 'string') return { kind: 'error', message: callbackGiveUpMs };
  const collections = (values.collections ?? 'default').split(',').map((s) => s.trim()).filter(Boolean);
  if (collections.length === 0) return { kind: 'error', message: '--collections names no collection' };
  const bad = collections.find((c) => !isCollectionName(c));
  if (bad !== undefined) {
    return { kind: 'error', message: `--collections: "${bad}" is not a valid collection name (letters, digits, "_", "-", "."; at most 128; not starting with "." or "-")` };
  }
  if (values.data !== undefined && values.data.trim() === '') return { kind: 'error', message: '--data must name a directory' };
  const nats = natsServers(values.nats, env);
  return {
    kind: 'run',
    nats,
    security,
    dataDir: values.data ?? DEFAULT_DATA_DIR,
    collections: [...new Set(collections)],
    basePort,
    maxQueuedBatches: queue,
    sessionIdleMs,
    callbackGiveUpMs,
    configService: values['config-service'] ?? false,
    wait: values.wait ?? false,
  };
}
