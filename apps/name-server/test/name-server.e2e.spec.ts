import type { Aor } from '@esp/interfaces';
import { ResolveException } from '@esp/interfaces';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsCluster, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ENTRY = 'apps/name-server/src/main.ts';
const aor = (id: string): Aor => ({ name: '', object_id: id, host: 'h', port: 16390, interface_type: 'processing::session_factory', interface_version: '5.1' });

describe('name-server processes on a real nats-server', () => {
  let ns: NatsServer;
  let client: Middleware;
  const procs: ChildService[] = [];
  const start = async (extra: string[] = [], url?: string) => {
    const p = await ChildService.start({ entry: ENTRY, args: ['--nats', url ?? ns.url, ...extra] });
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    ns = await NatsServer.start();
    client = await Middleware.connect({ name: 'client', servers: ns.url, timeoutMs: 15_000 });
  });
  afterAll(async () => {
    await client?.close();
    await Promise.all(procs.map((p) => p.kill()));
    await ns?.cleanup();
  });

  it('killed with -9 and restarted: every binding still resolves', async () => {
    const a = await start();
    for (let i = 0; i < 20; i++) await client.names.bind(`persist/${i}`, aor(`o${i}`));
    await a.kill();
    await expect(client.names.resolve('persist/0', 'processing::session_factory', '5.1')).rejects.toMatchObject({ code: 'object_not_exist' });
    await a.restart();
    for (let i = 0; i < 20; i++) {
      expect((await client.names.resolve(`persist/${i}`, 'processing::session_factory', '5.1')).aor.object_id).toBe(`o${i}`);
    }
    expect(await client.names.list('persist/')).toHaveLength(20);
  });

  /**
   * The survivor alone answers: five resolves in a row, each within a second. nats-server drops a killed member of
   * the queue group when it reads EOF on its socket, which on a loaded machine (or through a container's port proxy)
   * can take longer than any fixed pause; until then a request may go to the dead member and get no reply.
   */
  async function aloneServes(who: string): Promise<void> {
    const quick = await Middleware.connect({ name: `ns-e2e-quick-${who}`, servers: ns.url, timeoutMs: 1000 });
    try {
      await waitFor(
        async () => {
          for (let i = 0; i < 5; i++) {
            const b = await quick.names.resolve('two/x', 'processing::session_factory', '5.1').catch(() => undefined);
            if (b?.aor.object_id !== 'x') return false;
          }
          return true;
        },
        { timeoutMs: 20_000, what: `name server ${who} alone to answer` },
      );
    } finally {
      await quick.close();
    }
  }

  it('two name servers at once: both answer, and either one alone keeps the service up', async () => {
    const [a, b] = [procs[0]!, await start()];
    await client.names.bind('two/x', aor('x'));
    await b.kill();
    await aloneServes('a');
    await b.restart();
    await a.kill();
    await aloneServes('b');
    await a.restart();
    // with both up, calls are spread over both (queue group)
    const results = await Promise.all(Array.from({ length: 200 }, () => client.names.resolve('two/x', 'processing::session_factory', '5.1')));
    expect(results.every((r) => r.aor.object_id === 'x')).toBe(true);
  });

  it('the NATS server restarted (-9): bindings survive in JetStream, clients reconnect', async () => {
    await client.names.bind('nats-restart/x', aor('survivor'));
    await ns.restart({ hard: true });
    let resolved: string | undefined;
    for (let i = 0; i < 100 && !resolved; i++) {
      resolved = await client.names
        .resolve('nats-restart/x', 'processing::session_factory', '5.1')
        .then((b) => b.aor.object_id)
        .catch(() => undefined);
      if (!resolved) await new Promise((r) => setTimeout(r, 100));
    }
    expect(resolved).toBe('survivor');
  });

  it('--help prints usage; a bad option exits 2 with a clear message', async () => {
    const { spawnSync } = await import('node:child_process');
    const help = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, '--help'], { cwd: new URL('../../../', import.meta.url).pathname, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: name-server/);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, '--replicas', 'many'], { cwd: new URL('../../../', import.meta.url).pathname, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--replicas must be an integer/);
  });
});

describe('name servers on a three-server NATS cluster (bucket with 3 replicas)', () => {
  let cluster: NatsCluster;
  const procs: ChildService[] = [];
  const clients: Middleware[] = [];
  beforeAll(async () => {
    cluster = await NatsCluster.start(3);
    // one name server on each NATS server
    for (const s of cluster.servers) procs.push(await ChildService.start({ entry: ENTRY, args: ['--nats', s.url, '--replicas', '3'] }));
    for (const s of cluster.servers) clients.push(await Middleware.connect({ name: 'c', servers: [s.url], timeoutMs: 15_000 }));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(procs.map((p) => p.kill()));
    await cluster?.cleanup();
  });

  it('a bind through one server resolves through every other; a race across servers has one winner', async () => {
    await clients[0]!.names.bind('cl/x', aor('x'));
    for (const c of clients) expect((await c.names.resolve('cl/x', 'processing::session_factory', '5.1')).aor.object_id).toBe('x');
    for (let round = 0; round < 10; round++) {
      const r = await Promise.allSettled(clients.map((c, i) => c.names.bind(`cl/race/${round}`, aor(`c${i}`))));
      expect(r.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    }
  });

  it('one NATS server killed: bindings still resolve through the others', async () => {
    await clients[1]!.names.bind('cl/y', aor('y'));
    await cluster.servers[0]!.kill();
    expect((await clients[1]!.names.resolve('cl/y', 'processing::session_factory', '5.1')).aor.object_id).toBe('y');
    await expect(clients[2]!.names.resolve('cl/nothing', 'processing::session_factory', '5.1')).rejects.toBeInstanceOf(ResolveException);
  }, 30_000);
});
