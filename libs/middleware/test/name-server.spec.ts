import { AlreadyBound, ResolveException, type Aor } from '@esp/interfaces';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Middleware, serveNameServer, type BindingChange } from '../src';

function aorOf(objectId: string, type = 'processing::session_factory', version = '5.1', host = 'h1', port = 16390): Aor {
  return { name: '', object_id: objectId, host, port, interface_type: type, interface_version: version };
}

describe('name server over a real nats-server with JetStream', () => {
  let ns: NatsServer;
  let nsHost: Middleware;
  let client: Middleware;
  const DISPATCHER = 'esp/subsystems/processing/dispatcher';

  beforeAll(async () => {
    ns = await NatsServer.start();
    nsHost = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nsHost);
    client = await Middleware.connect({ name: 'client', servers: ns.url });
  });
  afterAll(async () => {
    await client?.close();
    await nsHost?.close();
    await ns?.cleanup();
  });

  it('bind / resolve / list / unbind - round trip', async () => {
    const a = aorOf('sf-1');
    const { revision } = await client.names.bind('rt/x', a);
    const b = await client.names.resolve('rt/x', 'processing::session_factory', '5.1');
    expect(b).toEqual({ name: 'rt/x', aor: { ...a, name: 'rt/x' }, revision });
    expect((await client.names.list('rt/')).map((x) => x.name)).toEqual(['rt/x']);
    expect(await client.names.unbind('rt/x', 'processing::session_factory', revision)).toEqual({ removed: true, revision });
    await expect(client.names.resolve('rt/x', 'processing::session_factory', '5.1')).rejects.toBeInstanceOf(ResolveException);
    expect(await client.names.list('rt/')).toEqual([]);
  });

  it('bindings are keyed by (name, interface type): one name holds several interfaces', async () => {
    await client.names.bind(DISPATCHER, aorOf('sf', 'processing::session_factory', '5.1'));
    await client.names.bind(DISPATCHER, aorOf('md', 'processing::master_dispatcher', '5.0'));
    expect((await client.names.resolve(DISPATCHER, 'processing::session_factory', '5.1')).aor.object_id).toBe('sf');
    expect((await client.names.resolve(DISPATCHER, 'processing::master_dispatcher', '5.0')).aor.object_id).toBe('md');
    expect((await client.names.list(DISPATCHER)).map((b) => b.aor.interface_type)).toEqual(['processing::master_dispatcher', 'processing::session_factory']);
  });

  it('resolve - unknown name raises resolve_exception', async () => {
    const err = await client.names.resolve('no/such/name', 'processing::session_factory', '5.1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResolveException);
    expect((err as Error).message).toMatch(/nothing is bound as no\/such\/name/);
  });

  it('resolve - version rule: same major, bound minor >= requested; anything else raises resolve_exception', async () => {
    await client.names.bind('ver/x', aorOf('v', 'processing::dispatcher_node', '5.1'));
    await expect(client.names.resolve('ver/x', 'processing::dispatcher_node', '5.0')).resolves.toMatchObject({ aor: { interface_version: '5.1' } });
    await expect(client.names.resolve('ver/x', 'processing::dispatcher_node', '5.1')).resolves.toBeTruthy();
    await expect(client.names.resolve('ver/x', 'processing::dispatcher_node', '5.2')).rejects.toBeInstanceOf(ResolveException);
    await expect(client.names.resolve('ver/x', 'processing::dispatcher_node', '6.0')).rejects.toBeInstanceOf(ResolveException);
    await expect(client.names.resolve('ver/x', 'processing::dispatcher_node', '4.1')).rejects.toBeInstanceOf(ResolveException);
  });

  it('bind - a second bind of a live key by another object raises already_bound naming the holder', async () => {
    await client.names.bind('dup/x', aorOf('first'));
    const err = await client.names.bind('dup/x', aorOf('second')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlreadyBound);
    expect((err as AlreadyBound).message).toMatch(/already bound to first at h1:16390/);
    expect((await client.names.resolve('dup/x', 'processing::session_factory', '5.1')).aor.object_id).toBe('first');
  });

  it('bind - the same object binding again is idempotent; an explicit rebind by the same object updates it', async () => {
    const { revision } = await client.names.bind('re/x', aorOf('obj', 'processing::session_factory', '5.0'));
    expect(await client.names.bind('re/x', aorOf('obj', 'processing::session_factory', '5.0'))).toEqual({ revision });
    await expect(client.names.bind('re/x', aorOf('obj', 'processing::session_factory', '5.1'))).rejects.toBeInstanceOf(AlreadyBound);
    const r2 = await client.names.bind('re/x', aorOf('obj', 'processing::session_factory', '5.1'), { rebind: true });
    expect(r2.revision).toBeGreaterThan(revision);
    await expect(client.names.bind('re/x', aorOf('other'), { rebind: true })).rejects.toBeInstanceOf(AlreadyBound);
  });

  it('conditional unbind - an unbind with a stale revision does not remove the newer binding', async () => {
    const old = await client.names.bind('cu/x', aorOf('old-master'));
    expect((await client.names.unbind('cu/x', 'processing::session_factory', old.revision)).removed).toBe(true);
    const fresh = await client.names.bind('cu/x', aorOf('new-master'));
    // a slow backup that saw the old binding tries to remove it
    const r = await client.names.unbind('cu/x', 'processing::session_factory', old.revision);
    expect(r).toEqual({ removed: false, revision: fresh.revision });
    expect((await client.names.resolve('cu/x', 'processing::session_factory', '5.1')).aor.object_id).toBe('new-master');
  });

  it('election race - 50 rounds of 5 clients binding the same name: exactly one winner each round', async () => {
    const clients = await Promise.all(Array.from({ length: 5 }, (_, i) => Middleware.connect({ name: `racer-${i}`, servers: ns.url })));
    // a second name-server instance, so the race also crosses instances
    const second = await Middleware.connect({ name: 'name-server-2', servers: ns.url });
    await serveNameServer(second);
    try {
      for (let round = 0; round < 50; round++) {
        const name = `race/${round}`;
        const results = await Promise.allSettled(clients.map((c, i) => c.names.bind(name, aorOf(`candidate-${i}`))));
        const winners = results.filter((r) => r.status === 'fulfilled');
        const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(winners).toHaveLength(1);
        expect(losers.every((l) => l.reason instanceof AlreadyBound)).toBe(true);
        const winner = results.findIndex((r) => r.status === 'fulfilled');
        expect((await client.names.resolve(name, 'processing::session_factory', '5.1')).aor.object_id).toBe(`candidate-${winner}`);
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await second.close();
    }
  }, 60_000);

  it('watch - reports binds and unbinds as they happen', async () => {
    const seen: BindingChange[] = [];
    const w = await client.names.watch((c) => seen.push(c));
    const { revision } = await client.names.bind('watch/x', aorOf('w'));
    // the bucket keeps one revision per key: an unbind stored before the watcher read the bind replaces it, so the
    // watch reports the latest state of a key, not every step of a burst; here each step is waited for
    await waitFor(() => seen.some((c) => c.name === 'watch/x'), { what: 'the bind' });
    await client.names.unbind('watch/x', 'processing::session_factory', revision);
    await waitFor(() => seen.filter((c) => c.name === 'watch/x').length >= 2, { what: 'two changes' });
    w.stop();
    const mine = seen.filter((c) => c.name === 'watch/x');
    expect(mine[0]).toMatchObject({ interface_type: 'processing::session_factory', revision, aor: { object_id: 'w' } });
    expect(mine[1]).toMatchObject({ aor: null });
  });
});
