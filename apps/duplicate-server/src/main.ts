/**
 * duplicate-server: MS-FSCMT checksum de-duplication for the crawl cluster, with an optional replica.
 *
 *   nx serve duplicate-server -- --id dup1r --data .esp/dup1r                 # the replica
 *   tsx apps/duplicate-server/src/main.ts --id dup1 --data .esp/dup1 --replica dup1r
 */
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { parseCli } from './cli';
import { startDuplicateServer } from './duplicate-server';

// what this process writes (its data, state and logs under the stack's home) is its owner's only (docs/security.md)
process.umask(0o077);
const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`duplicate-server: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('duplicate-server', { id: cli.id, cluster: cli.cluster });
const mw = await Middleware.connect({ name: 'duplicate-server', servers: cli.nats, security: cli.security, logger: log }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot connect to NATS');
  process.exit(1);
});
const server = await startDuplicateServer(mw.bus, { ...cli, log }).catch((err: Error) => {
  log.fatal({ err: err.message, data: cli.dataDir }, 'cannot open the checksum store');
  process.exit(1);
});
announceReady(log, { address: server.address, replica: cli.replica, data: cli.dataDir, collections: server.machine.collectionNames() });

stopOnSignals(
  log,
  async () => {
    await server.stop();
    await mw.close();
  },
  { fields: () => ({ stats: server.machine.stats }) },
);
