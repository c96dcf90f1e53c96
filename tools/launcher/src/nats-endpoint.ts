import { execFileSync, spawn } from 'node:child_process';
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

export type NatsEndpoint = { url: string; started?: StartedNats; source: 'NATS_URL' | 'local' | 'started' };

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
 * The guard of our nats-server: it SIGTERMs the server (SIGKILL 10 s later) when the guard's stdin, a pipe from the
 * launcher, closes, that is when the launcher dies, even by SIGKILL: a server left running on the home's store
 * while the next launcher starts another one on it would corrupt the store. The guard writes the server's pid as
 * its first stderr line.
 */
const NATS_GUARD = `exec 3<&0; "$0" "$@" </dev/null 3<&- & c=$!; echo "guard-pid $c" >&2; (cat <&3 >/dev/null; kill -TERM $c 2>/dev/null; sleep 10; kill -9 $c 2>/dev/null) & w=$!; exec 3<&-; wait $c; s=$?; kill $w 2>/dev/null; exit $s`;

/** A nats-server started here, under its guard. */
export interface StartedNats {
  /** The server's own pid. */
  readonly pid: number;
  readonly exited: Promise<void>;
  /** SIGTERM (the server shuts down cleanly, its store flushed); resolves once it has exited. */
  stop(): Promise<void>;
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>;
}

/**
 * Starts nats-server on 127.0.0.1:`port` and resolves once it says it is ready. Its own words, not a connect to the
 * port: another server that took the port first (a second stack starting at the same moment) answers there too, and
 * must not be taken for ours.
 */
export async function startNatsServer(bin: string, args: string[], port: number, dataDir: string, timeoutMs = 10_000): Promise<StartedNats> {
  // own process group: a Ctrl-C in the terminal must not stop NATS before the apps have drained (the launcher stops it last)
  const child = spawn('/bin/sh', ['-c', NATS_GUARD, bin, ...args, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dataDir], { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
  child.stdin?.on('error', () => undefined);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let stderr = '';
  let pid = 0;
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (pid) process.kill(pid, sig);
    } catch {
      // gone
    }
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal('SIGKILL');
      reject(new Error(`nats-server did not start listening on 127.0.0.1:${port}: ${stderr.trim()}`));
    }, timeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      let text = stderr + d.toString();
      if (!pid) {
        const m = /^guard-pid (\d+)\n/.exec(text);
        if (m) {
          pid = Number(m[1]);
          text = text.slice(m[0].length);
        }
      }
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
  return {
    pid,
    exited,
    stop: () => (signal('SIGTERM'), exited),
    kill: () => (signal('SIGKILL'), exited),
  };
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
