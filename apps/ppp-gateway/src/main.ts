/**
 * ppp-gateway: ZeroMQ Paranoid Pirate peers (RFC 6) in a PPP queue on NATS.
 *
 *   nx serve ppp-gateway
 *   tsx apps/ppp-gateway/src/main.ts --service echo --frontend tcp://*:5555 --backend tcp://*:5556 --queue
 *   python3 ppworker.py tcp://localhost:5556     # a ZeroMQ Guide worker now serves NATS clients of "echo"
 */
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { PppQueue } from '@esp/ppp';
import { parseCli } from './cli';
import { CurveKeyError, loadClientKeys, loadOrCreateKeyPair } from './curve-keys';
import { startGateway } from './gateway';

// what this process writes (its data, state and logs under the stack's home) is its owner's only (docs/security.md)
process.umask(0o077);
const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`ppp-gateway: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('ppp-gateway', { service: cli.service });
const mw = await Middleware.connect({ name: 'ppp-gateway', servers: cli.nats, security: cli.security, logger: log }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot start');
  process.exit(1);
});
let curve;
try {
  if (cli.curveKey !== undefined) {
    const { keys, created } = loadOrCreateKeyPair(cli.curveKey);
    curve = { keys, clients: cli.curveClients === undefined ? undefined : loadClientKeys(cli.curveClients) };
    log.info({ key_file: cli.curveKey, created, public_key: keys.publicKey, clients: curve.clients?.size ?? 'any' }, 'CURVE on');
  }
} catch (err) {
  if (!(err instanceof CurveKeyError)) throw err;
  log.fatal({ err: err.message }, 'cannot start');
  await mw.close();
  process.exit(2);
}
const queue = cli.queue ? await PppQueue.start(mw.bus, { service: cli.service, heartbeatMs: cli.heartbeatMs, liveness: cli.liveness, log }) : undefined;
const gateway = await startGateway(mw.bus, { ...cli, curve, log }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot bind the ZeroMQ endpoints');
  process.exit(1);
});
announceReady(log, { frontend: gateway.frontend, backend: gateway.backend, nats: cli.nats, queue: cli.queue, heartbeatMs: cli.heartbeatMs, liveness: cli.liveness });

stopOnSignals(log, async () => {
  await gateway.stop();
  await queue?.stop();
  await mw.close();
});
