import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsBackend, NatsEndpoints } from './nats-backend';
import { requireNatsServerBinary } from './nats-binary';
import type { NatsServerOptions } from './nats-server-options';
import { spawnGuarded } from './process-guard';

interface PortsFile {
  nats?: string[];
  cluster?: string[];
  monitoring?: string[];
}

const portOf = (url: string) => Number(new URL(url.replace(/^nats(-route)?:/, 'http:')).port);

/**
 * A nats-server process on 127.0.0.1, on ports the server chose itself (read from its ports file).
 * The process is watched by a small shell guard that SIGKILLs it when this process dies for any reason
 * (its stdin closes), so a crashed test run never leaves a server behind.
 */
export class NatsProcess implements NatsBackend {
  readonly storeDir: string;
  private readonly workDir: string;
  private child: ChildProcess | undefined;
  private ports: PortsFile = {};
  private serverPid = 0;
  private release: () => void = () => undefined;
  private guardedPid: Promise<number> = Promise.resolve(-1);
  private readonly opts: NatsServerOptions;

  constructor(opts: NatsServerOptions) {
    this.opts = { ...opts, cluster: opts.cluster && { ...opts.cluster } };
    this.workDir = mkdtempSync(join(tmpdir(), 'esp-nats-'));
    this.storeDir = join(this.workDir, 'js');
  }

  get endpoints(): NatsEndpoints | undefined {
    const nats = this.ports.nats?.[0];
    const monitoring = this.ports.monitoring?.[0];
    if (!nats || !monitoring) return undefined;
    const cluster = this.ports.cluster?.[0];
    return {
      host: '127.0.0.1',
      port: portOf(nats),
      monitorPort: portOf(monitoring),
      routeUrl: cluster ? `nats-route://127.0.0.1:${portOf(cluster)}` : undefined,
    };
  }
  get running(): boolean {
    return this.child !== undefined;
  }
  get pid(): number {
    return this.serverPid;
  }
  get containerId(): undefined {
    return undefined;
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

  async launch(): Promise<void> {
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
    // pin the port and cluster port so that a restart comes back where clients and peers expect it
    const ep = this.endpoints;
    if (ep) this.opts.port = ep.port;
    if (this.opts.cluster && ep?.routeUrl) this.opts.cluster.port = portOf(ep.routeUrl);
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
  }

  async pause(): Promise<void> {
    if (this.serverPid) process.kill(this.serverPid, 'SIGSTOP');
  }
  async resume(): Promise<void> {
    if (this.serverPid) process.kill(this.serverPid, 'SIGCONT');
  }

  async terminate(signal: 'SIGTERM' | 'SIGKILL', timeoutMs: number): Promise<void> {
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

  async cleanup(): Promise<void> {
    await this.terminate('SIGKILL', 5000);
    rmSync(this.workDir, { recursive: true, force: true });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
