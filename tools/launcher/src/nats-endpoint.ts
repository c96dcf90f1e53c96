import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, join } from 'node:path';

export const INSTALL_HINT = 'nats-server is not installed: run `apt-get install -y nats-server` (Debian/Ubuntu) or set NATS_URL to a running server.';

/** True when something accepts TCP connections at host:port (a NATS server, we assume; the client will tell). */
export function reachable(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, host);
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

export function findNatsServer(env: NodeJS.ProcessEnv): string | undefined {
  const dirs = [...(env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/usr/local/bin'].filter(Boolean);
  for (const d of dirs) {
    try {
      accessSync(join(d, 'nats-server'), constants.X_OK);
      return join(d, 'nats-server');
    } catch {
      // next
    }
  }
  return undefined;
}

export type NatsEndpoint = { url: string; started?: ChildProcess; source: 'NATS_URL' | 'local' | 'started' };

/** "2.9.10" from `nats-server --version` ("nats-server: v2.9.10"); "0.0.0" when it does not say. */
export function natsServerVersion(bin: string): string {
  try {
    return /v?(\d+\.\d+\.\d+\S*)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 5000 }))?.[1] ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** nats-server could not listen on its port: something else holds it. */
export class NatsPortInUse extends Error {
  override name = 'NatsPortInUse';
  readonly code = 'nats_port_in_use';
}

/**
 * Starts nats-server on 127.0.0.1:`port` and resolves once it says it is ready. Its own words, not a connect to the
 * port: another server that took the port first (a second stack starting at the same moment) answers there too, and
 * must not be taken for ours.
 */
export async function startNatsServer(bin: string, args: string[], port: number, dataDir: string, timeoutMs = 10_000): Promise<ChildProcess> {
  // own process group: a Ctrl-C in the terminal must not stop NATS before the apps have drained (the launcher stops it last)
  const child = spawn(bin, [...args, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dataDir], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nats-server did not start listening on 127.0.0.1:${port}: ${stderr.trim()}`));
    }, timeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      const text = stderr + d.toString();
      stderr = text.slice(-2000);
      if (text.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      const message = `nats-server exited at start: ${stderr.trim()}`;
      reject(/address already in use/.test(stderr) ? new NatsPortInUse(message) : new Error(message));
    });
  });
  return child;
}

/**
 * Where the stack's NATS is: NATS_URL if set; else, unless `secured`, a server already on 127.0.0.1:4222; else a
 * nats-server we start with JetStream in dataDir (kept across runs, so bindings and data survive a restart of the
 * stack). `secured` writes the server's configuration for its version and returns the file: the server started
 * then runs with it, on 4222 or, when something else listens there, on a free port (an open server that happens
 * to run there is never used in its place).
 */
export async function ensureNats(env: NodeJS.ProcessEnv, dataDir: string, secured?: (serverVersion: string) => string): Promise<NatsEndpoint> {
  if (env['NATS_URL']) return { url: env['NATS_URL'], source: 'NATS_URL' };
  const taken = await reachable('127.0.0.1', 4222);
  if (taken && !secured) return { url: 'nats://127.0.0.1:4222', source: 'local' };
  const bin = findNatsServer(env);
  if (!bin) throw new Error(INSTALL_HINT);
  mkdirSync(dataDir, { recursive: true });
  const config = secured ? ['-c', secured(natsServerVersion(bin))] : [];
  let port = taken ? await freePort() : 4222;
  try {
    return { url: `nats://127.0.0.1:${port}`, started: await startNatsServer(bin, config, port, dataDir), source: 'started' };
  } catch (err) {
    // 4222 was free when we looked and taken when the server bound it: another stack started at the same moment
    if (!(err instanceof NatsPortInUse) || taken) throw err;
    port = await freePort();
    return { url: `nats://127.0.0.1:${port}`, started: await startNatsServer(bin, config, port, dataDir), source: 'started' };
  }
}
