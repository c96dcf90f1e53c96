/**
 * indexer: the indexing dispatcher (coreprocessing::session_factory, sessions) and the search interface, on NATS.
 *
 *   nx serve indexer                                             # NATS_URL or nats://127.0.0.1:4222, collection "default"
 *   tsx apps/indexer/src/main.ts --collections news,web --data /var/lib/esp/indexer --base-port 13000
 *
 * One instance per data directory (the databases are locked while open).
 */
import { CONFIG_SERVICE_NAME, configServiceInterface } from '@esp/interfaces';
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { retry } from '@esp/timers';
import { parseCli } from './cli';
import { startIndexer } from './indexer';

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
