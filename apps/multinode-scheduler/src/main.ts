/**
 * multinode-scheduler: orchestrates the multinode web crawl (MS-FSCMT 3.2).
 *
 *   nx serve multinode-scheduler -- --config crawl.xml
 *   tsx apps/multinode-scheduler/src/main.ts --config crawl.xml --cluster default --id main
 *   tsx apps/multinode-scheduler/src/main.ts --config-dir .esp/config/crawl --data .esp/crawl --config-service
 *
 * It serves the crawl cluster's administration (crawl::admin: what `npm run crawl` talks to) beside its address.
 */
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { CONFIG_SERVICE_NAME, configServiceInterface } from '@esp/interfaces';
import { Middleware } from '@esp/middleware';
import { parseCli } from './cli';
import { reconcile } from './collections';
import { CrawlConfigSource } from './config-source';
import { serveCrawlAdmin } from './crawl-admin-service';
import { startMultinodeScheduler } from './multinode-scheduler';

// what this process writes (its data, state and logs under the stack's home) is its owner's only (docs/security.md)
process.umask(0o077);
const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`multinode-scheduler: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}
let collections;
let source: CrawlConfigSource;
try {
  source = new CrawlConfigSource(cli.configs, cli.configDir);
  collections = source.load();
} catch (err) {
  process.stderr.write(`multinode-scheduler: invalid crawl configuration: ${(err as Error).message}\n`);
  process.exit(2);
}

const log = createLogger('multinode-scheduler', { id: cli.id, cluster: cli.cluster });
const mw = await Middleware.connect({ name: 'multinode-scheduler', servers: cli.nats, security: cli.security, logger: log }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot connect to NATS');
  process.exit(1);
});
const mns = await startMultinodeScheduler(mw.bus, { ...cli, collections, log });
// the feeding chain learns a crawl's collection from the config service before anything is crawled
const registerCollection = cli.configService
  ? async (name: string): Promise<void> => {
      const { proxy } = await mw.names.resolveProxy(configServiceInterface, CONFIG_SERVICE_NAME, { timeoutMs: 10_000 });
      await proxy.add_collection(name, '');
    }
  : undefined;
await serveCrawlAdmin(mw, mns, { cluster: cli.cluster, id: cli.id, source, registerCollection, log });
// the crawls configured here are the feeding chain's collections too (a config server whose directory was not kept
// learns them again)
for (const c of registerCollection ? collections : []) {
  registerCollection?.(c.name).catch((err: Error) => log.warn({ collection: c.name, err: err.message }, 'collection not made known to the config server'));
}
announceReady(log, { address: mns.address, collections: collections.map((c) => c.name) });

// SIGHUP: read the configuration files again; collections added, changed or gone are added, updated or removed on
// every node (an invalid file leaves everything as it was)
process.on('SIGHUP', () => {
  let next;
  try {
    next = source.load();
  } catch (err) {
    log.error({ err: (err as Error).message }, 'configuration not reloaded');
    return;
  }
  const changes = reconcile(mns.machine, next);
  log.info(changes, 'configuration reloaded');
});

stopOnSignals(log, async () => {
  await mns.stop();
  await mw.close();
});
