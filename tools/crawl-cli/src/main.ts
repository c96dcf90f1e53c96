/**
 * crawl: crawl web sites into a collection, and command a running crawl, through the multinode scheduler's admin
 * API (crawl::admin on the crawl cluster's admin subject; nothing but NATS is needed).
 *
 *   npm run crawl -- --collection web http://www.example.com/
 *   npm run crawl -- status --collection web --json
 *   npm run crawl -- suspend --collection web
 *   npm run crawl -- delete --collection web
 *   npm run crawl -- --help
 */
import { cliStackStarted, homeLine } from '@esp/cli-options';
import { crawlAdminAor, crawlAdminSubject } from '@esp/crawl-bus';
import { crawlAdminInterface, type CrawlStatus, type ProxyOf } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware, ObjectNotExist } from '@esp/middleware';
import { parseCli, type Plan } from './cli';
import { activity, heldText, nothingFetched, progressLine, reasons, summaryJson, summaryText } from './report';

// the operator's identity of the stack npm start runs, unless flags or the environment give credentials
const argv = process.argv.slice(2);
const where = await cliStackStarted(argv, process.env, 'admin', 'crawl', (m) => process.stderr.write(`crawl: ${m}\n`));
process.chdir(where.cwd);
const cli = parseCli(argv, where.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`crawl: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}
if (where.kind === 'no-stack') {
  process.stderr.write(`crawl: ${where.message}\n`);
  process.exit(1);
}
const plan: Plan = cli.plan;
const logger = createLogger('crawl-cli', {}, { level: process.env['LOG_LEVEL'] ?? 'error', destination: process.stderr });
const say = (line: string) => {
  if (!plan.quiet) process.stderr.write(`${line}\n`);
};
say(`crawl: ${homeLine(where, plan.nats)}`);
const out = (st: CrawlStatus, elapsedMs?: number) => process.stdout.write(plan.json ? JSON.stringify(summaryJson(st, elapsedMs)) + '\n' : summaryText(st, elapsedMs));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Lines that changed since they were last said (per key), at most one per key every `everyMs`. */
function changes(everyMs: number): (key: string, line: string) => void {
  const said = new Map<string, { line: string; at: number }>();
  return (key, line) => {
    const last = said.get(key);
    if (last && (last.line === line || Date.now() - last.at < everyMs)) return;
    said.set(key, { line, at: Date.now() });
    say(line);
  };
}

async function waitDone(admin: ProxyOf<typeof crawlAdminInterface>, collection: string, timeoutMs: number | undefined, giveUpAfterMs: number | undefined): Promise<number> {
  const started = Date.now();
  let last = '';
  let lastAt = 0;
  let seen = '';
  let seenAt = Date.now();
  const siteLine = changes(5000);
  for (;;) {
    const [st] = await admin.status(collection);
    if (!st) throw new Error(`the scheduler reports nothing of collection "${collection}"`);
    const line = progressLine(st);
    // a line when something changed, and one every 10 s regardless (still alive)
    if (line !== last || Date.now() - lastAt > 10_000) {
      say(line);
      last = line;
      lastAt = Date.now();
    }
    // why a site waits (robots.txt unreachable...) and its fetch errors, when they change
    for (const s of st.sites) {
      if (s.held) siteLine(`${s.site} held`, `crawl ${collection}: ${s.site} held back: ${heldText(s)}`);
      if (s.last_error) siteLine(`${s.site} error`, `crawl ${collection}: ${s.site} fetch failed: ${s.last_error}${s.errors && s.errors > 1 ? ` (${s.errors} errors)` : ''}`);
    }
    if (st.done) {
      out(st, Date.now() - started);
      if (!nothingFetched(st)) return 0;
      process.stderr.write(`crawl: nothing could be fetched${reasons(st).map((r) => `\n  ${r}`).join('')}\n`);
      return 4;
    }
    const now = activity(st);
    if (now !== seen) {
      seen = now;
      seenAt = Date.now();
    } else if (giveUpAfterMs !== undefined && Date.now() - seenAt >= giveUpAfterMs) {
      // nothing fetched, failed or excluded for that long: the crawl is suspended rather than left retrying
      await admin.command(collection, { kind: 'suspend' });
      out(st);
      const why = reasons(st);
      process.stderr.write(
        `crawl: gave up: nothing fetched for ${giveUpAfterMs / 1000} s (--give-up-after)${why.length ? why.map((r) => `\n  ${r}`).join('') : ''}\n` +
          `the crawl of ${collection} is suspended: npm run crawl -- resume --collection ${collection} tries again, npm run crawl -- delete --collection ${collection} deletes it\n`,
      );
      return 4;
    }
    if (timeoutMs !== undefined && Date.now() - started > timeoutMs) {
      out(st);
      process.stderr.write(`crawl: not done after ${timeoutMs / 1000} s; the crawl goes on (npm run crawl -- status --collection ${collection})\n`);
      return 3;
    }
    await sleep(500);
  }
}

async function run(): Promise<number> {
  let mw: Middleware;
  try {
    mw = await Middleware.connect({
      name: 'crawl-cli',
      servers: plan.nats,
      security: plan.security,
      logger,
      timeoutMs: 30_000,
      waitForServerMs: plan.waitForNatsMs,
      onWaiting: (why) => process.stderr.write(`crawl: waiting up to ${plan.waitForNatsMs / 1000} s for NATS at ${plan.nats.join(',')} (${why}); --wait-for-nats sets how long\n`),
    });
  } catch (err) {
    process.stderr.write(`crawl: ${(err as Error).message} (is the stack running? npm start)\n`);
    return 1;
  }
  const peer = { cluster: plan.cluster, id: plan.mns };
  const subject = crawlAdminSubject(peer);
  const admin = mw.proxyAt(subject, crawlAdminInterface, crawlAdminAor(peer, 'crawl-cli'));
  try {
    switch (plan.action) {
      case 'crawl': {
        const r = await admin.set_crawl(plan.spec);
        say(
          `crawl ${r.created ? 'created' : 'updated'}: ${plan.spec.collection} from ${plan.spec.start_uris.join(' ')}` +
            ` (scope ${[...r.include.prefix, ...r.include.suffix.map((s) => `*${s}`), ...r.include.exact, ...r.include.regexp.map((x) => `/${x}/`)].join(' ')}; delay ${plan.spec.delay_s} s` +
            `${r.registered ? '; collection known to the feeding chain' : ''}${r.file ? `; ${r.file}` : ''})`,
        );
        if (!r.created) {
          // crawling again is meant to crawl: a crawl suspended (by hand, or by a command that gave up) goes on
          const [before] = await admin.status(plan.spec.collection);
          if (before?.state === 'suspended_by_user') {
            await admin.command(plan.spec.collection, { kind: 'resume' });
            say(`crawl ${plan.spec.collection} was suspended: resumed`);
          }
        }
        if (!plan.wait) {
          process.stdout.write(plan.json ? JSON.stringify(r) + '\n' : `crawl of ${r.collection} ${r.created ? 'created' : 'updated'}; follow it with: npm run crawl -- status --collection ${r.collection}\n`);
          return 0;
        }
        const collection = plan.spec.collection;
        process.once('SIGINT', () => {
          process.stderr.write(`\ncrawl: stopped waiting; the crawl of ${collection} goes on in the stack (npm run crawl -- status|suspend|delete --collection ${collection})\n`);
          process.exit(130);
        });
        return await waitDone(admin, collection, plan.timeoutMs, plan.giveUpAfterMs);
      }
      case 'status': {
        const all = await admin.status(plan.collection);
        if (plan.json) process.stdout.write(JSON.stringify(all.map((st) => summaryJson(st, undefined))) + '\n');
        else process.stdout.write(all.length ? all.map((st) => summaryText(st, undefined)).join('') : 'no crawl\n');
        return 0;
      }
      case 'command': {
        const r = await admin.command(plan.collection, plan.command);
        process.stdout.write(plan.json ? JSON.stringify(r) + '\n' : `${plan.command.kind.replace('_', '-')} ${plan.collection}: ${r.message} sent to ${r.nodes} node${r.nodes === 1 ? '' : 's'}\n`);
        if (plan.command.kind === 'delete') say(`the crawl of ${plan.collection} is deleted; its nodes remove the documents it fed from the index`);
        return 0;
      }
    }
  } catch (err) {
    const e = err as Error & { code?: string };
    const why = err instanceof ObjectNotExist ? `no multinode scheduler answers at ${subject} (is the stack running? npm start)` : e.message;
    process.stderr.write(`crawl: ${why}${e.code ? ` [${e.code}]` : ''}\n`);
    return 1;
  } finally {
    await mw.close();
  }
}

process.exitCode = await run();
