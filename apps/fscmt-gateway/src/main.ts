/**
 * fscmt-gateway: MS-FSCMT TCP peers in the NATS crawl cluster.
 *
 *   nx serve fscmt-gateway -- --listen 127.0.0.1:13000=mns/main --listen 127.0.0.1:13001=dup/dup1
 *   python3 my_node_scheduler.py 127.0.0.1 13000      # a socket + marshal node scheduler joins the crawl
 */
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { parseCli } from './cli';
import { startGateway } from './gateway';

const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`fscmt-gateway: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('fscmt-gateway', { id: cli.id, cluster: cli.cluster });
const mw = await Middleware.connect({ name: 'fscmt-gateway', servers: cli.nats, security: cli.security, logger: log }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot connect to NATS');
  process.exit(1);
});
const gateway = await startGateway(mw.bus, { ...cli, log }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot start the listeners');
  process.exit(1);
});
announceReady(log, { listeners: gateway.listeners, connect: cli.connect.map((c) => `${c.host}:${c.port}`) });

stopOnSignals(log, async () => {
  await gateway.stop();
  await mw.close();
});
