import type { Msg, NatsConnection, Status, Subscription } from '@nats-io/transport-node';
import { leanSocket, linePublisher, lineReceiver, type LinePublish, type MsgDelivery } from './pub-line';
import { subjectToken } from './subjects';

export interface RawMessage {
  subject: string;
  data: Uint8Array;
  /** The reply subject the sender set (a request's inbox, or the sender's own address for peer protocols). */
  reply: string | undefined;
  /** Answers a request (no-op for a plain publish). */
  respond(data: Uint8Array): boolean;
}

/**
 * A RawMessage over a nats.js message, built once per message delivered: `respond` is a method, not a closure made per
 * message (under tsx, which keeps function names, each such closure also costs a `__name` call). The subject is
 * decoded when first read (PPP's queue and workers never read it, and they handle every message of a request); the
 * reply subject is decoded at once, as before: a variant that decoded it only when read too failed the content
 * distributors' failover e2e, for a cause not found.
 */
class NatsRawMessage implements RawMessage {
  readonly data: Uint8Array;
  readonly reply: string | undefined;
  constructor(private readonly msg: Msg) {
    this.data = msg.data;
    this.reply = msg.reply || undefined;
  }
  get subject(): string {
    return this.msg.subject;
  }
  respond(data: Uint8Array): boolean {
    return this.msg.respond(data);
  }
}

const utf8d = new TextDecoder();

/**
 * A RawMessage read by the lean receive path (pub-line.ts): views on the chunk nats.js read from the socket, as
 * nats.js's own messages are. The subject is decoded when first read, the reply subject at once (as NatsRawMessage).
 */
class LineRawMessage implements RawMessage {
  readonly data: Uint8Array;
  readonly reply: string | undefined;
  constructor(
    private readonly nc: NatsConnection,
    private readonly chunk: Uint8Array,
    private readonly subjectStart: number,
    private readonly subjectEnd: number,
    replyStart: number,
    replyEnd: number,
    dataStart: number,
    size: number,
  ) {
    this.data = chunk.subarray(dataStart, dataStart + size);
    this.reply = replyEnd > replyStart ? utf8d.decode(chunk.subarray(replyStart, replyEnd)) : undefined;
  }
  get subject(): string {
    return utf8d.decode(this.chunk.subarray(this.subjectStart, this.subjectEnd));
  }
  respond(data: Uint8Array): boolean {
    if (!this.reply) return false;
    this.nc.publish(this.reply, data);
    return true;
  }
}

/** True when `m` came through the lean receive path (tests). */
export function readByRawBus(m: RawMessage): boolean {
  return m instanceof LineRawMessage;
}

/**
 * Plain subjects and bytes, for protocols that keep their own frames on the bus (PPP) and for baselines in
 * benchmarks. Subjects are namespaced under esp.raw.<name> so they never collide with server objects.
 */
export class RawBus {
  private readonly pub: LinePublish;
  private readonly markLean: ((sub: Subscription, deliver: MsgDelivery) => void) | undefined;

  constructor(private readonly nc: NatsConnection) {
    this.pub = linePublisher(nc);
    this.markLean = lineReceiver(nc);
    leanSocket(nc);
  }

  static subject(...parts: string[]): string {
    return ['esp', 'raw', ...parts.map(subjectToken)].join('.');
  }

  /**
   * `reply` sets the message's reply subject: peer-to-peer protocols (FSCMT) put the sender's own subject there so
   * the receiver knows whom to answer, as a TCP connection would tell it.
   */
  publish(subject: string, data: Uint8Array, opts?: { reply?: string }): void {
    this.pub(subject, [data], opts?.reply || undefined);
  }

  /**
   * Publishes the concatenation of `parts` as one message, without concatenating them first: nats.js copies every
   * pending piece into one buffer at the flush anyway (end of the tick), so a protocol that frames a large body with a
   * small header (PPP) saves a copy and an allocation per message. The parts are read at the flush: don't change them.
   */
  publishParts(subject: string, parts: readonly Uint8Array[], opts?: { reply?: string }): void {
    this.pub(subject, parts, opts?.reply || undefined);
  }

  async request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const m = await this.nc.request(subject, data, { timeout: timeoutMs });
    return m.data;
  }

  /**
   * Calls handler for every message; returns a function that drains and stops the subscription. Messages are read by
   * RawBus's own `MSG` line parser (pub-line.ts) where nats.js allows it, by nats.js otherwise; same messages, same
   * order, same RawMessage.
   */
  async subscribe(subject: string, handler: (m: RawMessage) => void, opts: { queue?: string } = {}): Promise<() => Promise<void>> {
    const sub: Subscription = this.nc.subscribe(subject, {
      ...(opts.queue ? { queue: opts.queue } : {}),
      callback: (err, msg) => {
        if (err) return;
        handler(new NatsRawMessage(msg));
      },
    });
    const nc = this.nc;
    this.markLean?.(sub, (chunk, s0, s1, rs, re, start, size) => handler(new LineRawMessage(nc, chunk, s0, s1, rs, re, start, size)));
    await this.nc.flush();
    return async () => {
      if (!sub.isClosed()) await sub.drain();
    };
  }

  /**
   * Calls handler each time the connection to NATS is lost and each time it is back. NATS core is at-most-once: what
   * was in flight when it broke is gone, so a protocol that tracks its messages (PPP) re-synchronises on these.
   * Returns a function that stops the calls.
   */
  onConnectionChange(handler: (change: 'disconnect' | 'reconnect') => void): () => void {
    const status = this.nc.status() as AsyncIterable<Status> & { stop?: () => void };
    let stopped = false;
    void (async () => {
      for await (const s of status) {
        if (stopped) break;
        if (s.type === 'disconnect' || s.type === 'reconnect') handler(s.type);
      }
    })();
    return () => {
      stopped = true;
      status.stop?.();
    };
  }

  flush(): Promise<void> {
    return this.nc.flush();
  }
}
