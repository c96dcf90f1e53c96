/**
 * item-processor: the item processing component of MS-FSDPD. Registers with the content distributor, runs batches
 * through a pipeline of stages, forwards them to the indexer, serves the Status interface over XML-RPC.
 *
 *   nx serve item-processor                                  # NATS_URL or nats://127.0.0.1:4222
 *   tsx apps/item-processor/src/main.ts --pipeline-config pipelines.json --status-port 13410
 *
 * Run as many as you like: each has its own name (default procserver_<host>_<pid>).
 */
import { announceReady, createLogger } from '@esp/logging';
import { parseCli } from './cli';
import { startItemProcessor, type ItemProcessor } from './item-processor';

const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`item-processor: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('item-processor');
let ip: ItemProcessor | undefined;
let stopping = false;
const stop = (why: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ reason: why }, 'stopping');
  void (ip?.stop() ?? Promise.resolve()).then(
    () => process.exit(0),
    (err: unknown) => {
      log.error({ err }, 'stop failed');
      process.exit(1);
    },
  );
};
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => stop(sig));

try {
  ip = await startItemProcessor({
    nats: cli.nats,
    security: cli.security,
    waitForNats: cli.wait,
    name: cli.name,
    host: cli.host,
    statusPort: cli.statusPort,
    statusListen: cli.statusListen,
    pipelineConfig: cli.pipelineConfig,
    configServer: cli.configServer,
    basePort: cli.basePort,
    reregistrationLeaseMs: cli.reregistrationLeaseMs,
    leaseSeconds: cli.leaseSeconds,
    heartbeatMs: cli.heartbeatMs,
    maxDocumentBytes: cli.maxDocumentBytes,
    inlineMaxBytes: cli.inlineMaxBytes,
    onShutdownRequest: () => stop('Status Shutdown'),
    logger: log,
  });
} catch (err) {
  log.fatal({ err: (err as Error).message }, 'cannot start');
  process.exit(1);
}
await ip.whenRegistered();
if (!stopping) announceReady(log, { name: ip.name, status_url: ip.status_url });
