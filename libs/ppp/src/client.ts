/**
 * A Lazy Pirate client of a PPP queue on NATS: each attempt waits `timeoutMs`; a timeout, "no responders" or a
 * retryable failure (queue full) is retried up to `retries` times with backoff; then PppNoReply.
 */
import type { RawBus } from '@esp/middleware';
import { backoffDelay, sleep } from '@esp/timers';
import { parseReply, requestFrames } from './client-link';
import { PppError, PppNoReply } from './errors';
import { decodeFrames, encodeFrames } from './frames';
import { pppSubjects } from './subjects';

export interface PppClientOptions {
  service: string;
  /** One attempt's timeout (ms, default 2500 as in the Guide's lpclient). */
  timeoutMs?: number;
  /** Attempts after the first (default 3). */
  retries?: number;
  /** Delay before a retry: doubling from this (ms, default 100). */
  retryBackoffMs?: number;
}

export class PppClient {
  private readonly subject: string;

  constructor(
    private readonly bus: RawBus,
    private readonly opts: PppClientOptions,
  ) {
    this.subject = pppSubjects(opts.service).frontend;
  }

  /** Sends the content frames of a request and returns those of the reply. */
  async request(content: Uint8Array | Uint8Array[]): Promise<Uint8Array[]> {
    const frames = encodeFrames(requestFrames(Array.isArray(content) ? content : [content]));
    const retries = this.opts.retries ?? 3;
    let last: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(backoffDelay(attempt - 1, { initialMs: this.opts.retryBackoffMs ?? 100, maxMs: 5000 }));
      let data: Uint8Array;
      try {
        data = await this.bus.request(this.subject, frames, this.opts.timeoutMs ?? 2500);
      } catch (err) {
        last = err; // timeout or no responders: Lazy Pirate retries
        continue;
      }
      try {
        return parseReply(decodeFrames(data));
      } catch (err) {
        if (err instanceof PppError && err.retryable) {
          last = err;
          continue;
        }
        throw err;
      }
    }
    throw new PppNoReply(`no reply from PPP service "${this.opts.service}" after ${retries + 1} attempt(s): ${(last as Error | undefined)?.message ?? 'unknown'}`, {
      cause: last,
    });
  }
}
