/**
 * node-controller: supervises the processes of one node and restarts them on request (MS-FSDPD 3.5.5).
 *
 *   nx serve node-controller --args="--profile node.json"
 *   tsx apps/node-controller/src/main.ts --profile node.json --port 16015 --config-server http://127.0.0.1:16005/RPC2
 *
 * Logs `ready` with `xmlrpc_url` once every process of the profile has been started.
 */
import { resolve } from 'node:path';
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger, writeReadyLine } from '@esp/logging';
import { parseCli } from './cli';
import { registerWithConfigServer } from './config-registration';
import { NODE_CONTROL_STATE_CHANGING, nodeControlMethods } from './node-control-service';
import { NodeSupervisor } from './node-supervisor';
import { loadProfile } from './profile';
import { startXmlRpcHttpServer, XMLRPC_PATH } from '@esp/xmlrpc-http';

// what this process writes (its data, state and logs under the stack's home) is its owner's only (docs/security.md)
process.umask(0o077);
const cli = parseCli(process.argv.slice(2));
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`node-controller: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('node-controller');
let specs;
try {
  specs = loadProfile(cli.profile);
} catch (err) {
  log.fatal({ err: (err as Error).message }, 'cannot start');
  process.exit(2);
}

// each process that becomes ready (a restart included) is told on our own readiness channel too, with its URLs:
// how the launcher learns the item processors' status URLs whatever the log level
const supervisor = new NodeSupervisor(specs, {
  cwd: resolve(cli.cwd),
  log,
  restartDelayMs: cli.restartDelayMs,
  stopTimeoutMs: cli.stopTimeoutMs,
  onReady: (name, fields) => writeReadyLine({ process: name, ...pick(fields, ['pid', 'status_url', 'xmlrpc_url', 'port']) }),
});
let server;
try {
  server = await startXmlRpcHttpServer({ host: cli.listen, port: cli.port, log, dispatch: nodeControlMethods(supervisor), protect: (m) => NODE_CONTROL_STATE_CHANGING.has(m) });
} catch (err) {
  log.fatal({ err: (err as Error).message, port: cli.port }, 'cannot start: XML-RPC port');
  process.exit(1);
}
const advertised = cli.listen === '0.0.0.0' || cli.listen === '::' ? '127.0.0.1' : cli.listen;
const xmlrpcUrl = `http://${advertised}:${server.port}${XMLRPC_PATH}`;

const live: { registration?: ReturnType<typeof registerWithConfigServer> } = {};
stopOnSignals(
  log,
  async () => {
    await live.registration?.stop();
    await supervisor.stopAll();
    await server.close();
    log.info('stopped');
  },
  { message: 'stopping: processes in reverse order' },
);

await supervisor.startAll();
live.registration = cli.configServer ? registerWithConfigServer({ url: cli.configServer, port: server.port, host: cli.advertiseHost, log }) : undefined;
announceReady(log, { xmlrpc_url: xmlrpcUrl, port: server.port, processes: supervisor.names(), config_server: cli.configServer ?? null });

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}
