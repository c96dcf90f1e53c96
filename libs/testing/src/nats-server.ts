import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireNatsServerBinary } from './nats-binary';
import { spawnGuarded } from './process-guard';

export interface NatsServerOptions {
  /** JetStream with a store dir that survives restart() (default true). */
  jetstream?: boolean;
  /** Server name (must be unique in a cluster). */
  serverName?: string;
  /** Join or form a cluster: name and the route URLs of the other members. */
  cluster?: { name: string; routes: string[]; port?: number };
  /** Client port; -1 (default) lets the server pick a free one. */
  port?: number;
  /** Extra command-line arguments. */
  args?: string[];
  /** nats-server configuration text (for settings without a flag, e.g. "max_payload: 16MB"). */
  config?: string;
  /** How long to wait for the server to be ready (ms, default 15000). */
  startTimeoutMs?: number;
  /** Don't wait for /healthz (a cluster member is not healthy until its peers are up). */
  deferHealth?: boolean;
}

interface PortsFile {
  nats?: string[];
  cluster?: string[];
  monitoring?: string[];
}

/**
 * A real nats-server process on 127.0.0.1, on a port the server chose itself (read from its ports file).
 *
 *   const ns = await NatsServer.start();           // JetStream on, temp store dir
 *   ... connect to ns.url ...
 *   await ns.restart();                            // same port, same store
 *   await ns.stop();                               // or ns.kill() for a SIGKILL
 *
 * The process is watched by a small shell guard that SIGKILLs it when this process dies for any reason
 * (its stdin closes), so a crashed test run never leaves a server behind.
 */
export class NatsServer {
  readonly storeDir: string;
  private readonly workDir: string;
  private child: ChildProcess | undefined;
  private ports: PortsFile = {};
  private serverPid = 0;
  private release: () => void = () => undefined;
  private guardedPid: Promise<number> = Promise.resolve(-1);
  private opts: NatsServerOptions;

  private constructor(opts: NatsServerOptions) {
    this.opts = { ...opts };
    this.workDir = mkdtempSync(join(tmpdir(), 'esp-nats-'));
    this.storeDir = join(this.workDir, 'js');
  }

  static async start(opts: NatsServerOptions = {}): Promise<NatsServer> {
    const server = new NatsServer(opts);
    try {
      await server.launch();
    } catch (err) {
      await server.cleanup();
      throw err;
    }
    return server;
  }

  /** nats://127.0.0.1:<port> */
  get url(): string {
    const url = this.ports.nats?.[0];
    if (!url) throw new Error('nats-server is not running');
    return url.replace('0.0.0.0', '127.0.0.1');
  }
  get port(): number {
    return Number(new URL(this.url).port);
  }
  /** nats-route://127.0.0.1:<cluster port>, when clustered. */
  get routeUrl(): string | undefined {
    const c = this.ports.cluster?.[0];
    return c ? `nats-route://127.0.0.1:${new URL(c.replace(/^nats(-route)?:/, 'http:')).port}` : undefined;
  }
  get monitorUrl(): string {
    const m = this.ports.monitoring?.[0];
    if (!m) throw new Error('nats-server is not running');
    return m.replace('0.0.0.0', '127.0.0.1');
  }
  get pid(): number {
    return this.serverPid;
  }
  get running(): boolean {
    return this.child !== undefined;
  }
  get serverName(): string | undefined {
    return this.opts.serverName;
  }

  private buildArgs(portsDir: string): string[] {
    const o = this.opts;
    const args = ['-a', '127.0.0.1', '-p', String(o.port ?? -1), '-m', '-1', '--ports_file_dir', portsDir];
    if (o.jetstream ?? true) args.push('-js', '-sd', this.storeDir);
    if (o.serverName) args.push('--server_name', o.serverName);
    if (o.cluster) {
      args.push('--cluster_name', o.cluster.name, '--cluster', `nats://127.0.0.1:${o.cluster.port ?? -1}`);
      if (o.cluster.routes.length) args.push('--routes', o.cluster.routes.join(','));
    }
    if (o.config !== undefined) {
      const file = join(this.workDir, 'nats.conf');
      writeFileSync(file, o.config);
      args.unshift('-c', file);
    }
    args.push(...(o.args ?? []));
    return args;
  }

