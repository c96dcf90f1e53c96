import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
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

/** Free TCP ports on 127.0.0.1, asked of the OS (held together so they are distinct). */
async function reservePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<import('node:net').Server>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => resolve(srv));
    })),
  );
  const ports = servers.map((s) => (s.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/**
 * n nats-server processes in one cluster with JetStream (R3 needs three), on ports they chose themselves.
 *
 *   const cluster = await NatsCluster.start(3);
 *   connect({ servers: cluster.urls });
 *   await cluster.servers[0].kill();  await cluster.restart(0);
 *   await cluster.cleanup();
 */
export class NatsCluster {
  private constructor(readonly servers: NatsServer[]) {}

  static async start(size = 3, opts: Omit<NatsServerOptions, 'cluster' | 'serverName' | 'port'> = {}): Promise<NatsCluster> {
    const name = `esp-${randomUUID().slice(0, 8)}`;
    const servers: NatsServer[] = [];
    try {
      // A JetStream cluster refuses to start without configured routes, so the route ports are reserved up front
      // (clients still use ports the servers pick themselves).
      const routePorts = await reservePorts(size);
      const routes = routePorts.map((p) => `nats-route://127.0.0.1:${p}`);
      const started = await Promise.allSettled(
        routePorts.map((port, i) =>
          NatsServer.start({
            ...opts,
            serverName: `${name}-${i}`,
            cluster: { name, port, routes: routes.filter((_, j) => j !== i) },
            startTimeoutMs: 30_000,
            deferHealth: true,
          }),
        ),
      );
      for (const r of started) if (r.status === 'fulfilled') servers.push(r.value);
      const failed = started.find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      await Promise.all(servers.map((s) => s.waitHealthy(Date.now() + 30_000)));
      // healthy (JetStream meta leader known) can come before every route is up: wait for the full mesh
      await Promise.all(servers.map((s) => waitForRoutes(s, size - 1, Date.now() + 30_000)));
    } catch (err) {
      await Promise.all(servers.map((s) => s.cleanup()));
      throw err;
    }
    return new NatsCluster(servers);
  }

  get urls(): string[] {
    return this.servers.filter((s) => s.running).map((s) => s.url);
  }

  /** Every member's URL, running or not: what a client should be configured with. */
  get allUrls(): string[] {
    return this.servers.map((s) => `nats://127.0.0.1:${s.port}`);
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
  }
}
