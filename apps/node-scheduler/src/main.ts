/**
 * node-scheduler: crawls the sites the multinode scheduler routes to it (MS-FSCMT 3.1).
 *
 *   nx serve node-scheduler -- --id node1 --dup dup1
 *   tsx apps/node-scheduler/src/main.ts --id node1 --mns main --dup dup1 --cluster default
 */
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { parseCli } from './cli';
import { startNodeScheduler } from './node-scheduler';
import { WarcWriter } from './warc-writer';
import { warmUp } from './warm-up';

// what this process writes (its data, state and logs under the stack's home) is its owner's only (docs/security.md)
process.umask(0o077);
const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`node-scheduler: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('node-scheduler', { id: cli.nodeId, cluster: cli.cluster });
// before registering: the first pages of every site would otherwise wait while V8 compiles the page path
const warm = await warmUp().catch((err: Error) => {
  // only a head start: a node scheduler that cannot warm up (no loopback listener allowed, say) still crawls
  log.warn({ err: err.message }, 'warm-up failed');
  return { ms: 0 };
});
log.info({ ms: Math.round(warm.ms) }, 'per-page code paths warmed up');
const mw = await Middleware.connect({ name: 'node-scheduler', servers: cli.nats, security: cli.security, logger: log }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot connect to NATS');
  process.exit(1);
});
const warc = cli.warc === undefined ? undefined : await WarcWriter.open({ dir: cli.warc, prefix: cli.nodeId, maxFileBytes: cli.warcMaxBytes, log });
const ns = await startNodeScheduler(mw, { ...cli, archive: warc, log });
announceReady(log, { address: ns.address, mns: cli.mns, dup: cli.dup, feed: cli.feed, warc: cli.warc, dataDir: cli.dataDir });

// a line per collection every 2 s while crawling: what tests and operators watch
const progress = setInterval(() => {
  for (const c of ns.machine.collectionNames()) {
    log.info({ collection: c, ...ns.machine.stats(c), idle: ns.machine.idle, inFlight: ns.crawler.inFlight }, 'crawl progress');
  }
}, 2000);
progress.unref();

stopOnSignals(log, async () => {
  await ns.stop();
  await warc?.close();
  await mw.close();
});
