import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Middleware, RawBus, type RawMessage } from '../src';
import { withTwoConnections } from './two-connections';

const te = new TextEncoder();
const td = new TextDecoder();

/** RawBus.subscribe against a real nats-server: every message arrives whole, in order, with its subject and reply. */
describe('raw bus receive', () => {
  let a: Middleware;
  let b: Middleware;

  withTwoConnections('recv', (c) => ({ a, b } = c));

  const payload = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 13 + n) & 0xff);

  async function collect(bus: RawBus, subject: string, send: () => Promise<void>, count: number): Promise<{ m: RawMessage; data: Uint8Array }[]> {
    const got: { m: RawMessage; data: Uint8Array }[] = [];
    const stop = await bus.subscribe(subject, (m) => got.push({ m, data: m.data.slice() }));
    await send();
    for (let t = 0; t < 200 && got.length < count; t++) await new Promise((r) => setTimeout(r, 10));
    await stop();
    return got;
  }

  it('receive - payloads of 0 to 100,000 bytes arrive byte for byte with their subject and reply, in order, counted in the stats', async () => {
    const subject = RawBus.subject('test', 'receive');
    const sizes = [0, 1, 9, 10, 99, 100, 255, 1000, 65_536, 100_000, 3, 0];
    const before = a.nc.stats();
    const got = await collect(
      a.bus,
      subject,
      async () => {
        for (const [i, n] of sizes.entries()) b.bus.publish(subject, payload(n), i % 2 === 1 ? { reply: `esp.raw.test.reply.${i}` } : undefined);
        await b.bus.flush();
      },
      sizes.length,
    );
    expect(got.map((g) => g.data.length)).toEqual(sizes);
    for (const [i, n] of sizes.entries()) {
      const g = got[i]!;
      expect(Buffer.from(g.data).equals(Buffer.from(payload(n)))).toBe(true);
      expect(g.m.subject).toBe(subject);
      expect(g.m.reply).toBe(i % 2 === 1 ? `esp.raw.test.reply.${i}` : undefined);
    }
    const after = a.nc.stats();
    expect(after.inMsgs - before.inMsgs).toBe(sizes.length);
    expect(after.inBytes - before.inBytes).toBe(sizes.reduce((s, n) => s + n, 0));
  });

  it('receive (fuzzed) - any sequence of payloads and reply subjects, however the socket cuts it into reads, arrives as sent', async () => {
    const subject = RawBus.subject('test', 'receive-fuzzed');
    const token = fc.stringMatching(/^[a-z0-9_-]{1,8}(\.[a-z0-9_-]{1,8}){0,3}$/);
    const message = fc.record({ data: fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ minLength: 20_000, maxLength: 70_000 })), reply: fc.option(token, { nil: undefined }) });
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 30 }), async (sent) => {
        const got = await collect(
          a.bus,
          subject,
          async () => {
            for (const s of sent) b.bus.publish(subject, s.data, s.reply ? { reply: s.reply } : undefined);
            await b.bus.flush();
          },
          sent.length,
        );
        expect(got.map((g) => [Buffer.from(g.data).toString('hex'), g.m.reply])).toEqual(sent.map((s) => [Buffer.from(s.data).toString('hex'), s.reply]));
      }),
      { numRuns: 15 },
    );
  });

  it('receive - respond answers a request; nats.js requests on the same connection are answered too', async () => {
    const subject = RawBus.subject('test', 'receive-echo');
    const stop = await a.bus.subscribe(subject, (m) => m.respond(Uint8Array.from([...m.data].reverse())));
    expect(td.decode(await b.bus.request(subject, te.encode('abc'), 2000))).toBe('cba');
    expect(td.decode(await a.bus.request(subject, te.encode('xyz'), 2000))).toBe('zyx');
    await stop();
  });

  it('receive - after a reconnect the subscription receives again', async () => {
    const subject = RawBus.subject('test', 'receive-reconnect');
    const got: string[] = [];
    const stop = await a.bus.subscribe(subject, (m) => got.push(td.decode(m.data)));
    const reconnected = new Promise<void>((resolve) => a.bus.onConnectionChange((ch) => ch === 'reconnect' && resolve()));
    await a.nc.reconnect();
    await reconnected;
    for (let t = 0; t < 200 && got.length === 0; t++) {
      b.bus.publish(subject, te.encode('after'));
      await b.bus.flush();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(got).toContain('after');
    await stop();
  });
});
