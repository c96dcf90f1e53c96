/**
 * Health check of a service of the stack: exits 0 when every check given passes, 1 otherwise with one line on stderr.
 * docker-compose.yml runs it (built: node dist/tools/launcher/health.js) as each service's healthcheck.
 *
 *   tsx tools/launcher/src/health.ts                                      # the name server answers
 *   tsx tools/launcher/src/health.ts --bound esp/subsystems/indexing/dispatcher
 *   tsx tools/launcher/src/health.ts --xmlrpc http://127.0.0.1:16005/RPC2 --bound fds/configservice
 *   tsx tools/launcher/src/health.ts --processes http://127.0.0.1:16015/RPC2
 *   tsx tools/launcher/src/health.ts --crawl dup/dup1 --cluster default
 */
import { parseArgs } from 'node:util';
import { natsSecurity, stackEnv } from '@esp/cli-options';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { allProcessesRunning, boundAndAnswering, crawlPeerListening, nameServerAnswers, ProbeFailed, xmlRpcAnswers } from './health-probes';

const HELP = `Usage: health [options]

Exits 0 when every check passes, 1 otherwise (one line on stderr). Without a check: the name server answers.

Options:
  --nats <url>          NATS server URL(s) (default: $NATS_URL or nats://127.0.0.1:4222)
  --bound <name>        the name is bound in the name server and every object bound there answers (repeatable)
  --xmlrpc <url>        the XML-RPC server answers ping (repeatable)
  --processes <url>     the node controller at this XML-RPC URL runs every process of its profile
  --crawl <role/id>     the crawl peer (mns/main, ns/node1, dup/dup1) listens on its NATS address (repeatable)
  --cluster <name>      crawl cluster of --crawl (default: default)
  -h, --help            show this help
`;

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        nats: { type: 'string' },
        bound: { type: 'string', multiple: true },
        xmlrpc: { type: 'string', multiple: true },
        processes: { type: 'string' },
        crawl: { type: 'string', multiple: true },
        cluster: { type: 'string', default: 'default' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`health: ${(err as Error).message}\n`);
    process.exit(2);
  }
})();
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const bound = values.bound ?? [];
const crawl = values.crawl ?? [];
const needsBus = bound.length > 0 || crawl.length > 0 || (!values.xmlrpc && !values.processes);
// the stack npm start runs (its stack.json and admin identity), unless the environment says otherwise
const stack = stackEnv(process.env, 'admin', values.nats ? { servers: values.nats } : {});
const security = natsSecurity({}, stack);
const servers = values.nats ?? stack['NATS_URL'] ?? 'nats://127.0.0.1:4222';

async function check(): Promise<void> {
  for (const url of values.xmlrpc ?? []) await xmlRpcAnswers(url);
  if (values.processes) await allProcessesRunning(values.processes);
  if (!needsBus) return;
  const logger = createLogger('health', {}, { level: 'fatal', destination: process.stderr });
  const mw = await Middleware.connect({ name: 'health', servers, logger, timeoutMs: 3000, ...(typeof security === 'string' ? {} : { security }) }).catch((err: Error) => {
    throw new ProbeFailed(`cannot connect to NATS at ${servers}: ${err.message}`);
  });
  try {
    if (bound.length === 0 && crawl.length === 0) await nameServerAnswers(mw);
    for (const name of bound) await boundAndAnswering(mw, name);
    for (const peer of crawl) await crawlPeerListening(mw, values.cluster, peer);
  } finally {
    await mw.close();
  }
}

let code = 0;
try {
  await check();
} catch (err) {
  process.stderr.write(`health: ${(err as Error).message}\n`);
  code = 1;
}
process.exit(code);
