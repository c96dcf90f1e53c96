import { Kind, Parser } from '@nats-io/nats-core/internal';
import fc from 'fast-check';
import type { NatsServer } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { Middleware, RawBus, type RawMessage } from '../src';
import { deliverTo, hasLineReceive, parseMsgLines, patchParser, type MsgLineTarget } from '../src/pub-line';
import { readByRawBus } from '../src/raw-bus';
import { withTwoConnections } from './two-connections';

const te = new TextEncoder();
const td = new TextDecoder();

/** RawBus reads `MSG` lines itself (pub-line.ts, parseMsgLines) before nats.js's parser: what it delivers must be what nats.js would have. */
describe('raw bus receive (MSG lines read by RawBus)', () => {
  let ns: NatsServer;
  let a: Middleware;
  let b: Middleware;

  withTwoConnections('recv', (c) => ({ ns, a, b } = c));

  const payload = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 13 + n) & 0xff);

  async function collect(bus: RawBus, subject: string, send: () => Promise<void>, count: number): Promise<{ m: RawMessage; data: Uint8Array; lean: boolean }[]> {
    const got: { m: RawMessage; data: Uint8Array; lean: boolean }[] = [];
    const stop = await bus.subscribe(subject, (m) => got.push({ m, data: m.data.slice(), lean: readByRawBus(m) }));
    await send();
    for (let t = 0; t < 200 && got.length < count; t++) await new Promise((r) => setTimeout(r, 10));
    await stop();
    return got;
  }

  it('receive - the installed nats.js has what the lean path needs (an upgrade that drops it fails here, not silently)', () => {
    expect(hasLineReceive(a.nc)).toBe(true);
  });

  it('receive - payloads of 0 to 100,000 bytes arrive byte for byte with their subject and reply, in order, counted in the stats', async () => {
    const subject = RawBus.subject('test', 'msg-line');
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
    // the small ones before the first large one start the first socket read: read by RawBus, not by nats.js (what
    // follows a message split across reads in the same read is left to nats.js)
    expect(got.slice(0, 8).map((g) => g.lean)).toEqual(Array(8).fill(true));
    const after = a.nc.stats();
    expect(after.inMsgs - before.inMsgs).toBe(sizes.length);
    expect(after.inBytes - before.inBytes).toBe(sizes.reduce((s, n) => s + n, 0));
  });

  it('receive - respond answers a request; nats.js requests on the same connection are still answered', async () => {
    const subject = RawBus.subject('test', 'msg-line-echo');
    let lean = false;
    const stop = await a.bus.subscribe(subject, (m) => {
      lean = readByRawBus(m);
      m.respond(Uint8Array.from([...m.data].reverse()));
    });
    // b.bus.request is nats.js's request: its reply reaches nats.js's inbox subscription through the lean parser
    const reply = await b.bus.request(subject, te.encode('abc'), 2000);
    expect(td.decode(reply)).toBe('cba');
    expect(lean).toBe(true);
    const back = await a.bus.request(subject, te.encode('xyz'), 2000);
    expect(td.decode(back)).toBe('zyx');
    await stop();
  });

  /** nats.js's transport under a connection: its read queue and the promise its reading loop waits on. */
  function transportOf(m: Middleware): { signal: unknown; yields: unknown[] } {
    return (m.nc as unknown as { protocol: { transport: { signal: unknown; yields: unknown[] } } }).protocol.transport;
  }

  it('receive - reads go to the parser without the async iteration of nats.js (its loop never wakes: no new promise, nothing queued)', async () => {
    const subject = RawBus.subject('test', 'direct-read');
    const t = transportOf(a);
    const signal = t.signal;
    const seen: string[] = [];
    const stop = await a.bus.subscribe(subject, (m) => seen.push(td.decode(m.data)));
    for (const x of ['1', '2', '3']) {
      b.bus.publish(subject, te.encode(x));
      await b.bus.flush();
      for (let w = 0; w < 100 && !seen.includes(x); w++) await new Promise((r) => setTimeout(r, 5));
    }
    expect(seen).toEqual(['1', '2', '3']);
    expect(t.signal).toBe(signal);
    expect(t.yields).toEqual([]);
    await stop();
  });

  it('receive - a read that cannot be parsed ends reading as nats.js does ("reader closed"), nothing thrown out of the data event', async () => {
    const c = await Middleware.connect({ name: 'recv-c', servers: ns.url });
    const socket = (c.nc as unknown as { protocol: { transport: { socket: { emit(e: 'data', b: Uint8Array): boolean; destroy(): void } } } }).protocol.transport.socket;
    const logged: unknown[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => logged.push(args[0]);
    try {
      expect(() => socket.emit('data', Buffer.from('GARBAGE\r\n'))).not.toThrow();
      expect(() => socket.emit('data', Buffer.from('MSG a 1 1\r\nx\r\n'))).not.toThrow();
      await new Promise((r) => setTimeout(r, 0));
    } finally {
      console.log = log;
    }
    expect(logged).toEqual(['reader closed']);
    // nothing is read any more (a close would wait for the server's answer to its flush): drop the socket under it
    socket.destroy();
    await Promise.race([c.close().catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
  });

  it('receive - after a reconnect the new connection is read by RawBus too, without the async iteration', async () => {
    const subject = RawBus.subject('test', 'msg-line-reconnect');
    const got: boolean[] = [];
    const stop = await a.bus.subscribe(subject, (m) => got.push(readByRawBus(m)));
    const before = transportOf(a);
    const reconnected = new Promise<void>((resolve) => a.bus.onConnectionChange((ch) => ch === 'reconnect' && resolve()));
    await a.nc.reconnect();
    await reconnected;
    const t = transportOf(a);
    expect(t).not.toBe(before);
    const signal = t.signal;
    for (let t = 0; t < 200; t++) {
      b.bus.publish(subject, te.encode('after'));
      await b.bus.flush();
      await new Promise((r) => setTimeout(r, 10));
      if (got.length > 0) break;
    }
    expect(got.length).toBeGreaterThan(0);
    expect(got.every(Boolean)).toBe(true);
    expect(t.signal).toBe(signal);
    await stop();
  });
});

describe('parseMsgLines (in front of nats.js parser)', () => {
  /** A protocol stream as nats-server writes it, and what it carries. */
  const msg = (subject: string, sid: number, reply: string | undefined, data: Uint8Array): Uint8Array => {
    const line = te.encode(`MSG ${subject} ${sid}${reply ? ` ${reply}` : ''} ${data.length}\r\n`);
    return Buffer.concat([line, data, te.encode('\r\n')]);
  };
  const items: { bytes: Uint8Array; expect: string | undefined }[] = [
    { bytes: msg('a.b', 1, undefined, te.encode('hello')), expect: 'lean 1 a.b - hello' },
    { bytes: msg('a.c', 2, 'r.1', te.encode('to nats')), expect: 'nats 2 a.c r.1 to nats' },
    { bytes: te.encode('PING\r\n'), expect: 'PING' },
    { bytes: msg('x.y.z', 1, 'inbox.22', new Uint8Array(0)), expect: 'lean 1 x.y.z inbox.22 ' },
    { bytes: te.encode('+OK\r\n'), expect: undefined },
    { bytes: msg('a.b', 1, undefined, te.encode('x'.repeat(300))), expect: `lean 1 a.b - ${'x'.repeat(300)}` },
    { bytes: te.encode('HMSG a.b 1 12 14\r\nNATS/1.0\r\n\r\nhi\r\n'), expect: 'nats 1 a.b - hi' },
    { bytes: msg('a.b', 9, undefined, te.encode('no such sid')), expect: undefined },
    { bytes: msg('a.b', 1, undefined, te.encode('last\r\n')), expect: 'lean 1 a.b - last\r\n' },
  ];
  const stream = Buffer.concat(items.map((i) => i.bytes));
  const expected = items.flatMap((i) => (i.expect === undefined ? [] : [i.expect]));

  /**
   * nats.js's parser with the dispatch of ProtocolHandler.push, sid 1 marked for the lean path; `show` renders a
   * payload, `lines: false` leaves parseMsgLines out (nats.js alone).
   */
  function pipeline(show: (b: Uint8Array) => string = (b) => td.decode(b), lines = true): { parse: (b: Uint8Array) => void; seen: string[]; target: MsgLineTarget } {
    const seen: string[] = [];
    const lean = { received: 0, unsubscribe: () => undefined };
    deliverTo(lean, (chunk, s0, s1, rs, re, start, size) => {
      seen.push(`lean 1 ${td.decode(chunk.subarray(s0, s1))} ${re > rs ? td.decode(chunk.subarray(rs, re)) : '-'} ${show(chunk.subarray(start, start + size))}`);
    });
    const other = { received: 0, unsubscribe: () => undefined };
    const target: MsgLineTarget = {
      inMsgs: 0,
      inBytes: 0,
      subscriptions: { sidCounter: 2, get: (sid) => (sid === 1 ? lean : sid === 2 ? other : undefined) },
      processMsg(m, data) {
        this.inMsgs++;
        this.inBytes += data.length;
        if (m.sid === 1 || m.sid === 2) {
          const body = m.hdr > 0 ? data.subarray(m.hdr) : data;
          seen.push(`nats ${m.sid} ${td.decode(m.subject)} ${m.reply ? td.decode(m.reply) : '-'} ${show(body)}`);
        }
      },
    };
    // nats.js's parser, with the dispatch of ProtocolHandler.push
    const parser = new Parser({
      push: (e: { kind: number; msg?: unknown; data?: Uint8Array }) => {
        if (e.kind === Kind.MSG) target.processMsg(e.msg as Parameters<MsgLineTarget['processMsg']>[0], e.data as Uint8Array);
        else if (e.kind === Kind.PING) seen.push('PING');
      },
    } as unknown as ConstructorParameters<typeof Parser>[0]);
    if (lines) patchParser(target, parser as unknown as Parameters<typeof patchParser>[1]);
    return { parse: (b) => parser.parse(b), seen, target };
  }

  it('parseMsgLines - the same deliveries, in the same order, wherever the stream is cut into reads', () => {
    // in one read, every MSG line as nats-server writes it is taken by parseMsgLines up to the first other line,
    // nats.js's parser takes the rest of that read
    const whole = pipeline();
    whole.parse(stream);
    expect(whole.seen).toEqual(expected.map((e, i) => (i < 2 ? e : e.replace(/^lean/, 'nats'))));
    // who read a message depends on the cuts; what was delivered does not
    const what = (s: string): string => s.replace(/^(lean|nats) /, '');
    for (let cut = 0; cut <= stream.length; cut++) {
      for (const second of [stream.length, Math.min(stream.length, cut + 7)]) {
        const p = pipeline();
        p.parse(stream.subarray(0, cut));
        p.parse(stream.subarray(cut, second));
        p.parse(stream.subarray(second));
        expect(p.seen.map(what), `cut at ${cut} and ${second}`).toEqual(expected.map(what));
        expect(p.target.inMsgs).toBe(7);
      }
    }
  });

  it('parseMsgLines - leaves anything not exactly as nats-server writes it to nats.js', () => {
    const odd = [
      te.encode('MSG  a.b 1 2\r\nhi\r\n'), // double space
      te.encode('MSG a.b 1 r s 2\r\nhi\r\n'), // too many tokens
      te.encode('MSG a.b x 2\r\nhi\r\n'), // sid not a number
      te.encode('MSG a.b 1 2\r\nhi!!'), // payload without its CRLF
    ];
    for (const bytes of odd) {
      const target = { inMsgs: 0, inBytes: 0, subscriptions: { sidCounter: 1, get: () => undefined }, processMsg: () => undefined };
      // stops at once: the message is not taken (nats.js's parser gets it, and fails on it as before)
      expect(parseMsgLines(target, bytes)).toBe(0);
    }
  });

  it('parseMsgLines (fuzzed) - any bytes: never throws, stops within the input, takes only whole MSG lines it delivers', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, prefix) => {
        const input = prefix ? Buffer.concat([te.encode('MSG a.b 1 2\r\n'), bytes]) : bytes;
        let delivered = 0;
        const target: MsgLineTarget = { inMsgs: 0, inBytes: 0, subscriptions: { sidCounter: 1, get: () => undefined }, processMsg: () => void delivered++ };
        const i = parseMsgLines(target, input);
        expect(i).toBeGreaterThanOrEqual(0);
        expect(i).toBeLessThanOrEqual(input.length);
        // nothing taken without being delivered, and what was taken ends a message (CRLF)
        if (i > 0) {
          expect(delivered).toBeGreaterThan(0);
          expect([input[i - 2], input[i - 1]]).toEqual([13, 10]);
        } else expect(delivered).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('parseMsgLines (fuzzed) - streams of MSG, HMSG, PING and +OK lines: the same deliveries as nats.js alone, however cut', () => {
    const token = fc.stringMatching(/^[a-z0-9_-]{1,8}(\.[a-z0-9_-]{1,8}){0,3}$/);
    const item = fc.oneof(
      fc.record({ kind: fc.constant('msg' as const), subject: token, sid: fc.constantFrom(1, 2, 9), reply: fc.option(token, { nil: undefined }), data: fc.uint8Array({ maxLength: 200 }) }),
      fc.record({ kind: fc.constantFrom('ping' as const, 'ok' as const, 'hmsg' as const) }),
    );
    const bytesOf = (it: { kind: string; subject?: string; sid?: number; reply?: string; data?: Uint8Array }): Uint8Array =>
      it.kind === 'msg'
        ? msg(it.subject as string, it.sid as number, it.reply, it.data as Uint8Array)
        : it.kind === 'ping'
          ? te.encode('PING\r\n')
          : it.kind === 'ok'
            ? te.encode('+OK\r\n')
            : te.encode('HMSG a.b 1 12 14\r\nNATS/1.0\r\n\r\nhi\r\n');
    const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
    const what = (seen: string[]): string[] => seen.map((x) => x.replace(/^(lean|nats) /, ''));
    fc.assert(
      fc.property(fc.array(item, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 4 }), (items, cutSeeds) => {
        const stream = Buffer.concat(items.map(bytesOf));
        const cuts = [...new Set(cutSeeds.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const pieces: Uint8Array[] = [];
        let from = 0;
        for (const c of [...cuts, stream.length]) {
          pieces.push(stream.subarray(from, c));
          from = c;
        }
        const withLines = pipeline(hex);
        for (const piece of pieces) withLines.parse(piece);
        const natsAlone = pipeline(hex, false);
        natsAlone.parse(stream);
        expect(what(withLines.seen)).toEqual(what(natsAlone.seen));
      }),
      { numRuns: 500 },
    );
  });
});
