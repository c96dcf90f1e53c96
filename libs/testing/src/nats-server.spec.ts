import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { NatsCluster } from './nats-cluster';
import { NatsServer } from './nats-server';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

describe('NatsServer', () => {
  const started: { cleanup(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.cleanup()));
  });

  it('start - picks its own port from the ports file and answers there', async () => {
    const ns = await NatsServer.start();
    started.push(ns);
    expect(ns.port).toBeGreaterThan(0);
    expect(ns.url).toBe(`nats://127.0.0.1:${ns.port}`);
    expect(await tcpOpen(ns.port)).toBe(true);
    expect(isAlive(ns.pid)).toBe(true);
  });

  it('restart - comes back on the same port with the same store', async () => {
    const ns = await NatsServer.start();
    started.push(ns);
    const { port, storeDir, pid } = ns;
    await ns.restart({ hard: true });
    expect(isAlive(pid)).toBe(false);
    expect(ns.port).toBe(port);
    expect(ns.storeDir).toBe(storeDir);
    expect(ns.pid).not.toBe(pid);
    expect(await tcpOpen(port)).toBe(true);
  });

  it('restart with downMs - the port stays closed that long, then the server is back on it', async () => {
    const ns = await NatsServer.start();
    started.push(ns);
    const { port } = ns;
    const t0 = Date.now();
    const restarting = ns.restart({ downMs: 500 });
    await new Promise((r) => setTimeout(r, 250));
    expect(await tcpOpen(port)).toBe(false);
    await restarting;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(await tcpOpen(port)).toBe(true);
  });

  it('cleanup - leaves no process behind', async () => {
    const ns = await NatsServer.start();
    const pid = ns.pid;
    await ns.cleanup();
    expect(isAlive(pid)).toBe(false);
    expect(await tcpOpen(ns.port)).toBe(false);
  });

  it('cluster - three servers with JetStream form one healthy cluster, and a member restarts on its port', async () => {
    const cluster = await NatsCluster.start(3);
    started.push(cluster);
    expect(new Set(cluster.urls).size).toBe(3);
    const routez = (await (await fetch(`${cluster.servers[0]!.monitorUrl}/routez`)).json()) as { num_routes: number };
    expect(routez.num_routes).toBeGreaterThanOrEqual(2);
    const port = cluster.servers[1]!.port;
    await cluster.restart(1, { hard: true });
    expect(cluster.servers[1]!.port).toBe(port);
    const jsz = (await (await fetch(`${cluster.servers[1]!.monitorUrl}/jsz`)).json()) as { meta_cluster?: { cluster_size?: number } };
    expect(jsz.meta_cluster?.cluster_size).toBe(3);
  }, 60_000);
});
