import { randomBytes } from 'node:crypto';
import { Middleware } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey, NatsSsrTransport, SsrNode } from '../src/index';

/** A server that takes messages of 64 KiB at most: every artifact below is larger. */
const MAX_PAYLOAD = 64 * 1024;
const T = { heartbeatMs: 100, failAfterMs: 800, graceMs: 1200 };

let ns: NatsServer;

beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false, config: `max_payload: ${MAX_PAYLOAD}` });
});
afterAll(async () => {
  await ns?.cleanup();
});

async function instances(names: string[]) {
  const out = new Map<string, { node: SsrNode; transport: NatsSsrTransport; stop: () => Promise<void> }>();
  for (const name of names) {
    const m = await Middleware.connect({ name: `ssr-${name}`, servers: ns.url });
    expect(m.bus.maxPayload).toBe(MAX_PAYLOAD);
    const transport = new NatsSsrTransport(m.bus, 'chunks');
    const node = new SsrNode({ name, transport, waitForAck: true, reactivation: { lowMs: 300, highMs: 900 }, ...T });
    await node.start();
    out.set(name, { node, transport, stop: async () => (await node.stop(), await m.close()) });
  }
  for (const { node } of out.values()) await waitFor(() => node.ready && node.view.members.length === names.length, { what: 'view' });
  return out;
}

describe('SSR messages above the server max_payload', () => {
  it('artifacts larger than the limit are replicated as chunks; after the crash of their home the new home has them whole', async () => {
    const nodes = await instances(['a', 'b', 'c']);
    const any = nodes.get('a')!.node;
    const bodies = new Map<string, Buffer>();
    // trees of a small parent and two children of 150 KB (a feeding session and its batches in flight)
    for (let i = 0; i < 6; i++) {
      const parent = `t${i}`;
      const home = nodes.get(any.homeOf(hashKey(parent))!)!.node;
      await home.put(parent, Buffer.from(`session ${i}`));
      bodies.set(parent, Buffer.from(`session ${i}`));
      for (let j = 0; j < 2; j++) {
        const body = randomBytes(150_000);
        const a = await home.put(`${parent}/c${j}`, body, { parentId: parent });
        expect(await home.flushReplication()).toBe(true);
        bodies.set(a.id, body);
        const replica = nodes.get(home.buddyName!)!.node.replica.get(a.id);
        expect(replica && Buffer.from(replica.a.body).equals(body)).toBe(true);
      }
    }
    const sent = [...nodes.values()].reduce((n, x) => n + x.transport.chunked.messages, 0);
    expect(sent).toBeGreaterThanOrEqual(12);

    const victimName = any.homeOf(hashKey('t0'))!;
    const victim = nodes.get(victimName)!;
    nodes.delete(victimName);
    await victim.stop(); // no goodbye: a crash as the others see it
    await waitFor(() => [...nodes.values()].every(({ node }) => node.view.members.length === 2), { what: 'reshape' });

    const survivor = [...nodes.values()][0]!.node;
    for (let i = 0; i < 6; i++) {
      const parent = `t${i}`;
      const home = nodes.get(survivor.homeOf(hashKey(parent))!)!.node;
      // right after the reshape a load may find a member not answering yet (SsrUnavailable, retryable): ask again
      let p: Awaited<ReturnType<SsrNode['get']>>;
      await waitFor(async () => (p = await home.get(parent).catch(() => undefined)) !== undefined, { what: `reactivation of ${parent}`, timeoutMs: 5000 });
      expect(Buffer.from(p!.body).toString()).toBe(`session ${i}`);
      await waitFor(async () => (await home.children(parent)).length === 2, { what: `children of ${parent}`, timeoutMs: 5000 });
      for (const c of await home.children(parent)) expect(Buffer.from(c.body).equals(bodies.get(c.id)!)).toBe(true);
    }
    for (const { transport } of nodes.values()) {
      expect(transport.dropped).toBe(0);
      expect(transport.reassembled.heldBytes).toBe(0);
    }
    expect([...nodes.values()].reduce((n, x) => n + x.transport.reassembled.completed, 0)).toBeGreaterThan(0);
    for (const x of nodes.values()) await x.stop();
  });
});
