/**
 * content-distributor: feeding sessions in, batches to item processors (MS-FSDPD 3.3, 3.5; MS-FSCDFT 3.3, 3.5).
 *
 *   nx serve content-distributor
 *   tsx apps/content-distributor/src/main.ts --collections news,web --lease-seconds 300
 *   tsx apps/content-distributor/src/main.ts --node-id 1 --ping-interval-ms 1000   # a second one: backup, takes over
 */
import { stopOnSignals, useNonIncrementalMarking } from '@esp/cli-options';
import { keepEncodedForms, OperationSet } from '@esp/codecs';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { BATCH_KEY_ENV, BatchSigner, CONFIG_SERVICE_NAME, configServiceInterface } from '@esp/interfaces';
import { parseCli } from './cli';
import { ConfigServiceCollections } from './collection-holder';
import { ContentDistributor } from './content-distributor';
import { restartThroughNodeController } from './node-controller-restart';

const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`content-distributor: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

// batches pass through a small heap: full collections in single pauses, not started ahead by V8's incremental
// marking, which in this process ran one every 15-20 batches (@esp/cli-options gc-mode)
useNonIncrementalMarking();

// a client's batch goes to an item processor as it came: re-encoding it would walk its 100 documents again for the
// same bytes. The distributor only reads the batches it decodes (ids, for its holders), so it may send them as they came.
keepEncodedForms(OperationSet);

const log = createLogger('content-distributor', { node: cli.nodeId });
log.debug('garbage collection: full collections without incremental marking');
let batchSigner: BatchSigner | undefined;
try {
  batchSigner = BatchSigner.fromFile(process.env[BATCH_KEY_ENV]);
} catch (err) {
  log.fatal({ err: (err as Error).message, code: 'batch_key' }, 'cannot start');
  process.exit(1);
}
const mw = await Middleware.connect({ name: `content-distributor-${cli.nodeId}`, servers: cli.nats, security: cli.security, logger: log, waitForServer: cli.wait }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot start');
  process.exit(1);
});
let cd: ContentDistributor;
try {
  cd = await ContentDistributor.start({
    mw,
    log,
    nodeId: cli.nodeId,
    basePort: cli.basePort,
    batchSigner,
    collections: cli.collections,
    collectionHolder: cli.configService
      ? new ConfigServiceCollections({
          fetch: async () => {
            const { proxy } = await mw.names.resolveProxy(configServiceInterface, CONFIG_SERVICE_NAME, { timeoutMs: 5000 });
            return (await proxy.get_collections()).map((c) => c.name);
          },
          always: cli.collections,
          log,
        })
      : undefined,
    leaseMs: cli.leaseSeconds * 1000,
    heartbeatMs: cli.heartbeatMs,
    liveness: cli.liveness,
    goneProbe: cli.goneProbe,
    pingIntervalMs: cli.pingIntervalMs,
    checkMasterMs: cli.checkMasterMs,
    quota: { perClient: { sessions: cli.clientMaxSessions, bytes_in_flight: cli.clientMaxBytesInFlight }, global: { sessions: cli.maxSessions } },
    sessionIdleMs: cli.sessionIdleMs,
    ...(cli.sessionReplication ? { sessionReplication: { inFlightTimerMs: cli.sessionTimerMs } } : {}),
    // MS-FSDPD 3.5.5: restart the unresponsive item processor (Lease Timeout, or declared dead by PPP liveness)
    // through the node controller of its node
    onLeaseExpired: async (p) => {
      await restartThroughNodeController(mw, p, { log });
    },
  });
} catch (err) {
  log.fatal({ err: (err as Error).message }, 'cannot start');
  await mw.close();
  process.exit(1);
}
announceReady(log, { port: cd.port, collections: cli.configService ? `config server (${CONFIG_SERVICE_NAME})` : cli.collections, role: cd.role });

stopOnSignals(
  log,
  async () => {
    await cd.stop();
    await mw.close();
  },
  { message: 'stopping: finishing batches in flight' },
);
