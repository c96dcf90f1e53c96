import type { NatsServer } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { Middleware, RawBus } from '../src';
import { withTwoConnections } from './two-connections';

/** RawBus.publish and publishParts against a real nats-server: what arrives is what was sent. */
describe('raw bus publish', () => {
  let ns: NatsServer;
  let a: Middleware;
  let b: Middleware;

  withTwoConnections('pub', (c) => ({ ns, a, b } = c));

  it('publish - payloads of 0 to 100,000 bytes arrive byte for byte, with and without a reply subject, counted in the stats', async () => {
    const subject = RawBus.subject('test', 'publish');
    const got: { data: Uint8Array; reply: string | undefined }[] = [];
    const stop = await a.bus.subscribe(subject, (m) => got.push({ data: m.data.slice(), reply: m.reply }));
    const sizes = [0, 1, 9, 10, 99, 100, 255, 1000, 100_000];
    const payload = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff);
    const before = b.nc.stats();
    for (const [i, n] of sizes.entries()) b.bus.publish(subject, payload(n), i % 2 === 1 ? { reply: `esp.raw.test.reply.${i}` } : undefined);
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

  it('publishParts - the parts arrive as one message, concatenated, with an ASCII and a non-ASCII subject', async () => {
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

  it('publish - a subject nats.js refuses (space) throws; a non-ASCII subject goes through', async () => {
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

  it('publish - on a closed connection it throws', async () => {
    const c = await Middleware.connect({ name: 'pub-c', servers: ns.url });
    await c.close();
    expect(() => c.bus.publish('esp.raw.test.closed', new Uint8Array(1))).toThrow(/closed/i);
  });

  it('publish - while nats-server restarts, publishing does not throw, and after the reconnect messages flow both ways again', async () => {
    const subject = RawBus.subject('test', 'restart');
    const got: string[] = [];
    const stop = await a.bus.subscribe(subject, (m) => got.push(new TextDecoder().decode(m.data)));
    const back = (bus: RawBus): Promise<void> => new Promise<void>((resolve) => bus.onConnectionChange((ch) => ch === 'reconnect' && resolve()));
    const reconnected = Promise.all([back(a.bus), back(b.bus)]);
    await ns.restart();
    expect(() => b.bus.publish(subject, new TextEncoder().encode('during'))).not.toThrow();
    await reconnected;
    for (let t = 0; t < 200 && !got.includes('after'); t++) {
      b.bus.publish(subject, new TextEncoder().encode('after'));
      await b.bus.flush();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(got).toContain('after');
    await stop();
  });
});
