/**
 * indexer: the indexing dispatcher (coreprocessing::session_factory, sessions) and the search interface, on NATS.
 *
 *   nx serve indexer                                             # NATS_URL or nats://127.0.0.1:4222, collection "default"
 *   tsx apps/indexer/src/main.ts --collections news,web --data /var/lib/esp/indexer --base-port 13000
 *
 * One instance per data directory (the databases are locked while open).
 */
import { BATCH_KEY_ENV, BatchSigner, CONFIG_SERVICE_NAME, configServiceInterface } from '@esp/interfaces';
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { retry } from '@esp/timers';
import { parseCli } from './cli';
import { startIndexer } from './indexer';

// what this process writes (its data, state and logs under the stack's home) is its owner's only (docs/security.md)
process.umask(0o077);
const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`indexer: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('indexer');
let batchSigner: BatchSigner | undefined;
try {
  batchSigner = BatchSigner.fromFile(process.env[BATCH_KEY_ENV]);
} catch (err) {
  log.fatal({ err: (err as Error).message, code: 'batch_key' }, 'cannot start');
  process.exit(1);
}
if (!batchSigner) log.warn(`no batch key (${BATCH_KEY_ENV}): any caller that reaches an indexing session may write into it`);
const mw = await Middleware.connect({ name: 'indexer', servers: cli.nats, security: cli.security, logger: log, waitForServer: cli.wait }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot start');
  process.exit(1);
});
/** The collections of the config server at fds/configservice. */
const configuredCollections = async (): Promise<string[]> => {
  const { proxy } = await mw.names.resolveProxy(configServiceInterface, CONFIG_SERVICE_NAME, { timeoutMs: 5000 });
  return (await proxy.get_collections()).map((c) => c.name);
};
const indexer = await startIndexer({
  mw,
  dataDir: cli.dataDir,
  collections: cli.collections,
  basePort: cli.basePort,
  maxQueuedBatches: cli.maxQueuedBatches,
  sessionIdleMs: cli.sessionIdleMs,
  callbackGiveUpMs: cli.callbackGiveUpMs,
  batchSigner,
  configured: cli.configService ? async (collection) => (await configuredCollections()).includes(collection) : undefined,
  // at start the config server may still be starting (docker compose starts both at once): asked for up to 15 s
  configuredCollections: cli.configService ? () => retry(configuredCollections, { deadlineMs: 15_000, initialMs: 200, maxMs: 2000 }) : undefined,
  logger: log,
}).catch(async (err: Error) => {
  log.fatal({ err: err.message }, 'cannot start');
  await mw.close();
  process.exit(1);
});
announceReady(log, { nats: cli.nats, data: cli.dataDir, collections: indexer.collections, port: indexer.port, factory: indexer.factory, search: indexer.search });

stopOnSignals(
  log,
  async () => {
    await indexer.close();
    await mw.close();
  },
  { message: 'stopping: writing queued batches, delivering owed callbacks' },
);
