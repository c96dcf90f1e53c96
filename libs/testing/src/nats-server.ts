import type { NatsBackend } from './nats-backend';
import { NatsContainer, type ContainerPlacement } from './nats-container';
import { natsMode } from './nats-mode';
import { NatsProcess, sleep } from './nats-process';
import type { NatsServerOptions } from './nats-server-options';

export type { NatsServerOptions } from './nats-server-options';
export { sleep } from './nats-process';

/**
 * A real nats-server: a process on 127.0.0.1 by default, a container with ESP_TEST_NATS=container.
 *
 *   const ns = await NatsServer.start();           // JetStream on, temp store dir
 *   ... connect to ns.url ...
 *   await ns.restart();                            // same port, same store
 *   await ns.restart({ downMs: 2000 });            // the same, down for 2 s first
 *   await ns.stop();                               // or ns.kill() for a SIGKILL
 *
 * A process is watched by a small shell guard and a container by a reaper process: neither outlives a crashed
 * test run.
 */
export class NatsServer {
  private constructor(
    private readonly backend: NatsBackend,
    private readonly opts: NatsServerOptions,
  ) {}

  static async start(opts: NatsServerOptions = {}): Promise<NatsServer> {
    const backend = natsMode() === 'container' ? await NatsContainer.create(opts) : new NatsProcess(opts);
    return NatsServer.launch(backend, opts);
  }

  /**
   * A nats-server process whatever ESP_TEST_NATS says: for a configuration that names files of this machine (TLS
   * certificates, keys), which a container cannot read.
   */
  static async startProcess(opts: NatsServerOptions = {}): Promise<NatsServer> {
    return NatsServer.launch(new NatsProcess(opts), opts);
  }

  /**
   * A server in a container whatever ESP_TEST_NATS says; with a placement, a cluster member on its cluster's Docker
   * network (NatsCluster uses that).
   */
  static async startContainer(opts: NatsServerOptions, placement?: ContainerPlacement): Promise<NatsServer> {
    return NatsServer.launch(await NatsContainer.create(opts, placement), opts);
  }

  private static async launch(backend: NatsBackend, opts: NatsServerOptions): Promise<NatsServer> {
    const server = new NatsServer(backend, opts);
    try {
      await backend.launch();
      if (!opts.deferHealth) await server.waitHealthy(Date.now() + (opts.startTimeoutMs ?? 15_000));
    } catch (err) {
      await backend.cleanup().catch(() => undefined);
      throw err;
    }
    return server;
  }

  private get endpoints() {
    const ep = this.backend.endpoints;
    if (!ep) throw new Error('nats-server is not running');
    return ep;
  }

  /** nats://127.0.0.1:<port> (a container: see published-ports-host.ts) */
  get url(): string {
    return `nats://${this.endpoints.host}:${this.endpoints.port}`;
  }
  get port(): number {
    return this.endpoints.port;
  }
  /** The route URL of a cluster member: nats-route://127.0.0.1:<port>, or nats-route://<container>:6222. */
  get routeUrl(): string | undefined {
    return this.backend.endpoints?.routeUrl;
  }
  get monitorUrl(): string {
    return `http://${this.endpoints.host}:${this.endpoints.monitorPort}`;
  }
  /** The JetStream store: a temporary directory, or a directory inside the container. */
  get storeDir(): string {
    return this.backend.storeDir;
  }
  /** nats-server's pid (for a container, as the engine's host sees it). */
  get pid(): number {
    return this.backend.pid;
  }
  /** The container's id with ESP_TEST_NATS=container, else undefined. */
  get containerId(): string | undefined {
    return this.backend.containerId;
  }
  get running(): boolean {
    return this.backend.running;
  }
  get serverName(): string | undefined {
    return this.opts.serverName;
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
    await this.backend.terminate('SIGTERM', timeoutMs);
  }

  /** SIGKILL: the server gets no chance to flush or say goodbye. */
  async kill(): Promise<void> {
    await this.backend.terminate('SIGKILL', 5000);
  }

  /** SIGSTOP / SIGCONT (docker pause / unpause): the server looks dead to its peers, then comes back. */
  async pause(): Promise<void> {
    await this.backend.pause();
  }
  async resume(): Promise<void> {
    await this.backend.resume();
  }

  /**
   * Stops (gracefully unless hard) and starts again on the same port with the same store; with downMs it stays down
   * that long first (clients see an outage, not just a dropped connection they win back at the first retry).
   */
  async restart(opts: { hard?: boolean; downMs?: number } = {}): Promise<void> {
    if (opts.hard) await this.kill();
    else await this.stop();
    if (opts.downMs) await sleep(opts.downMs);
    await this.backend.launch();
    await this.waitHealthy(Date.now() + (this.opts.startTimeoutMs ?? 15_000));
  }

  /** Stops the server and removes its files (or its container). */
  async cleanup(): Promise<void> {
    await this.backend.cleanup();
  }
}
