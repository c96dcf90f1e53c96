import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
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

/**
 * Where the stack's NATS is: NATS_URL if set; else a server already on 127.0.0.1:4222; else a nats-server we start
 * with JetStream in dataDir (kept across runs, so bindings and data survive a restart of the stack).
 */
export async function ensureNats(env: NodeJS.ProcessEnv, dataDir: string): Promise<NatsEndpoint> {
  if (env['NATS_URL']) return { url: env['NATS_URL'], source: 'NATS_URL' };
  if (await reachable('127.0.0.1', 4222)) return { url: 'nats://127.0.0.1:4222', source: 'local' };
  const bin = findNatsServer(env);
  if (!bin) throw new Error(INSTALL_HINT);
  mkdirSync(dataDir, { recursive: true });
  // own process group: a Ctrl-C in the terminal must not stop NATS before the apps have drained (the launcher stops it last)
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', '4222', '-js', '-sd', dataDir], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nats-server exited at start: ${stderr.trim()}`);
    if (await reachable('127.0.0.1', 4222)) return { url: 'nats://127.0.0.1:4222', started: child, source: 'started' };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`nats-server did not start listening on 127.0.0.1:4222: ${stderr.trim()}`);
}
