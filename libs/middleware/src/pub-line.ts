/**
 * NATS protocol lines written and read by RawBus itself, on the nats.js connection and through its own buffers.
 *
 * Out: a publish that writes its own `PUB` line bytes. nats.js builds the line of every publish as a string and encodes it
 * with `TextEncoder.encode`, a new ArrayBuffer each time, and a PPP request makes four publishes. Here the line is
 * written byte by byte into a small array and handed to the same outbound buffer, with the same checks and counters as
 * `ProtocolHandler.publish` of the nats.js version installed.
 * Anything out of the ordinary (a closed or draining connection, a subject that is not printable ASCII, a payload over
 * the server's limit, a nats.js without these internals) takes nats.js's own `publish`, which throws or copes as before.
 *
 *   const pub = linePublisher(nc);
 *   pub('esp.raw.ppp.svc.frontend', [header, body], 'esp.raw.ppp.svc.client.x.1');   // payload = header + body
 *
 * The socket: written and read without nats.js's promise per write and async iteration per read (see leanSocket).
 *
 * In: `MSG` lines read before nats.js's parser sees them (see lineReceiver below).
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/** The part of nats.js's ProtocolHandler (nats-core 3.x) that publishing uses. */
interface ProtocolInternals {
  isClosed(): boolean;
  noMorePublishing: boolean;
  info?: { max_payload?: number };
  outMsgs: number;
  outBytes: number;
  sendCommand(cmd: Uint8Array, ...payloads: Uint8Array[]): void;
}

/** Publishes the concatenation of `parts` (one part: a plain publish); parts are referenced until the flush, not copied. */
export type LinePublish = (subject: string, parts: readonly Uint8Array[], reply?: string) => void;

const CRLF = Uint8Array.of(13, 10);
const P = 0x50;
const U = 0x55;
const B = 0x42;
const SPACE = 0x20;

function internals(nc: NatsConnection): ProtocolInternals | undefined {
  const p = (nc as unknown as { protocol?: Partial<ProtocolInternals> }).protocol;
  if (!p || typeof p.sendCommand !== 'function' || typeof p.isClosed !== 'function') return undefined;
  if (typeof p.outMsgs !== 'number' || typeof p.outBytes !== 'number' || typeof p.noMorePublishing !== 'boolean') return undefined;
  return p as ProtocolInternals;
}

/** Writes `s` at `o`; -1 if a character is not printable ASCII (NATS subjects here always are). */
function writeToken(out: Uint8Array, o: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= SPACE || c >= 0x7f) return -1;
    out[o++] = c;
  }
  return o;
}

