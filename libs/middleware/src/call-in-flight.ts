import type { NatsConnection, Msg } from '@nats-io/transport-node';
import { errors } from '@nats-io/transport-node';
import type { InFlightCall } from './bus-state';
import type { CallContext } from './client-proxy';
import { CallAbandoned, ObjectNotExist, TransportError } from './system-exceptions';
import { decodeReply, encodeRequest } from './wire-envelope';

/**
 * A call waiting for its reply, and what ends it before its deadline:
 * - the connection drops (TransportError, data.in_flight: the server may or may not have got it);
 * - the caller abandons it (CallAbandoned);
 * - the server's process is gone: while the call waits, its object is pinged every watchMs, and no responders twice
 *   in a row (a moment apart, so that a server reconnecting is not taken for a dead one) fails it with
 *   ObjectNotExist (data.in_flight); so does an answer from another incarnation than the one that served the
 *   address before the call (the process was restarted, at the same address, and lost the call). A server that is slow, or stopped, still answers no-responders with silence:
 *   that call waits for its deadline as before.
 * The request itself goes on in nats.js until its deadline; a reply that comes after all is dropped there.
 */
export const SETTLE_RETRY_MS = 100;
/** Between the two no-responders pings that prove a server's process gone. */
const CONFIRM_GONE_MS = 200;
const DEFAULT_WATCH_MS = 1_000;

export function waitUntil(p: Promise<void>, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer));
}

export interface CallName {
  method: string;
  interfaceType: string;
  interfaceVersion: string;
}

export function requestEndingEarly(nc: NatsConnection, subject: string, bytes: Uint8Array, call: CallName, ctx: CallContext): Promise<Msg> {
  return new Promise<Msg>((resolve, reject) => new PendingCall(nc, subject, bytes, call, ctx, resolve, reject));
}

/**
 * One call waiting for its reply, as the bus state tracks it (InFlightCall). A class rather than closures: there is
 * one per call, and most end within milliseconds.
 */
class PendingCall implements InFlightCall {
  private settled = false;
  private untrack: (() => void) | undefined;
  private stopWatch: (() => void) | undefined;
  private onAbort: (() => void) | undefined;
  /** The server as it was before this call: one answering later as another incarnation was restarted meanwhile. */
  private readonly known: string | undefined;
  readonly watch: InFlightCall['watch'];

  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
    bytes: Uint8Array,
    private readonly call: CallName,
    private readonly ctx: CallContext,
    private readonly resolve: (m: Msg) => void,
    private readonly reject: (err: Error) => void,
  ) {
    const bus = ctx.bus;
    // only a call sent while the connection is up can be cut by its drop; one sent while it is down waits in the
    // client's buffer and goes out at the reconnect
    if (bus?.current === 'up') {
      const watchMs = ctx.watchMs ?? DEFAULT_WATCH_MS;
      if (watchMs > 0 && call.method !== '__ping') {
        this.known = ctx.incarnations?.get(subject);
        this.watch = { afterMs: watchMs, since: Date.now(), start: () => this.startWatch(watchMs) };
      }
      this.untrack = bus.track(this);
    }
    if (ctx.signal) {
      this.onAbort = () => this.fail(abandoned(call.method, subject, ctx.signal));
      ctx.signal.addEventListener('abort', this.onAbort, { once: true });
    }
    nc.request(subject, bytes, { timeout: ctx.timeoutMs }).then(
      (m) => {
        if (this.end()) this.resolve(m);
      },
      (err: unknown) => this.fail(err as Error),
    );
  }

  /** The connection dropped under it (BusState). */
  dropped(why: Error): void {
    this.fail(new TransportError(`${this.call.method}: ${why.message}; the server may or may not have got it`, { subject: this.subject, in_flight: true }, { cause: why }));
  }

  private startWatch(watchMs: number): void {
    if (this.settled || !this.ctx.bus) return;
    this.stopWatch = watchServer(this.nc, this.subject, this.call, watchMs, this.ctx.bus, this.known, (why) =>
      this.fail(new ObjectNotExist(`${this.call.method}: the object at ${this.subject} ${why} while the call was in flight; it may or may not have done the work`, { subject: this.subject, in_flight: true })),
    );
  }

  private fail(err: Error): void {
    if (this.end()) this.reject(err);
  }

  private end(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.untrack?.();
    this.stopWatch?.();
    if (this.onAbort) this.ctx.signal?.removeEventListener('abort', this.onAbort);
    return true;
  }
}

/**
 * Pings the server's object while a call waits; `onGone` when it has no responders twice in a row, or when another
 * incarnation than `known` (the one that served the address before the call) answers. Returns the stop.
 */
function watchServer(
  nc: NatsConnection,
  subject: string,
  call: CallName,
  watchMs: number,
  bus: NonNullable<CallContext['bus']>,
  known: string | undefined,
  onGone: (why: string) => void,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let incarnation = known;
  const ping = encodeRequest({ interfaceType: call.interfaceType, interfaceVersion: call.interfaceVersion, method: '__ping', args: [], timeoutMs: watchMs });
  const ask = async (): Promise<'gone' | 'replaced' | 'there'> => {
    // a server reconnecting after an outage of ours, or of its own, has no responders for a moment: not proof
    if (bus.current !== 'up' || bus.settling()) return 'there';
    try {
      const r = decodeReply((await nc.request(subject, ping, { timeout: watchMs })).data);
      if (r.ok && r.incarnation !== undefined) {
        if (incarnation === undefined) incarnation = r.incarnation;
        else if (r.incarnation !== incarnation) return 'replaced';
      }
      return 'there';
    } catch (err) {
      return (err instanceof errors.RequestError && err.isNoResponders()) || err instanceof errors.NoRespondersError ? 'gone' : 'there';
    }
  };
  const tick = async (): Promise<void> => {
    timer = undefined;
    if (stopped) return;
    const first = await ask();
    if (stopped) return;
    if (first === 'replaced') return onGone('was answered by a restarted process');
    if (first === 'gone') {
      await new Promise((r) => setTimeout(r, CONFIRM_GONE_MS));
      if (stopped) return;
      const again = await ask();
      if (stopped) return;
      if (again === 'gone') return onGone('went away (no responders)');
      if (again === 'replaced') return onGone('was answered by a restarted process');
    }
    timer = setTimeout(() => void tick(), watchMs);
  };
  // started once the call has waited watchMs already: the first question goes now
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

export function abandoned(method: string, subject: string, signal: AbortSignal | undefined): CallAbandoned {
  const reason = signal?.reason instanceof Error ? signal.reason.message : String(signal?.reason ?? 'abandoned');
  return new CallAbandoned(`${method}: call to ${subject} abandoned: ${reason}`, { subject });
}

