/**
 * Health check: exits 0 when the name server answers on NATS_URL (or --nats), 1 otherwise, with one line on stderr.
 * (docker-compose.yml checks the services with health.ts.)
 *
 *   tsx tools/launcher/src/ping.ts [--nats nats://nats:4222]
 */
import { parseArgs } from 'node:util';
import { natsSecurity, stackEnv } from '@esp/cli-options';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';

const { values } = parseArgs({ options: { nats: { type: 'string' } } });
// the stack npm start runs (its stack.json and admin identity), unless the environment says otherwise
const stack = stackEnv(process.env, 'admin', values.nats ? { servers: values.nats } : {});
const security = natsSecurity({}, stack);
const servers = values.nats ?? stack['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const logger = createLogger('ping', {}, { level: 'fatal', destination: process.stderr });
let code = 1;
try {
  const mw = await Middleware.connect({ name: 'ping', servers, logger, timeoutMs: 3000, ...(typeof security === 'string' ? {} : { security }) });
  try {
    await mw.names.ping();
    code = 0;
  } catch (err) {
    process.stderr.write(`ping: the name server does not answer on ${servers}: ${(err as Error).message}\n`);
  } finally {
    await mw.close();
  }
} catch (err) {
  process.stderr.write(`ping: cannot connect to NATS at ${servers}: ${(err as Error).message}\n`);
}
process.exit(code);
