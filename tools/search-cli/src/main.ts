/**
 * search: full-text search of a collection through the indexer's indexing::search interface.
 *
 *   npm run -s search -- "storm north sea" --collection news --limit 5
 *   npm run -s search -- 'wind*' --json | jq '.hits[].id'
 *   npm run -s search -- --help
 */
import { INDEX_SEARCH_NAME, ResolveException, searchInterface } from '@esp/interfaces';
import { cliStackStarted, homeLine } from '@esp/cli-options';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { formatJson, formatText, parseCli } from './cli';

const argv = process.argv.slice(2);
const where = await cliStackStarted(argv, process.env, 'client', 'search', (m) => process.stderr.write(`search: ${m}\n`));
process.chdir(where.cwd);
const cli = parseCli(argv, where.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`search: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}
if (where.kind === 'no-stack') {
  process.stderr.write(`search: ${where.message}\n`);
  process.exit(1);
}
// which home: only when asked (a search's stderr stays quiet for scripts), and in the errors below
if (cli.verbose) process.stderr.write(`search: ${homeLine(where, cli.nats)}\n`);

// the middleware's own log lines go to stderr, and only when something is wrong
const logger = createLogger('search-cli', {}, { level: process.env['LOG_LEVEL'] ?? 'error', destination: process.stderr });

async function run(): Promise<number> {
  if (cli.kind !== 'run') return 2;
  let mw: Middleware;
  try {
    mw = await Middleware.connect({
      name: 'search-cli',
      servers: cli.nats,
      security: cli.security,
      logger,
      timeoutMs: 10_000,
      waitForServerMs: cli.waitForNatsMs,
      onWaiting: (why) => process.stderr.write(`search: waiting up to ${cli.waitForNatsMs / 1000} s for NATS at ${cli.nats.join(',')} (${why}); --wait-for-nats sets how long\n`),
    });
  } catch (err) {
    process.stderr.write(`search: ${(err as Error).message} (${where.kind === 'stack' ? homeLine(where, cli.nats) : ''})\n`);
    return 1;
  }
  try {
    const { proxy } = await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    const r = await proxy.search(cli.collection, cli.query, cli.limit, cli.offset);
    process.stdout.write(cli.json ? formatJson(cli, r) : formatText(cli, r));
    return 0;
  } catch (err) {
    const e = err as Error & { code?: string };
    const why = err instanceof ResolveException ? `no indexer is bound at ${INDEX_SEARCH_NAME} (is the indexer running?)` : e.message;
    process.stderr.write(`search: ${why}${e.code ? ` [${e.code}]` : ''}\n`);
    return 1;
  } finally {
    await mw.close();
  }
}

process.exitCode = await run();
