/**
 * feed: the content client CLI. `npm run feed -- --collection news ./corpus` (see --help). Paths are the user's
 * ($INIT_CWD): the process works in the directory the command was typed in.
 */
import { writeFileSync } from 'node:fs';
import { FeedingClient, type DocumentOutcome } from '@esp/content-client';
import { cliStackStarted, homeLine } from '@esp/cli-options';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { SingleBar } from 'cli-progress';
import { parseCli } from './cli';
import { documents } from './document-source';
import { InputTally, peakRssMb } from './input-tally';

const argv = process.argv.slice(2);
// the home and the stack, found before the working directory moves to where the user typed the command
const where = await cliStackStarted(argv, process.env, 'client', 'feed', (m) => process.stderr.write(`feed: ${m}\n`));
process.chdir(where.cwd);
const cli = parseCli(argv, where.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`feed: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}
if (where.kind === 'no-stack') {
  process.stderr.write(`feed: ${where.message}\n`);
  process.exit(1);
}
if (!cli.quiet) process.stderr.write(`feed: ${homeLine(where, cli.nats)}\n`);

const log = createLogger('feed', { collection: cli.collection }, { level: process.env['LOG_LEVEL'] ?? 'warn' });
const mw = await Middleware.connect({
  name: 'feed',
  servers: cli.nats,
  security: cli.security,
  logger: log,
  waitForServerMs: cli.waitForNatsMs,
  onWaiting: (why) => process.stderr.write(`feed: waiting up to ${cli.waitForNatsMs / 1000} s for NATS at ${cli.nats.join(',')} (${why}); --wait-for-nats sets how long\n`),
}).catch((err: Error) => {
  process.stderr.write(`feed: ${err.message}\n`);
  process.exit(1);
});

const failures: { id: string; outcome: DocumentOutcome }[] = [];
const inputs = new InputTally();
let client: FeedingClient;
try {
  client = await FeedingClient.open({
    mw,
    collection: cli.collection,
    log,
    batchSize: cli.batchSize,
    ...(cli.batchBytes ? { batchBytes: cli.batchBytes } : {}),
    inlineMaxBytes: cli.inlineMaxBytes,
    maxDocumentBytes: cli.maxDocumentBytes,
    ...(cli.maxInFlight ? { maxInFlightOps: cli.maxInFlight } : {}),
    limitedResubmits: cli.limitedResubmits,
    maxResubmits: cli.maxResubmits,
    onOutcome: (id, outcome) => {
      if (outcome.kind === 'failed') failures.push({ id, outcome });
    },
  });
} catch (err) {
  process.stderr.write(`feed: cannot open a session on "${cli.collection}": ${(err as Error).message}\n`);
  await mw.close();
  process.exit(1);
}

const started = Date.now();
const tty = Boolean(process.stderr.isTTY) && !cli.quiet;
const bar = tty
  ? new SingleBar({ format: '{bar} {done}/{total} docs | {rate} docs/s | in flight {inflight} | completed {completed} | failed {failed} | lost {lost} | skipped {skipped} | input errors {inputerrors}', hideCursor: true, stream: process.stderr })
  : undefined;
let total = 0;
const render = () => {
  const s = client.snapshot;
  const secs = (Date.now() - started) / 1000;
  const done = s.completed + s.failed;
  const fields = { done, rate: (done / Math.max(secs, 0.001)).toFixed(0), inflight: s.inFlight, completed: s.completed, failed: s.failed, lost: s.lost, skipped: inputs.skippedSummary(), inputerrors: inputs.errorCount };
  if (bar) {
    bar.setTotal(Math.max(total, 1));
    bar.update(done, fields);
  } else if (!cli.quiet) {
    process.stderr.write(`feed: ${done}/${total} docs, ${fields.rate} docs/s, in flight ${s.inFlight}, completed ${s.completed}, failed ${s.failed}, lost ${s.lost}, skipped ${fields.skipped}, input errors ${fields.inputerrors}\n`);
  }
};
bar?.start(1, 0, { done: 0, rate: 0, inflight: 0, completed: 0, failed: 0, lost: 0, skipped: '0', inputerrors: 0 });
const ticker = setInterval(render, tty ? 200 : 5000);

let interrupted = false;
process.on('SIGINT', () => {
  interrupted = true;
  process.stderr.write('\nfeed: interrupted; waiting for the final statuses of what was sent (Ctrl-C again to quit)\n');
  process.once('SIGINT', () => process.exit(130));
});

try {
  for await (const doc of documents(cli.inputs, { onError: inputs.error, onSkip: inputs.skip, includeBinary: cli.includeBinary, maxDocumentBytes: cli.maxDocumentBytes })) {
    if (interrupted) break;
    total++;
    await client.feed(doc);
  }
} catch (err) {
  inputs.error(new Error(`reading input failed: ${(err as Error).message}`));
}
const { stats, unfinished } = await client.drain(cli.timeoutS * 1000);
clearInterval(ticker);
render();
bar?.stop();
await client.close();
await mw.close();

const secs = (Date.now() - started) / 1000;
const report = {
  collection: cli.collection,
  documents: total,
  completed: stats.completed,
  failed: stats.failed,
  unfinished: unfinished.length,
  lost_and_resubmitted: stats.lost,
  resubmitted: stats.resubmitted,
  distributor_failovers: stats.failovers,
  resent_after_failover: stats.resentAfterFailover,
  acknowledged_resent: stats.acknowledgedResent,
  batches: stats.batches,
  seconds: Number(secs.toFixed(2)),
  docs_per_second: Number(((stats.completed + stats.failed) / Math.max(secs, 0.001)).toFixed(1)),
  ...inputs.report(),
  peak_rss_mb: { feed: peakRssMb() },
  failures: failures.map((f) => ({ id: f.id, ...(f.outcome.kind === 'failed' ? { error: f.outcome.error, attempts: f.outcome.attempts } : {}) })),
  unfinished_ids: unfinished,
};
if (cli.report) writeFileSync(cli.report, JSON.stringify(report, null, 2) + '\n');
const out = process.stdout;
out.write(`\n${report.documents} documents in ${report.seconds}s (${report.docs_per_second} docs/s): ${report.completed} completed, ${report.failed} failed, ${report.unfinished} without a final status\n`);
if (stats.failovers) out.write(`the content distributor changed ${stats.failovers} time(s); ${stats.resentAfterFailover} operations without a final status were sent again (same ids; ${stats.acknowledgedResent} of them had been acknowledged)\n`);
if (stats.lost) out.write(`${stats.lost} operations were lost by item processors and resubmitted (${stats.resubmitted} resubmissions)\n`);
for (const f of report.failures.slice(0, 20)) {
  const e = 'error' in f ? f.error : undefined;
  out.write(`  failed ${f.id}: ${e ? `${e.name} (${e.name === e.type ? '' : `${e.type} `}${e.code}) ${e.description}${e.processor ? ` [${e.processor}]` : ''}, suggested action ${e.suggestedAction}` : 'unknown'}\n`);
}
if (report.failures.length > 20) out.write(`  ... and ${report.failures.length - 20} more${cli.report ? ` (see ${cli.report})` : ' (use --report <file>)'}\n`);
if (report.skipped.count) out.write(`skipped ${inputs.skippedSummary(10)}: not fed${cli.includeBinary ? '' : ' (--include-binary sends binary types anyway)'}\n`);
for (const e of report.input_errors.slice(0, 10)) out.write(`  input error: ${e}\n`);
if (report.input_error_count > 10) out.write(`  ... and ${report.input_error_count - 10} more input errors${cli.report ? ` (see ${cli.report})` : ' (use --report <file>)'}\n`);
for (const id of unfinished.slice(0, 10)) out.write(`  no final status: ${id}\n`);
out.write(`peak RSS of feed: ${report.peak_rss_mb.feed} MB\n`);
process.exit(report.failed || report.unfinished || report.input_error_count ? 1 : 0);
