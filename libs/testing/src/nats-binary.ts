import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export class NatsServerUnavailableError extends Error {
  override name = 'NatsServerUnavailableError';
}

const INSTALL_HINT =
  'nats-server was not found. Install it with `apt-get install -y nats-server` (Debian/Ubuntu), ' +
  'or set NATS_SERVER_BIN to its path, or run a Docker engine and set ESP_TEST_NATS=container.';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The nats-server binary: NATS_SERVER_BIN, else the PATH, else the Debian package's /usr/sbin/nats-server. */
export function findNatsServerBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env['NATS_SERVER_BIN'];
  if (explicit) return executable(explicit) ? explicit : undefined;
  const dirs = (env['PATH'] ?? '').split(delimiter).filter(Boolean);
  for (const dir of [...dirs, '/usr/sbin', '/usr/local/bin', '/usr/bin']) {
    const candidate = join(dir, 'nats-server');
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

export function requireNatsServerBinary(env: NodeJS.ProcessEnv = process.env): string {
  const bin = findNatsServerBinary(env);
  if (!bin) throw new NatsServerUnavailableError(INSTALL_HINT);
  return bin;
}

export { INSTALL_HINT };
