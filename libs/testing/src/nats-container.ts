import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ContainerRuntimeClient } from 'testcontainers';
import { containerEngine } from './container-engine';
import { reaperLabels } from './container-reaper';
import { reservePorts } from './free-ports';
import type { NatsBackend, NatsEndpoints } from './nats-backend';
import { checkContainerOptions } from './nats-container-options';
import { natsGreets } from './nats-info-probe';
import { natsImage } from './nats-mode';
import { publishedPortsHost } from './published-ports-host';
import type { NatsServerOptions } from './nats-server-options';

type DockerContainer = ReturnType<ContainerRuntimeClient['container']['getById']>;

/** A server container that did not come up; the message ends with the container's last log lines. */
export class NatsContainerStartError extends Error {
  override name = 'NatsContainerStartError';
}

/** A cluster member's place: the Docker network of its cluster, its container name there, its peers' routes. */
export interface ContainerPlacement {
  network: string;
  name: string;
  clusterName: string;
  routes: string[];
}

const CONFIG_PATH = '/etc/esp-test-nats.conf';
const STORE_DIR = '/data/jetstream';
const LOG_TAIL = 4000;

/** Docker multiplexes stdout and stderr of a container without a TTY in 8-byte-headed frames. */
function demux(buf: Buffer): string {
  let out = '';
  for (let i = 0; i + 8 <= buf.length; ) {
    const size = buf.readUInt32BE(i + 4);
    out += buf.subarray(i + 8, i + 8 + size).toString();
    i += 8 + size;
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * nats-server in a container started by testcontainers. Its client and monitoring ports are published on host ports
 * chosen once, so a restart (the same container started again, store included) comes back where clients left it.
 * Stop is `docker stop`, kill is `docker kill`, pause is `docker pause`: the same faults as for a process.
 */
export class NatsContainer implements NatsBackend {
  readonly storeDir = STORE_DIR;
  private container: DockerContainer | undefined;
  private isRunning = false;
  private paused = false;
  private hostPid = 0;
  private launched = false;

  private constructor(
    private readonly engine: ContainerRuntimeClient,
    private readonly host: string,
    private readonly opts: NatsServerOptions,
    readonly name: string,
    private ports: { port: number; monitorPort: number },
    private readonly placement: ContainerPlacement | undefined,
  ) {}

  /** Checks the options and the engine; the container itself starts with launch(). */
  static async create(opts: NatsServerOptions, placement?: ContainerPlacement): Promise<NatsContainer> {
    checkContainerOptions(opts);
    const engine = await containerEngine();
    const name = placement?.name ?? `esp-nats-${randomUUID().slice(0, 8)}`;
    return new NatsContainer(engine, await publishedPortsHost(engine), opts, name, await NatsContainer.pickPorts(opts), placement);
  }

  private static async pickPorts(opts: NatsServerOptions): Promise<{ port: number; monitorPort: number }> {
    const [monitorPort = 0, free = 0] = await reservePorts(2);
    return { port: opts.port !== undefined && opts.port > 0 ? opts.port : free, monitorPort };
  }

  get endpoints(): NatsEndpoints | undefined {
    if (!this.launched) return undefined;
    return {
      host: this.host,
      port: this.ports.port,
      monitorPort: this.ports.monitorPort,
      routeUrl: this.placement && `nats-route://${this.placement.name}:6222`,
    };
  }
  get running(): boolean {
    return this.isRunning;
  }
  /** nats-server's pid as the engine's host sees it. */
  get pid(): number {
    return this.hostPid;
  }
  get containerId(): string | undefined {
    return this.container?.id;
  }

  private command(): string[] {
    const o = this.opts;
    // every argument starts with "-": the official image's entrypoint then runs nats-server with them
    const args = ['-p', '4222', '-m', '8222', '--client_advertise', `${this.host}:${this.ports.port}`];
    if (o.jetstream ?? true) args.push('-js', '-sd', STORE_DIR);
    if (o.serverName) args.push('--server_name', o.serverName);
    const p = this.placement;
    if (p) {
      args.push('--cluster_name', p.clusterName, '--cluster', 'nats://0.0.0.0:6222');
      if (p.routes.length) args.push('--routes', p.routes.join(','));
    }
    if (o.config !== undefined) args.unshift('-c', CONFIG_PATH);
    args.push(...(o.args ?? []));
    return args;
  }

  async launch(): Promise<void> {
    const deadline = Date.now() + (this.opts.startTimeoutMs ?? 15_000);
    let container = this.container;
    if (container) await this.engine.container.start(container);
    else container = this.container = await this.createAndStart(deadline);
    this.launched = true;
    this.isRunning = true;
    await this.waitGreeting(container, deadline);
    this.hostPid = (await this.engine.container.inspect(container)).State.Pid;
  }

  private async createAndStart(deadline: number): Promise<DockerContainer> {
    const { GenericContainer, Wait } = await import('testcontainers');
    const explicitPort = this.opts.port !== undefined && this.opts.port > 0;
    for (let attempt = 1; ; attempt++) {
      let logs = '';
      let logStream: Readable | undefined;
      let c = new GenericContainer(natsImage())
        .withName(this.name)
        .withLabels({ ...reaperLabels(this.engine), 'org.esp.test': 'nats' })
        .withCommand(this.command())
        .withExposedPorts({ container: 4222, host: this.ports.port }, { container: 8222, host: this.ports.monitorPort })
        .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
        .withStartupTimeout(Math.max(1000, deadline - Date.now()))
        .withLogConsumer((stream) => {
          logStream = stream;
          stream.on('data', (d: Buffer | string) => (logs = (logs + d.toString()).slice(-LOG_TAIL)));
          stream.on('error', () => undefined);
        });
      if (this.opts.config !== undefined) c = c.withCopyContentToContainer([{ content: this.opts.config, target: CONFIG_PATH }]);
      if (this.placement) c = c.withNetworkMode(this.placement.network);
      try {
        const started = await c.start();
        return this.engine.container.getById(started.getId());
      } catch (err) {
        await this.removeByName();
        const message = err instanceof Error ? err.message : String(err);
        // a free port can be taken between picking it and publishing it: pick again
        if (/port is already allocated|address already in use/i.test(message) && attempt < 3 && !explicitPort) {
          this.ports = await NatsContainer.pickPorts(this.opts);
          continue;
        }
        throw new NatsContainerStartError(`nats container ${this.name} (${natsImage()}) did not start: ${message}${logs ? `\n${logs.trim()}` : ''}`, { cause: err });
      } finally {
        logStream?.destroy();
      }
    }
  }

  /** Ready when the server greets a client through the published port (the log of an earlier run proves nothing). */
  private async waitGreeting(container: DockerContainer, deadline: number): Promise<void> {
    for (;;) {
      if (await natsGreets(this.host, this.ports.port)) return;
      const state = (await this.engine.container.inspect(container)).State;
      if (!state.Running || Date.now() > deadline) {
        const why = state.Running ? 'did not greet a client in time' : `exited with code ${state.ExitCode}`;
        throw new NatsContainerStartError(`nats container ${this.name} ${why}:\n${await this.tail()}`);
      }
      await sleep(50);
    }
  }

  private async tail(): Promise<string> {
    if (!this.container) return '';
    const raw = (await this.container.logs({ stdout: true, stderr: true, follow: false, tail: 40 }).catch(() => Buffer.alloc(0))) as Buffer;
    return demux(raw).trim();
  }

  async pause(): Promise<void> {
    if (!this.container || !this.isRunning || this.paused) return;
    await this.container.pause();
    this.paused = true;
  }
  async resume(): Promise<void> {
    if (!this.container || !this.paused) return;
    await this.container.unpause();
    this.paused = false;
  }

  async terminate(signal: 'SIGTERM' | 'SIGKILL', timeoutMs: number): Promise<void> {
    const container = this.container;
    if (!container || !this.isRunning) return;
    await this.resume();
    try {
      if (signal === 'SIGKILL') await container.kill({ signal: 'SIGKILL' });
      else await container.stop({ t: Math.max(1, Math.ceil(timeoutMs / 1000)) });
    } catch (err) {
      // 304 (already stopped) and 409 (not running) are fine: the server is gone either way
      const status = (err as { statusCode?: number }).statusCode;
      if (status !== 304 && status !== 409) throw err;
    }
    await container.wait({ condition: 'not-running' }).catch(() => undefined);
    this.isRunning = false;
  }

  async cleanup(): Promise<void> {
    this.isRunning = false;
    this.paused = false;
    await this.removeByName();
  }

  private async removeByName(): Promise<void> {
    try {
      await this.engine.container.getById(this.name).remove({ force: true, v: true });
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status !== 404 && status !== 409) throw err; // gone, or being removed already
    }
  }
}