function digits(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

/** The `d` digits of a non-negative integer written at `o`; returns the next offset. */
function writeInt(out: Uint8Array, o: number, n: number, d: number): number {
  let i = o + d;
  do {
    out[--i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  } while (n > 0);
  return o + d;
}

/** True when this nats.js exposes what the fast path needs (a test pins it, so an upgrade that drops it is seen). */
export function hasLinePublish(nc: NatsConnection): boolean {
  return internals(nc) !== undefined;
}

/** One payload from its parts (the nats.js path takes a single array). */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] ?? new Uint8Array(0);
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * V8 keeps typed arrays of up to 64 bytes on its heap (cheap); a larger one gets a backing store of its own (malloc).
 * A line with a reply subject is often longer: those are cut from a shared slab, as Buffer.allocUnsafe does from its
 * pool (nats.js copies every part into one buffer at the flush, and a slab is never written twice).
 */
const SLAB_SIZE = 64 * 1024;
let slab = new ArrayBuffer(SLAB_SIZE);
let slabUsed = 0;
function lineBuffer(n: number): Uint8Array {
  if (n <= 64) return new Uint8Array(n);
  if (n > SLAB_SIZE / 8) return new Uint8Array(n);
  if (slabUsed + n > SLAB_SIZE) {
    slab = new ArrayBuffer(SLAB_SIZE);
    slabUsed = 0;
  }
  const out = new Uint8Array(slab, slabUsed, n);
  slabUsed += n;
  return out;
}

export function linePublisher(nc: NatsConnection): LinePublish {
  const fallback: LinePublish = (subject, parts, reply) => nc.publish(subject, concat(parts), reply ? { reply } : undefined);
  const proto = internals(nc);
  if (!proto) return fallback;
  return (subject, parts, reply) => {
    let len = 0;
    for (let i = 0; i < parts.length; i++) len += parts[i]?.length ?? 0;
    const max = proto.info?.max_payload;
    if (proto.isClosed() || proto.noMorePublishing || subject.length === 0 || reply === '' || (max !== undefined && len > max)) {
      fallback(subject, parts, reply);
      return;
    }
    // "PUB " subject " " [reply " "] digits "\r\n"
    const d = digits(len);
    const line = lineBuffer(4 + subject.length + 1 + (reply ? reply.length + 1 : 0) + d + 2);
    line[0] = P;
    line[1] = U;
    line[2] = B;
    line[3] = SPACE;
    let o = writeToken(line, 4, subject);
    if (o >= 0) line[o++] = SPACE;
    if (o >= 0 && reply) {
      o = writeToken(line, o, reply);
      if (o >= 0) line[o++] = SPACE;
    }
    if (o < 0) {
      fallback(subject, parts, reply);
      return;
    }
    o = writeInt(line, o, len, d);
    line[o] = 13;
    line[o + 1] = 10;
    proto.outBytes += len;
    proto.outMsgs++;
    if (parts.length === 1) proto.sendCommand(line, parts[0] as Uint8Array, CRLF);
    else proto.sendCommand(line, ...parts, CRLF);
  };
}

/**
 * A message as the lean receive path hands it over: offsets into the socket chunk nats.js read (nothing copied or
 * decoded). replyEnd === replyStart when the message has no reply subject.
 */
export type MsgDelivery = (
  chunk: Uint8Array,
  subjectStart: number,
  subjectEnd: number,
  replyStart: number,
  replyEnd: number,
  dataStart: number,
  size: number,
) => void;

/** The parts of nats.js's Parser and ProtocolHandler (nats-core 3.x) that receiving uses. */
interface ParserInternals {
  state: number;
  parse(buf: Uint8Array): void;
}
interface SubInternals {
  received: number;
  max?: number;
  unsubscribe(): void;
  [DELIVER]?: MsgDelivery;
}
/** What parseMsgLines needs of the connection (ProtocolHandler). */
export interface MsgLineTarget {
  inMsgs: number;
  inBytes: number;
  subscriptions: { sidCounter: number; get(sid: number): SubInternals | undefined };
  processMsg(msg: { subject: Uint8Array; sid: number; reply: Uint8Array | undefined; size: number; hdr: number }, data: Uint8Array): void;
}
interface ProtocolRecv extends MsgLineTarget {
  parser: ParserInternals;
}

const DELIVER = Symbol('esp.msg-delivery');
/** nats.js's Parser between two protocol messages (State.OP_START). */
const OP_START = 0;
const LF = 10;
const M = 0x4d;
const S = 0x53;
const G = 0x47;

/**
 * Parses the complete `MSG` lines at the start of `buf` and delivers them as nats.js's ProtocolHandler.processMsg
 * would (same counters, same subscription lookup, same auto-unsubscribe): to a subscription marked by lineReceiver
 * with offsets, to any other (requests' inboxes, iterators) through processMsg itself. Returns where it stopped: the
 * end of `buf`, or the first byte of anything else (another protocol message, a message split across reads, one with
 * headers, anything not exactly as nats-server writes it), which nats.js's own parser then takes.
 */
export function parseMsgLines(proto: MsgLineTarget, buf: Uint8Array): number {
  const n = buf.length;
  let i = 0;
  while (i + 4 < n && buf[i] === M && buf[i + 1] === S && buf[i + 2] === G && buf[i + 3] === SPACE) {
    // MSG <subject> <sid> [reply] <size>\r\n<payload>\r\n, single spaces
    const s0 = i + 4;
    let s1 = -1;
    let s2 = -1;
    let s3 = -1;
    let e = s0;
    for (; e < n; e++) {
      const c = buf[e] as number;
      if (c === 13) break;
      if (c === SPACE) {
        if (s1 < 0) s1 = e;
        else if (s2 < 0) s2 = e;
        else if (s3 < 0) s3 = e;
        else return i;
      } else if (c < SPACE || c >= 0x7f) return i;
    }
    if (e + 1 >= n || buf[e + 1] !== LF || s2 < 0) return i;
    const sizeAt = (s3 < 0 ? s2 : s3) + 1;
    if (s1 === s0 || s2 === s1 + 1 || (s3 >= 0 && s3 === s2 + 1) || sizeAt === e || e - sizeAt > 15 || s2 - s1 > 16) return i;
    let sid = 0;
    for (let k = s1 + 1; k < s2; k++) {
      const d = (buf[k] as number) - 0x30;
      if (d < 0 || d > 9) return i;
      sid = sid * 10 + d;
    }
    let size = 0;
    for (let k = sizeAt; k < e; k++) {
      const d = (buf[k] as number) - 0x30;
      if (d < 0 || d > 9) return i;
      size = size * 10 + d;
    }
    const start = e + 2;
    const end = start + size;
    if (end + 2 > n || buf[end] !== 13 || buf[end + 1] !== LF) return i;
    i = end + 2;
    const sub = proto.subscriptions.sidCounter ? proto.subscriptions.get(sid) : undefined;
    const deliver = sub?.[DELIVER];
    if (!sub || !deliver) {
      proto.processMsg({ subject: buf.subarray(s0, s1), sid, reply: s3 < 0 ? undefined : buf.subarray(s2 + 1, s3), size, hdr: -1 }, buf.subarray(start, end));
      continue;
    }
    proto.inMsgs++;
    proto.inBytes += size;
    sub.received += 1;
    deliver(buf, s0, s1, s3 < 0 ? 0 : s2 + 1, s3 < 0 ? 0 : s3, start, size);
    if (sub.max !== undefined && sub.received >= sub.max) sub.unsubscribe();
  }
  return i;
}

const PATCHED = Symbol('esp.msg-lines');

/** Marks a subscription: its messages go to `deliver` (exported for tests; RawBus uses lineReceiver). */
export function deliverTo(sub: object, deliver: MsgDelivery): void {
  (sub as SubInternals)[DELIVER] = deliver;
}

/** Puts parseMsgLines in front of a nats.js Parser (exported for tests). */
export function patchParser(proto: MsgLineTarget, parser: ParserInternals & { [PATCHED]?: true }): void {
  if (parser[PATCHED]) return;
  parser[PATCHED] = true;
  const natsParse = parser.parse;
  parser.parse = (buf: Uint8Array): void => {
    const i = parser.state === OP_START ? parseMsgLines(proto, buf) : 0;
    if (i < buf.length) natsParse.call(parser, i === 0 ? buf : buf.subarray(i));
  };
}

const receiving = new WeakSet<object>();

/**
 * Replaces `obj[key]` (a plain data property of nats.js's ProtocolHandler) with an accessor that keeps the same value
 * and calls `patch` with each new one nats.js sets (it makes a new parser and transport per connection attempt).
 */
function onEachNew<O extends object, K extends keyof O>(obj: O, key: K, patch: (value: O[K]) => void): void {
  let value = obj[key];
  Object.defineProperty(obj, key, {
    configurable: true,
    enumerable: true,
    get: () => value,
    set: (v: O[K]) => {
      value = v;
      patch(v);
    },
  });
}

function protocolRecv(nc: NatsConnection): ProtocolRecv | undefined {
  const p = (nc as unknown as { protocol?: Partial<ProtocolRecv> }).protocol;
  if (!p || typeof p.processMsg !== 'function' || typeof p.inMsgs !== 'number' || typeof p.inBytes !== 'number') return undefined;
  const subs = p.subscriptions;
  if (!subs || typeof subs.get !== 'function' || typeof subs.sidCounter !== 'number') return undefined;
  if (receiving.has(p)) return p as ProtocolRecv;
  const parser = p.parser;
  if (!parser || typeof parser.parse !== 'function' || typeof parser.state !== 'number') return undefined;
  const desc = Object.getOwnPropertyDescriptor(p, 'parser');
  if (!desc || !desc.configurable || !desc.writable) return undefined;
  return p as ProtocolRecv;
}

/** True when this nats.js exposes what the lean receive path needs (a test pins it, so an upgrade that drops it is seen). */
export function hasLineReceive(nc: NatsConnection): boolean {
  return protocolRecv(nc) !== undefined;
}

/**
 * The lean receive path: nats.js parses every byte of a `MSG` line in a state machine, copies nothing but makes a
 * Buffer view per token and a message object per message; this path reads the line in place. Each parser nats.js
 * makes (one per connection attempt) gets parseMsgLines in front of it; messages for a subscription marked with the
 * returned function go to its MsgDelivery, all else as before. Undefined when this
 * nats.js lacks the internals (the caller keeps nats.js's callbacks then).
 */
export function lineReceiver(nc: NatsConnection): ((sub: Subscription, deliver: MsgDelivery) => void) | undefined {
  const proto = protocolRecv(nc);
  if (!proto) return undefined;
  if (!receiving.has(proto)) {
    receiving.add(proto);
    patchParser(proto, proto.parser);
    // nats.js makes a new parser for each connection attempt (ProtocolHandler.prepare / resetOutbound)
    onEachNew(proto, 'parser', (p) => patchParser(proto, p));
  }
  return deliverTo;
}

/** The parts of nats.js's NodeTransport (transport-node 3.x) that writing and reading use. */
interface TransportInternals {
  isClosed: boolean;
  done: boolean;
  yields: Uint8Array[];
  socket?: {
    write(data: Uint8Array): boolean;
    listeners(event: 'data'): ((frame: Uint8Array) => void)[];
    removeListener(event: 'data', fn: (frame: Uint8Array) => void): void;
    on(event: 'data', fn: (frame: Uint8Array) => void): void;
  };
  options?: { debug?: boolean };
  send(frame: Uint8Array): void;
  setupHandlers(): void;
  [LEAN]?: true;
}

const LEAN = Symbol('esp.lean-socket');

/**
 * Writes: nats.js writes each flush of its outbound buffer with `socket.write(frame, callback)` and a promise for the
 * outcome (its `deferred`: a Promise with resolve and reject assigned on it), which it then ignores. Here a plain
 * `socket.write(frame)`: the same bytes in the same order, errors seen as before (the socket's error and close events,
 * which nats.js listens to).
 */
function leanSend(t: TransportInternals): void {
  const natsSend = t.send;
  t.send = function (frame: Uint8Array): void {
    if (this.options?.debug) return natsSend.call(this, frame);
    const socket = this.socket;
    if (this.isClosed || socket === undefined) return;
    try {
      socket.write(frame);
    } catch {
      // as nats.js: the read side or the heartbeats find the connection broken
    }
  };
}

/**
 * Reads: nats.js's socket data handler queues each chunk and resolves a promise (its deferred); an async generator
 * then yields it to a `for await` loop that hands it to the parser (a promise, a generator resumption and several
 * microtasks per read). Here the data handler hands the chunk to the connection's parser in one microtask, in the same
 * order: only when nothing is queued for the loop (the chunks read with the server's INFO, before the handlers, go
 * through it first), never with nats.js's debug option. A parse error (or a subscription callback throwing) ends reading as nats.js's loop does
 * ("reader closed"; the heartbeats then find the connection stale).
 */
function swapDataHandler(proto: { parser: ParserInternals }, t: TransportInternals): void {
  const socket = t.socket;
  const handlers = socket?.listeners('data') ?? [];
  if (!socket || handlers.length !== 1) return; // not as expected: nats.js's reading as it is
  const natsOnData = handlers[0] as (frame: Uint8Array) => void;
  let stopped = false;
  const parse = (frame: Uint8Array): void => {
    if (stopped) return;
    try {
      proto.parser.parse(frame);
    } catch (err) {
      stopped = true;
      console.log('reader closed', err);
    }
  };
  socket.removeListener('data', natsOnData);
  socket.on('data', (frame: Uint8Array) => {
    if (stopped) return;
    if (t.yields.length !== 0 || t.done || t.options?.debug) return natsOnData(frame);
    // in a microtask, as nats.js's loop parses: code that captures stack traces while handling a message (nats.js
    // makes an Error per request answered) walks the short stack of a microtask, not the socket's event stack
    queueMicrotask(() => parse(frame));
  });
}

/** Both, on a transport nats.js has just made (not connected yet: the data handler is swapped once it is set up). */
function leanTransport(proto: { parser: ParserInternals }, t: TransportInternals): void {
  if (t[LEAN] || typeof t.send !== 'function' || typeof t.setupHandlers !== 'function') return;
  t[LEAN] = true;
  leanSend(t);
  const natsSetup = t.setupHandlers;
  t.setupHandlers = function (): void {
    natsSetup.call(this);
    swapDataHandler(proto, this);
  };
}

const socketing = new WeakSet<object>();

/** True when this nats.js exposes what leanSocket needs (a test pins it). */
export function hasLeanSocket(nc: NatsConnection): boolean {
  const p = (nc as unknown as { protocol?: { parser?: ParserInternals; transport?: Partial<TransportInternals> } }).protocol;
  const t = p?.transport;
  if (!p || !t || typeof t.send !== 'function' || typeof t.setupHandlers !== 'function') return false;
  if (typeof t.isClosed !== 'boolean' || typeof t.done !== 'boolean' || !Array.isArray(t.yields) || typeof p.parser?.parse !== 'function') return false;
  if (socketing.has(p)) return true;
  const desc = Object.getOwnPropertyDescriptor(p, 'transport');
  return !!desc && !!desc.configurable && !!desc.writable && t.socket?.listeners('data').length === 1;
}

/**
 * The socket under nats.js, written and read without nats.js's promise per write and async iteration per read (see
 * leanSend and directReads), which a PPP request pays for in each of the four processes it crosses. Applied to the
 * transport in use and to each one nats.js makes later (one per connection attempt). False, and nothing changed, if this nats.js lacks the internals.
 */
export function leanSocket(nc: NatsConnection): boolean {
  if (!hasLeanSocket(nc)) return false;
  const p = (nc as unknown as { protocol: { parser: ParserInternals; transport: TransportInternals } }).protocol;
  if (socketing.has(p)) return true;
  socketing.add(p);
  const transport = p.transport;
  // the transport in use is connected: its data handler is set up already
  transport[LEAN] = true;
  leanSend(transport);
  swapDataHandler(p, transport);
  onEachNew(p, 'transport', (t) => leanTransport(p, t));
  return true;
}