  private async launch(): Promise<void> {
    const bin = requireNatsServerBinary();
    const portsDir = mkdtempSync(join(this.workDir, 'ports-'));
    const guarded = spawnGuarded(bin, this.buildArgs(portsDir));
    const child = guarded.child;
    this.child = child;
    this.release = guarded.release;
    this.guardedPid = guarded.pid;
    child.stdout?.resume();
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`nats-server exited with code ${code} during start: ${stderr.trim()}`))),
    );
    exited.catch(() => undefined);
    const deadline = Date.now() + (this.opts.startTimeoutMs ?? 15_000);
    // the ports file is written once every listener is up; its name carries the server's own pid
    for (;;) {
      const file = readdirSync(portsDir).find((f) => f.endsWith('.ports'));
      if (file) {
        try {
          this.ports = JSON.parse(readFileSync(join(portsDir, file), 'utf8')) as PortsFile;
          this.serverPid = Number(/_(\d+)\.ports$/.exec(file)?.[1] ?? 0) || (await guarded.pid);
          if (this.ports.nats?.length) break;
        } catch {
          // written but not complete yet
        }
      }
      if (Date.now() > deadline) throw new Error(`nats-server did not start in time: ${stderr.trim()}`);
      await Promise.race([exited, sleep(20)]);
    }
    // pin the port and cluster port so that restart() comes back where clients and peers expect it
    this.opts.port = this.port;
    if (this.opts.cluster && this.routeUrl) this.opts.cluster.port = Number(new URL(this.routeUrl.replace('nats-route:', 'http:')).port);
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    if (!this.opts.deferHealth) await Promise.race([exited, this.waitHealthy(deadline)]);
  }

  /** Waits until /healthz says ok (JetStream ready, meta leader known in a cluster). */
  async waitHealthy(deadline = Date.now() + 15_000): Promise<void> {
    let last = '';
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`${this.monitorUrl}/healthz`);
        last = await res.text();
        if (res.ok) return;
      } catch (err) {
        last = String(err);
      }
      await sleep(50);
    }
    throw new Error(`nats-server at ${this.url} not healthy in time: ${last}`);
  }

  /** Graceful stop (SIGTERM, then SIGKILL after timeoutMs). */
  async stop(timeoutMs = 5000): Promise<void> {
    await this.terminate('SIGTERM', timeoutMs);
  }

  /** SIGKILL: the server gets no chance to flush or say goodbye. */
  async kill(): Promise<void> {
    await this.terminate('SIGKILL', 5000);
  }

  /** SIGSTOP / SIGCONT: the process looks dead to its peers, then comes back. */
  pause(): void {
    if (this.serverPid) process.kill(this.serverPid, 'SIGSTOP');
  }
  resume(): void {
    if (this.serverPid) process.kill(this.serverPid, 'SIGCONT');
  }

  private async terminate(signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
    const child = this.child;
    if (!child) return;
    const done =
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // never signal pid 0 (our own process group): without a pid, closing the guard's stdin kills the server
    if (this.serverPid <= 0) this.serverPid = await this.guardedPid.catch(() => -1);
    if (this.serverPid <= 0) {
      this.release();
      await done;
      this.child = undefined;
      return;
    }
    try {
      process.kill(this.serverPid, 'SIGCONT');
      process.kill(this.serverPid, signal);
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(this.serverPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    await done;
    clearTimeout(timer);
    this.release();
    this.child = undefined;
  }

  /** Stops (gracefully unless hard) and starts again on the same port with the same store. */
  async restart(opts: { hard?: boolean } = {}): Promise<void> {
    if (opts.hard) await this.kill();
    else await this.stop();
    await this.launch();
    if (this.opts.deferHealth) await this.waitHealthy();
  }

  /** Stops the server and removes its files. */
  async cleanup(): Promise<void> {
    await this.kill();
    rmSync(this.workDir, { recursive: true, force: true });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
