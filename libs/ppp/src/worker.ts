/**
 * A PPP worker on NATS: WorkerMachine plus a subscription to its own subject. The handler gets the content frames of
 * a request and returns the content of the reply; requests are served one at a time, as in RFC 6.
 */
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { decodeFrames, encodeFrames } from './frames';
import { pppSubjects } from './subjects';
import { WorkerMachine, type WorkerAction, type WorkerOptions } from './worker-machine';

/**
 * Gets the content frames of a request and returns those of the reply (copied into the reply message at once).
 */
export type PppHandler = (content: Uint8Array[]) => Uint8Array[] | Promise<Uint8Array[]>;

export interface PppWorkerOptions extends WorkerOptions {
  service: string;
  /** Identity on the backend (default: random). */
  id?: string;
  log?: Logger;
  onAction?: (a: WorkerAction) => void;
}

const utf8 = new TextEncoder();

export class PppWorker {
  readonly id: string;
  private unsub: (() => Promise<void>) | undefined;
  private unwatch: (() => void) | undefined;
  private readonly idFrame: Uint8Array;
  private readonly subjects: ReturnType<typeof pppSubjects>;
  readonly machine: WorkerMachine;

  private constructor(
    private readonly bus: RawBus,
    private readonly handler: PppHandler,
    private readonly opts: PppWorkerOptions,
  ) {
    this.id = opts.id ?? `w-${Math.random().toString(36).slice(2, 10)}`;
    this.idFrame = utf8.encode(this.id);
    this.subjects = pppSubjects(opts.service);
    this.machine = new WorkerMachine((a) => this.act(a), opts);
  }

  static async start(bus: RawBus, handler: PppHandler, opts: PppWorkerOptions): Promise<PppWorker> {
    const w = new PppWorker(bus, handler, opts);
    w.unsub = await bus.subscribe(w.subjects.worker(w.id), (m) => {
      try {
        w.machine.onMessage(decodeFrames(m.data));
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message }, 'ppp worker: malformed message dropped');
      }
    });
    // a reset link may have lost a request or our reply: READY again (once resubscribed, on reconnect)
    w.unwatch = bus.onConnectionChange((change) => {
      if (change === 'reconnect') w.machine.onLinkReset();
    });
    w.machine.start();
    return w;
  }

  /** Stops heartbeating and listening, without a word to the queue (it finds out by silence, as with a crash). */
  async stop(): Promise<void> {
    this.machine.stop();
    this.unwatch?.();
    this.unwatch = undefined;
    await this.unsub?.();
    this.unsub = undefined;
  }

  private act(a: WorkerAction): void {
    this.opts.onAction?.(a);
    switch (a.type) {
      case 'send': {
        const frames = [this.idFrame];
        for (const f of a.frames) frames.push(f);
        this.bus.publish(this.subjects.backend, encodeFrames(frames));
        break;
      }
      case 'request':
        this.serve(a.envelope, a.content);
        break;
      case 'queue-dead':
        this.opts.log?.warn({ worker: this.id, retryInMs: a.retryInMs }, 'ppp worker: queue silent, reconnecting');
        break;
      case 'dropped':
        this.opts.log?.debug({ worker: this.id, reason: a.reason }, 'ppp worker: message dropped');
        break;
    }
  }

  private serve(envelope: Uint8Array[], content: Uint8Array[]): void {
    let result: Uint8Array[] | Promise<Uint8Array[]>;
    try {
      result = this.handler(content);
    } catch (err) {
      this.failed(envelope, err);
      return;
    }
    // a handler that answers at once is answered at once: no promise and no microtask per request
    if (Array.isArray(result)) this.machine.reply(envelope, result);
    else
      result.then(
        (reply) => this.machine.reply(envelope, reply),
        (err: unknown) => this.failed(envelope, err),
      );
  }

  private failed(envelope: Uint8Array[], err: unknown): void {
    // RFC 6 has no error reply: the error text goes back as the reply content (logged here)
    this.opts.log?.error({ worker: this.id, err: (err as Error).message }, 'ppp worker: handler failed');
    this.machine.reply(envelope, [utf8.encode(`error: ${(err as Error).message}`)]);
  }
}
