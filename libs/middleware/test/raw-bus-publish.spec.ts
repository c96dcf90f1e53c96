import type { NatsServer } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { Middleware, RawBus } from '../src';
import { hasLeanSocket, hasLinePublish } from '../src/pub-line';
import { withTwoConnections } from './two-connections';

/** RawBus.publish writes its own PUB lines (see pub-line.ts): what arrives must be what nats.js would have sent. */
describe('raw bus publish (PUB line written by RawBus)', () => {
  let ns: NatsServer;
  let a: Middleware;
  let b: Middleware;

  withTwoConnections('pub', (c) => ({ ns, a, b } = c));

  it('publish - the installed nats.js has what the fast path needs (an upgrade that drops it fails here, not silently)', () => {
    expect(hasLinePublish(b.nc)).toBe(true);
  });

  it('publish - payloads of 0 to 100,000 bytes arrive byte for byte, with and without a reply subject, counted in the stats', async () => {
    const subject = RawBus.subject('test', 'pub-line');
    const got: { data: Uint8Array; reply: string | undefined }[] = [];
    const stop = await a.bus.subscribe(subject, (m) => got.push({ data: m.data.slice(), reply: m.reply }));
    const sizes = [0, 1, 9, 10, 99, 100, 255, 1000, 100_000];
    const payload = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff);
    const before = b.nc.stats();
    // none of these takes nats.js's own publish (the slow path)
    const natsPublish = b.nc.publish.bind(b.nc);
    let slow = 0;
    b.nc.publish = (...args: Parameters<typeof natsPublish>) => {
      slow++;
      natsPublish(...args);
    };
    try {
      for (const [i, n] of sizes.entries()) b.bus.publish(subject, payload(n), i % 2 === 1 ? { reply: `esp.raw.test.reply.${i}` } : undefined);
    } finally {
      b.nc.publish = natsPublish;
    }
    expect(slow).toBe(0);
    await b.bus.flush();
    await a.bus.flush();
    for (let t = 0; t < 100 && got.length < sizes.length; t++) await new Promise((r) => setTimeout(r, 10));
    const after = b.nc.stats();
    expect(got.map((g) => g.data.length)).toEqual(sizes);
    for (const [i, n] of sizes.entries()) {
      expect(Buffer.from(got[i]!.data).equals(Buffer.from(payload(n)))).toBe(true);
      expect(got[i]!.reply).toBe(i % 2 === 1 ? `esp.raw.test.reply.${i}` : undefined);
    }
    expect(after.outMsgs - before.outMsgs).toBe(sizes.length);
    expect(after.outBytes - before.outBytes).toBe(sizes.reduce((s, n) => s + n, 0));
    await stop();
  });

  it('publishParts - the parts arrive as one message, concatenated, on the fast path and on nats.js\'s (non-ASCII subject)', async () => {
    const parts = [Uint8Array.of(1, 2), new Uint8Array(0), new Uint8Array(300).fill(9), Uint8Array.of(3)];
    const whole = Buffer.concat(parts);
    for (const subject of [RawBus.subject('test', 'parts'), 'esp.raw.test.parts-größe']) {
      const got: Uint8Array[] = [];
      const replies: Array<string | undefined> = [];
      const stop = await a.bus.subscribe(subject, (m) => {
        got.push(m.data.slice());
        replies.push(m.reply);
      });
      const before = b.nc.stats();
      // a PUB line over 64 bytes (cut from the slab)
      const reply = 'esp.raw.test.parts-reply.a-reply-subject-long-enough-for-a-line-over-64-bytes';
      b.bus.publishParts(subject, parts, { reply });
      b.bus.publishParts(subject, [Uint8Array.of(5)]);
      await b.bus.flush();
      for (let t = 0; t < 100 && got.length < 2; t++) await new Promise((r) => setTimeout(r, 10));
      expect(got.map((g) => Buffer.from(g).toString('hex'))).toEqual([whole.toString('hex'), '05']);
      expect(replies).toEqual([reply, undefined]);
      expect(b.nc.stats().outBytes - before.outBytes).toBe(whole.length + 1);
      await stop();
    }
  });

  it('publish - a subject nats.js refuses (space) is refused the same way; a non-ASCII subject still goes through nats.js', async () => {
    expect(() => b.bus.publish('esp.raw.test.bad subject', new Uint8Array(1))).toThrow(/subject/i);
    expect(() => b.bus.publish('esp.raw.test.ok', new Uint8Array(1), { reply: 'esp.raw.test.bad reply' })).toThrow(/subject/i);
    const subject = 'esp.raw.test.größe';
    const got: number[] = [];
    const stop = await a.bus.subscribe(subject, (m) => got.push(m.data[0]!));
    b.bus.publish(subject, Uint8Array.of(42));
    await b.bus.flush();
    for (let t = 0; t < 100 && got.length === 0; t++) await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual([42]);
    await stop();
  });

  it('publish - on a closed connection it throws as nats.js does', async () => {
    const c = await Middleware.connect({ name: 'pub-c', servers: ns.url });
    await c.close();
    expect(() => c.bus.publish('esp.raw.test.closed', new Uint8Array(1))).toThrow(/closed/i);
  });

  it('socket - the installed nats.js has what the lean socket writes and reads need (an upgrade that drops it fails here, not silently)', () => {
    expect(hasLeanSocket(b.nc)).toBe(true);
    const transport = (b.nc as unknown as { protocol: { transport: { send: unknown; constructor: { prototype: { send: unknown } } } } }).protocol.transport;
    expect(transport.send).not.toBe(transport.constructor.prototype.send);
  });

  it('socket - a socket destroyed under the connection: publishing does not throw, and after the reconnect (a new transport, written and read the same way) messages flow both ways again', async () => {
    const c = await Middleware.connect({ name: 'pub-d', servers: ns.url });
    const subject = RawBus.subject('test', 'lean-writes');
    const got: string[] = [];
    const stop = await a.bus.subscribe(subject, (m) => got.push(new TextDecoder().decode(m.data)));
    const proto = (c.nc as unknown as { protocol: { transport: { socket: { destroy(): void }; send: unknown; constructor: { prototype: { send: unknown } } } } }).protocol;
    const first = proto.transport;
    const reconnected = new Promise<void>((resolve) => c.bus.onConnectionChange((ch) => ch === 'reconnect' && resolve()));
    first.socket.destroy();
    // before nats.js has seen the close: the write goes to a destroyed socket, which must not throw or crash
    expect(() => c.bus.publish(subject, new TextEncoder().encode('lost'))).not.toThrow();
    await new Promise((r) => setTimeout(r, 0));
    await reconnected;
    expect(proto.transport).not.toBe(first);
    expect(proto.transport.send).not.toBe(proto.transport.constructor.prototype.send);
    for (let t = 0; t < 200 && !got.includes('after'); t++) {
      c.bus.publish(subject, new TextEncoder().encode('after'));
      await c.bus.flush();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(got).toContain('after');
    await stop();
    await c.close();
  });
});
