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
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
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
const mw = await Middleware.connect({ name: 'indexer', servers: cli.nats, security: cli.security, logger: log, waitForServer: cli.wait }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot start');
  process.exit(1);
});
const indexer = await startIndexer({
  mw,
  dataDir: cli.dataDir,
  collections: cli.collections,
  basePort: cli.basePort,
  maxQueuedBatches: cli.maxQueuedBatches,
  sessionIdleMs: cli.sessionIdleMs,
  callbackGiveUpMs: cli.callbackGiveUpMs,
  configured: cli.configService
    ? async (collection) => {
        const { proxy } = await mw.names.resolveProxy(configServiceInterface, CONFIG_SERVICE_NAME, { timeoutMs: 5000 });
        return (await proxy.get_collections()).some((c) => c.name === collection);
      }
    : undefined,
  logger: log,
}).catch(async (err: Error) => {
  log.fatal({ err: err.message }, 'cannot start');
  await mw.close();
  process.exit(1);
});
log.info({ nats: cli.nats, data: cli.dataDir, collections: cli.collections, port: indexer.port, factory: indexer.factory, search: indexer.search }, 'ready');

stopOnSignals(
  log,
  async () => {
    await indexer.close();
    await mw.close();
  },
  { message: 'stopping: writing queued batches, delivering owed callbacks' },
);
