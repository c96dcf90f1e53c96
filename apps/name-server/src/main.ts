/**
 * name-server: MS-FSMW bind / resolve / unbind / list on NATS, bindings in JetStream KV.
 *
 *   nx serve name-server                      # NATS_URL or nats://127.0.0.1:4222
 *   tsx apps/name-server/src/main.ts --nats nats://10.0.0.5:4222 --replicas 3
 *
 * Run as many instances as you like: they share one queue group and one bucket.
 */
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware, serveNameServer } from '@esp/middleware';
import { parseCli } from './cli';

const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`name-server: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('name-server');
const mw = await Middleware.connect({ name: 'name-server', servers: cli.nats, security: cli.security, logger: log, waitForServer: cli.wait }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot start');
  process.exit(1);
});
await serveNameServer(mw, { replicas: cli.replicas, clear: cli.clearBindings });
announceReady(log, { nats: cli.nats, replicas: cli.replicas });

stopOnSignals(log, () => mw.close(), { message: 'stopping: draining calls in flight' });
