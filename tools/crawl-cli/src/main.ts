/**
 * crawl: crawl web sites into a collection, and command a running crawl, through the multinode scheduler's admin
 * API (crawl::admin on the crawl cluster's admin subject; nothing but NATS is needed).
 *
 *   npm run crawl -- --collection web http://www.example.com/
 *   npm run crawl -- status --collection web --json
 *   npm run crawl -- suspend --collection web
 *   npm run crawl -- --help
 */
import { stackEnv } from '@esp/cli-options';
import { crawlAdminAor, crawlAdminSubject } from '@esp/crawl-bus';
import { crawlAdminInterface, type CrawlStatus, type ProxyOf } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware, ObjectNotExist } from '@esp/middleware';
import { parseCli, type Plan } from './cli';
import { progressLine, summaryJson, summaryText } from './report';

// the operator's identity of the stack npm start runs, unless flags or the environment give credentials
const cli = parseCli(process.argv.slice(2), stackEnv(process.env, 'admin', { argv: process.argv.slice(2) }));
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`crawl: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}
const plan: Plan = cli.plan;
const logger = createLogger('crawl-cli', {}, { level: process.env['LOG_LEVEL'] ?? 'error', destination: process.stderr });
const say = (line: string) => {
  if (!plan.quiet) process.stderr.write(`${line}\n`);
};
const out = (st: CrawlStatus, elapsedMs?: number) => process.stdout.write(plan.json ? JSON.stringify(summaryJson(st, elapsedMs)) + '\n' : summaryText(st, elapsedMs));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitDone(admin: ProxyOf<typeof crawlAdminInterface>, collection: string, timeoutMs: number | undefined): Promise<number> {
  const started = Date.now();
  let last = '';
  let lastAt = 0;
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
    if (st.done) {
      out(st, Date.now() - started);
      return 0;
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
    mw = await Middleware.connect({ name: 'crawl-cli', servers: plan.nats, security: plan.security, logger, timeoutMs: 30_000 });
  } catch (err) {
    process.stderr.write(`crawl: cannot connect to NATS at ${plan.nats.join(',')}: ${(err as Error).message} (is the stack running? npm start)\n`);
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
        if (!plan.wait) {
          process.stdout.write(plan.json ? JSON.stringify(r) + '\n' : `crawl of ${r.collection} ${r.created ? 'created' : 'updated'}; follow it with: npm run crawl -- status --collection ${r.collection}\n`);
          return 0;
        }
        return await waitDone(admin, plan.spec.collection, plan.timeoutMs);
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
