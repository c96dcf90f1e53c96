import type { Msg, NatsConnection, Status, Subscription } from '@nats-io/transport-node';
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

/**
 * One payload from its parts (nats.js publishes a single array). Cut from Node's Buffer pool rather than a new
 * Uint8Array: V8 gives a typed array over 64 bytes a backing store of its own, and nats.js copies the payload into its
 * outbound buffer at the flush anyway, so a pooled one is never kept.
 */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] ?? new Uint8Array(0);
  let n = 0;
  for (const p of parts) n += p.length;
  const out = Buffer.allocUnsafe(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * Plain subjects and bytes, for protocols that keep their own frames on the bus (PPP) and for baselines in
 * benchmarks. Subjects are namespaced under esp.raw.<name> so they never collide with server objects.
 */
export class RawBus {
  constructor(private readonly nc: NatsConnection) {}

  /** The largest message the server takes (its INFO max_payload; 1 MiB when it did not say). */
  get maxPayload(): number {
    return this.nc.info?.max_payload ?? 1024 * 1024;
  }

  static subject(...parts: string[]): string {
    return ['esp', 'raw', ...parts.map(subjectToken)].join('.');
  }

  /**
   * `reply` sets the message's reply subject: peer-to-peer protocols (FSCMT) put the sender's own subject there so
   * the receiver knows whom to answer, as a TCP connection would tell it.
   */
  publish(subject: string, data: Uint8Array, opts?: { reply?: string }): void {
    const reply = opts?.reply || undefined;
    this.nc.publish(subject, data, reply ? { reply } : undefined);
  }

  /**
   * Publishes the concatenation of `parts` as one message (PPP frames a body with a small header). nats.js's public
   * publish takes one array, so the parts are joined here; a single part is published as it is.
   */
  publishParts(subject: string, parts: readonly Uint8Array[], opts?: { reply?: string }): void {
    this.publish(subject, concat(parts), opts);
  }

  async request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const m = await this.nc.request(subject, data, { timeout: timeoutMs });
    return m.data;
  }

  /** Calls handler for every message; returns a function that drains and stops the subscription. */
  async subscribe(subject: string, handler: (m: RawMessage) => void, opts: { queue?: string } = {}): Promise<() => Promise<void>> {
    const sub: Subscription = this.nc.subscribe(subject, {
      ...(opts.queue ? { queue: opts.queue } : {}),
      callback: (err, msg) => {
        if (err) return;
        handler(new NatsRawMessage(msg));
      },
    });
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
