import { Middleware } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsSsrTransport, serveSsrNode, SsrClient, SsrNode, SsrNotHome, SsrQuiescing, type Artifact } from '../src/index';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (a: Artifact | undefined) => (a ? new TextDecoder().decode(a.body) : undefined);
const T = { heartbeatMs: 100, failAfterMs: 800, graceMs: 1200 };

let ns: NatsServer;
let mw: Middleware;
let n = 0;

beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  mw = await Middleware.connect({ name: 'ssr-test', servers: ns.url });
});
afterAll(async () => {
  await mw?.close();
  await ns?.cleanup();
});

/** Instances in this process, each with its own NATS connection (so a crash closes only its own). */
async function instances(names: string[], cluster: string, extra: Partial<ConstructorParameters<typeof SsrNode>[0]> = {}) {
  const out = new Map<string, { node: SsrNode; mw: Middleware; stop: () => Promise<void> }>();
  for (const name of names) {
    const m = await Middleware.connect({ name: `ssr-${name}`, servers: ns.url });
    const node = new SsrNode({ name, transport: new NatsSsrTransport(m.bus, cluster), ...T, ...extra });
    const unserve = await serveSsrNode(node, m.bus, cluster);
    await node.start();
    out.set(name, { node, mw: m, stop: async () => (await unserve(), await node.stop(), await m.close()) });
  }
  for (const { node } of out.values()) await waitFor(() => node.ready && node.view.members.length === names.length, { what: 'view' });
  return out;
}

describe('SSR on a real nats-server', () => {
  it('three instances: every artifact active on its home and replicated on the buddy; a crashed instance loses nothing', async () => {
    const cluster = `c${++n}`;
    const nodes = await instances(['a', 'b', 'c'], cluster, { waitForAck: true, reactivation: { lowMs: 300, highMs: 900 } });
    const client = await SsrClient.connect(mw.bus, cluster, { failAfterMs: T.failAfterMs });
    await waitFor(() => client.view.members.length === 3);
    const ids = Array.from({ length: 300 }, (_, i) => `s${i}`);
    await Promise.all(ids.map((id) => client.put(id, enc(`v-${id}`))));
    for (const id of ids) {
      const home = client.homeOf(id)!;
      const h = nodes.get(home)!.node;
      expect(h.active.get(id)?.a.version).toBe(1);
      expect(nodes.get(h.buddyName!)!.node.replica.get(id)?.a.owner).toBe(h.key);
    }
    const victim = nodes.get('b')!;
    nodes.delete('b');
    await victim.stop(); // no goodbye: a crash as the others see it
    await waitFor(() => [...nodes.values()].every(({ node }) => node.view.members.length === 2) && client.view.members.length === 2, { what: 'reshape' });
    const got = await Promise.all(ids.map((id) => client.get(id)));
    expect(got.map(dec)).toEqual(ids.map((id) => `v-${id}`));
    // one active copy each, and (after the reactivation window and repair) a replica on the other instance
    await waitFor(
      () => {
        const census = [...nodes.values()].flatMap(({ node }) => node.census());
        return ids.every((id) => census.filter((c) => c.id === id && c.where === 'active').length === 1 && census.some((c) => c.id === id && c.where === 'replica'));
      },
      { timeoutMs: 10_000, what: 'two copies of everything' },
    );
    await client.close();
    for (const x of nodes.values()) await x.stop();
  });

  it('a load request for an unknown artifact ends in one round of negative acknowledgements', async () => {
    const cluster = `c${++n}`;
    const nodes = await instances(['a', 'b', 'c', 'd'], cluster, { loadTimeoutMs: 3000 });
    const client = await SsrClient.connect(mw.bus, cluster, { failAfterMs: T.failAfterMs });
    await waitFor(() => client.view.members.length === 4);
    const t0 = performance.now();
    expect(await client.get('nobody-has-this')).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(1500); // well under the 3 s load timeout
    expect(nodes.get(client.homeOf('nobody-has-this')!)!.node.counters.loadNacksOnly).toBe(1);
    await client.close();
    for (const x of nodes.values()) await x.stop();
  });

  it('a timer whose owner crashes before it is due fires once, on the home, after the grace period', async () => {
    const cluster = `c${++n}`;
    const fired: string[] = [];
    const nodes = await instances(['a', 'b', 'c'], cluster, { onFire: (a) => void fired.push(a.id) });
    const client = await SsrClient.connect(mw.bus, cluster, { failAfterMs: T.failAfterMs });
    await waitFor(() => client.view.members.length === 3);
    const ids = Array.from({ length: 30 }, (_, i) => `t${i}`);
    const due = Date.now() + 1500;
    await Promise.all(ids.map((id) => client.put(id, enc(id), { nextFire: due })));
    await new Promise((r) => setTimeout(r, 300));
    const victim = nodes.get('c')!;
    nodes.delete('c');
    await victim.stop();
    await waitFor(() => fired.length >= ids.length, { timeoutMs: 10_000, what: 'all timers fired' });
    await new Promise((r) => setTimeout(r, 1500));
    expect([...fired].sort()).toEqual([...ids].sort());
    await client.close();
    for (const x of nodes.values()) await x.stop();
  });

  it('quiescence: a quiescing instance refuses operations with a retryable error; a non-home instance says where the home is', async () => {
    const cluster = `c${++n}`;
    const nodes = await instances(['a', 'b'], cluster, { waitForAck: true });
    const client = await SsrClient.connect(mw.bus, cluster, { failAfterMs: T.failAfterMs });
    await waitFor(() => client.view.members.length === 2);
    const id = Array.from({ length: 50 }, (_, i) => `q${i}`).find((x) => client.homeOf(x) === 'a')!;
    await client.put(id, enc('1'));
    const wrong = await client.call('b', ['get', id]).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(SsrNotHome);
    expect((wrong as SsrNotHome).home).toBe('a');
    await nodes.get('a')!.node.quiesce();
    const refused = await client.call('a', ['put', id, enc('2')]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SsrQuiescing);
    expect((refused as SsrQuiescing).retryable).toBe(true);
    // after the leave, the same put goes to the new home and finds the artifact there through its replica
    await nodes.get('a')!.node.leave();
    await waitFor(() => client.view.members.length === 1);
    expect((await client.put(id, enc('2'))).version).toBe(2);
    await client.close();
    for (const x of nodes.values()) await x.stop();
  });
});
