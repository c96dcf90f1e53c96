import { randomUUID } from 'node:crypto';
import { containerEngine } from './container-engine';
import { reaperLabels } from './container-reaper';
import { reservePorts } from './free-ports';
import { natsMode } from './nats-mode';
import { NatsServer, type NatsServerOptions } from './nats-server';

async function waitForRoutes(server: NatsServer, routes: number, deadline: number): Promise<void> {
  let seen = 0;
  while (Date.now() < deadline) {
    try {
      const r = (await (await fetch(`${server.monitorUrl}/routez`)).json()) as { num_routes?: number };
      seen = r.num_routes ?? 0;
      if (seen >= routes) return;
    } catch {
      // not answering yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server ${server.serverName ?? server.url} has ${seen} routes, expected ${routes}`);
}

type ClusterOptions = Omit<NatsServerOptions, 'cluster' | 'serverName' | 'port'>;

/** Binary mode: processes on 127.0.0.1. A JetStream cluster refuses to start without routes, so route ports are reserved up front. */
async function startProcesses(name: string, size: number, opts: ClusterOptions): Promise<PromiseSettledResult<NatsServer>[]> {
  const routePorts = await reservePorts(size);
  const routes = routePorts.map((p) => `nats-route://127.0.0.1:${p}`);
  return Promise.allSettled(
    routePorts.map((port, i) =>
      NatsServer.start({ ...opts, serverName: `${name}-${i}`, cluster: { name, port, routes: routes.filter((_, j) => j !== i) }, startTimeoutMs: 30_000, deferHealth: true }),
    ),
  );
}

/** Container mode: containers on one user-defined Docker network, routed to each other by container name. */
async function startContainers(name: string, size: number, opts: ClusterOptions, network: string): Promise<PromiseSettledResult<NatsServer>[]> {
  const names = Array.from({ length: size }, (_, i) => `${name}-${i}`);
  const routes = names.map((n) => `nats-route://${n}:6222`);
  return Promise.allSettled(
    names.map((member, i) =>
      NatsServer.startContainer(
        { ...opts, serverName: member, startTimeoutMs: 30_000, deferHealth: true },
        { network, name: member, clusterName: name, routes: routes.filter((_, j) => j !== i) },
      ),
    ),
  );
}

/**
 * n nats-servers in one cluster with JetStream (R3 needs three): processes, or containers with ESP_TEST_NATS=container.
 *
 *   const cluster = await NatsCluster.start(3);
 *   connect({ servers: cluster.urls });
 *   await cluster.servers[0].kill();  await cluster.restart(0);
 *   await cluster.cleanup();
 */
export class NatsCluster {
  private constructor(
    readonly servers: NatsServer[],
    private readonly removeNetwork: () => Promise<void>,
  ) {}

  static async start(size = 3, opts: ClusterOptions = {}): Promise<NatsCluster> {
    const name = `esp-nats-${randomUUID().slice(0, 8)}`;
    const servers: NatsServer[] = [];
    let removeNetwork = async () => undefined;
    try {
      let started: PromiseSettledResult<NatsServer>[];
      if (natsMode() === 'container') {
        const engine = await containerEngine();
        const network = await engine.network.create({ Name: name, CheckDuplicate: true, Labels: { ...reaperLabels(engine), 'org.esp.test': 'nats' } });
        removeNetwork = async () => {
          await network.remove().catch((err: { statusCode?: number }) => {
            if (err.statusCode !== 404) throw err;
          });
        };
        started = await startContainers(name, size, opts, name);
      } else {
        started = await startProcesses(name, size, opts);
      }
      for (const r of started) if (r.status === 'fulfilled') servers.push(r.value);
      const failed = started.find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      await Promise.all(servers.map((s) => s.waitHealthy(Date.now() + 30_000)));
      // healthy (JetStream meta leader known) can come before every route is up: wait for the full mesh
      await Promise.all(servers.map((s) => waitForRoutes(s, size - 1, Date.now() + 30_000)));
    } catch (err) {
      await Promise.all(servers.map((s) => s.cleanup()));
      await removeNetwork().catch(() => undefined);
      throw err;
    }
    return new NatsCluster(servers, removeNetwork);
  }

  get urls(): string[] {
    return this.servers.filter((s) => s.running).map((s) => s.url);
  }

  /** Every member's URL, running or not: what a client should be configured with. */
  get allUrls(): string[] {
    return this.servers.map((s) => s.url);
  }

  async restart(index: number, opts: { hard?: boolean } = {}): Promise<void> {
    const server = this.servers[index];
    if (!server) throw new RangeError(`no server ${index} in a cluster of ${this.servers.length}`);
    await server.restart(opts);
    const up = this.servers.filter((s) => s.running).length;
    await waitForRoutes(server, up - 1, Date.now() + 30_000);
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.cleanup()));
    await this.removeNetwork();
  }
}
