/**
 * A Lazy Pirate client of a PPP queue on NATS: each attempt waits `timeoutMs`; a timeout, "no responders" or a
 * retryable failure (queue full) is retried up to `retries` times with backoff; then PppNoReply.
 *
 * The client has its own reply subjects (one subscription, `.client.<id>.*`) and publishes each attempt with the
 * reply subject of that attempt, instead of a NATS `request` per attempt: nats.js's `request` arms a timer and builds
 * three Error objects (stack traces for async traces) per call, which was about a third of the client's CPU per PPP
 * request. All attempts of one client have the same timeout, so the order they are sent in is the order they expire
 * in: one Map in sending order and one timer, armed for the oldest attempt, do the job of a timer per attempt.
 * A reply to an attempt that has timed out finds nothing and is dropped, as lpclient drops it by reopening its socket.
 */
import type { RawBus, RawMessage } from '@esp/middleware';
import { retry, systemClock, type Clock, type TimerHandle } from '@esp/timers';
import { parseReply, requestFrames } from './client-link';
import { PppError, PppNoReply, PppNoResponders, PppTimeout } from './errors';
import { decodeFrames, encodeFrames } from './frames';
import { pppClientInbox, pppSubjects } from './subjects';

export interface PppClientOptions {
  service: string;
  /** One attempt's timeout (ms, default 2500 as in the Guide's lpclient). */
  timeoutMs?: number;
  /** Attempts after the first (default 3). */
  retries?: number;
  /** Delay before a retry: doubling from this (ms, default 100). */
  retryBackoffMs?: number;
  clock?: Clock;
}

/** An attempt waiting for its reply. */
interface Waiting {
  deadline: number;
  resolve: (data: Uint8Array) => void;
  reject: (err: Error) => void;
}

export class PppClient {
  private readonly subject: string;
  private readonly inbox: ReturnType<typeof pppClientInbox>;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  /** Attempts in the order they were sent, which is the order of their deadlines. */
  private readonly waiting = new Map<number, Waiting>();
  private seq = 0;
  private timer: TimerHandle | undefined;
  private readonly unsub: Promise<(() => Promise<void>) | undefined>;
  private broken: Error | undefined;

  constructor(
    private readonly bus: RawBus,
    private readonly opts: PppClientOptions,
  ) {
    this.subject = pppSubjects(opts.service).frontend;
    this.inbox = pppClientInbox(opts.service, Math.random().toString(36).slice(2, 12));
    this.timeoutMs = opts.timeoutMs ?? 2500;
    this.clock = opts.clock ?? systemClock;
    // the SUB leaves before any request of ours on the same connection, so no reply can come before it
    this.unsub = bus
      .subscribe(this.inbox.all, (m) => this.onReply(m))
      .catch((err: unknown) => {
        this.broken = err as Error;
        return undefined;
      });
  }

  /**
   * Sends the content frames of a request and returns those of the reply. The first attempt runs here, without the
   * retry loop: that loop's closures and promises per call cost about as much as the rest of the client's work for a
   * request, and nearly every request is answered at the first attempt.
   */
  async request(content: Uint8Array | Uint8Array[]): Promise<Uint8Array[]> {
    const frames = encodeFrames(requestFrames(Array.isArray(content) ? content : [content]));
    let data: Uint8Array;
    try {
      data = await this.send(frames);
    } catch (err) {
      return this.retryAfter(frames, err, true);
    }
    try {
      return parseReply(decodeFrames(data));
    } catch (err) {
      return this.retryAfter(frames, err, false);
    }
  }

  /**
   * The attempts after a first one that failed with `first` (`sendFailed`: no reply came, as opposed to a reply that
   * is a failure): the same backoff, attempts and errors as one retry loop over all of them.
   */
  private async retryAfter(frames: Uint8Array, first: unknown, sendFailed: boolean): Promise<Uint8Array[]> {
    const retries = this.opts.retries ?? 3;
    // timeout, no responders or a connection that is down: Lazy Pirate retries; of the replies, only a retryable
    // failure (queue full) is
    const retryable = (err: unknown): boolean => sendFailed || (err instanceof PppError && err.retryable);
    try {
      return await retry(
        async (attempt) => {
          // attempt 0 is the one request() made: its error goes through the loop's checks and backoff as it is
          if (attempt === 0) throw first;
          sendFailed = false;
          let data: Uint8Array;
          try {
            data = await this.send(frames);
          } catch (err) {
            sendFailed = true;
            throw err;
          }
          return parseReply(decodeFrames(data));
        },
        // the waits are real time, as the Guide's lpclient sleeps, whatever clock times the attempts
        { attempts: retries + 1, initialMs: this.opts.retryBackoffMs ?? 100, maxMs: 5000, retryable },
      );
    } catch (err) {
      if (!retryable(err)) throw err;
      throw new PppNoReply(`no reply from PPP service "${this.opts.service}" after ${retries + 1} attempt(s): ${(err as Error | undefined)?.message ?? 'unknown'}`, { cause: err });
    }
  }

  /** Stops listening for replies; attempts still waiting fail as timed out. */
  async close(): Promise<void> {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.waiting.values()) w.reject(new PppTimeout('client closed'));
    this.waiting.clear();
    await (await this.unsub)?.();
  }

  private send(frames: Uint8Array): Promise<Uint8Array> {
    if (this.broken) return Promise.reject(this.broken);
    const n = ++this.seq;
    return new Promise<Uint8Array>((resolve, reject) => {
      this.waiting.set(n, { deadline: this.clock.now() + this.timeoutMs, resolve, reject });
      try {
        this.bus.publish(this.subject, frames, { reply: this.inbox.reply(n) });
      } catch (err) {
        this.waiting.delete(n);
        reject(err as Error);
        return;
      }
      if (!this.timer) this.arm();
    });
  }

  private onReply(m: RawMessage): void {
    const n = this.inbox.attempt(m.subject);
    const w = this.waiting.get(n);
    if (!w) return; // timed out already (or not ours): dropped
    this.waiting.delete(n);
    // nats-server answers a request nobody listens to with an empty message (status 503); a PPP reply never is empty
    if (m.data.length === 0) w.reject(new PppNoResponders(`no queue listens on ${this.subject}`));
    else w.resolve(m.data);
  }

  /** One timer, for the oldest attempt waiting. */
  private arm(): void {
    const oldest = this.waiting.values().next();
    if (oldest.done) return;
    this.timer = this.clock.setTimeout(() => this.expire(), Math.max(0, oldest.value.deadline - this.clock.now()));
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    for (const [n, w] of this.waiting) {
      if (w.deadline > now) break;
      this.waiting.delete(n);
      w.reject(new PppTimeout(`no reply within ${this.timeoutMs} ms`));
    }
    this.arm();
  }
}
