/**
 * config-server: configservice::config 5.2 at "fds/configservice", plus the XML-RPC module registry and config files
 * (MS-FSDPD 3.5.5, 3.7.4.3, 3.7.6).
 *
 *   nx serve config-server
 *   tsx apps/config-server/src/main.ts --port 16005 --config-dir ./config
 *
 * Logs `ready` with `xmlrpc_url` once bound.
 */
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { parseCli } from './cli';
import { CONFIG_STATE_CHANGING, ConfigServer } from './config-server';
import { startXmlRpcHttpServer, XMLRPC_PATH } from '@esp/xmlrpc-http';

// what this process writes (its data, state and logs under the stack's home) is its owner's only (docs/security.md)
process.umask(0o077);
const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`config-server: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('config-server');
let config: ConfigServer;
try {
  config = new ConfigServer({ log, configDir: cli.configDir, maxModules: cli.maxModules, moduleTtlMs: cli.moduleTtlS * 1000 });
} catch (err) {
  log.fatal({ err: (err as Error).message }, 'cannot start: configuration');
  process.exit(2);
}
const mw = await Middleware.connect({ name: 'config-server', servers: cli.nats, security: cli.security, logger: log, waitForServer: cli.wait }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot start');
  process.exit(1);
});
let server;
try {
  server = await startXmlRpcHttpServer({ host: cli.listen, port: cli.port, log, dispatch: config.xmlRpc(), protect: (m) => CONFIG_STATE_CHANGING.has(m) });
  await config.serve(mw, server.port);
} catch (err) {
  log.fatal({ err: (err as Error).message }, 'cannot start');
  await mw.close();
  process.exit(1);
}
const advertised = cli.listen === '0.0.0.0' || cli.listen === '::' ? '127.0.0.1' : cli.listen;
announceReady(log, { xmlrpc_url: `http://${advertised}:${server.port}${XMLRPC_PATH}`, port: server.port, listen: cli.listen, collections: config.collectionNames, pipelines: config.pipelineNames });

process.on('SIGHUP', () => {
  config.reload().catch((err: Error) => log.error({ err: err.message }, 'reload refused; the previous configuration stays'));
});
stopOnSignals(log, async () => {
  await config.unbind(mw);
  await server.close();
  await mw.close();
});
