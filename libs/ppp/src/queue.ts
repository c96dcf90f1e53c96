/**
 * The PPP queue on NATS: QueueMachine plus subscriptions. Workers publish [id, frames...] to the backend subject,
 * clients send NATS requests to the frontend subject.
 */
import type { Logger } from '@esp/logging';
import type { RawBus, RawMessage } from '@esp/middleware';
import { failFrames, parseRequest, replyFrames } from './client-link';
import { decodeFrames, encodedSpan, encodeFrames } from './frames';
import { QueueMachine, type QueueAction, type QueueOptions } from './queue-machine';
import { pppSubjects } from './subjects';

export interface PppQueueOptions extends QueueOptions {
  service: string;
  log?: Logger;
  /** Sees every action of the machine (tests, metrics, benchmarks). */
  onAction?: (a: QueueAction) => void;
}

const utf8d = new TextDecoder();

export class PppQueue {
  /** The reply subject of each request in flight. */
  private readonly clients = new Map<string, string>();
  private seq = 0;
  private readonly prefix = Math.random().toString(36).slice(2, 8);
  private unsubs: (() => Promise<void>)[] = [];
  private readonly subjects: ReturnType<typeof pppSubjects>;
  private readonly workerSubjects = new Map<string, string>();

  private constructor(
    private readonly bus: RawBus,
    private readonly opts: PppQueueOptions,
    readonly machine: QueueMachine,
  ) {
    this.subjects = pppSubjects(opts.service);
  }

  static async start(bus: RawBus, opts: PppQueueOptions): Promise<PppQueue> {
    const subjects = pppSubjects(opts.service);
    const sink: { q?: PppQueue } = {};
    const machine = new QueueMachine((a) => sink.q?.act(a), opts);
    const self = new PppQueue(bus, opts, machine);
    sink.q = self;
    self.unsubs.push(await bus.subscribe(subjects.backend, (m) => self.fromWorker(m)));
    self.unsubs.push(await bus.subscribe(subjects.frontend, (m) => self.fromClient(m)));
    // requests to busy workers, or their replies, may be lost with the link: those workers would stay busy for good
    const unwatch = bus.onConnectionChange((change) => {
      if (change === 'disconnect') machine.onLinkLost();
    });
    self.unsubs.push(() => Promise.resolve(unwatch()));
    machine.start();
    return self;
  }

  async stop(): Promise<void> {
    this.machine.stop();
    await Promise.all(this.unsubs.map((u) => u()));
    this.unsubs = [];
  }

  private fromWorker(m: RawMessage): void {
    let frames: Uint8Array[];
    try {
      frames = decodeFrames(m.data);
    } catch (err) {
      this.opts.log?.warn({ err: (err as Error).message }, 'ppp queue: malformed worker message dropped');
      return;
    }
    const id = frames.shift();
    if (!id || id.length === 0 || frames.length === 0) {
      this.opts.log?.warn('ppp queue: worker message without identity or body dropped');
      return;
    }
    this.machine.onWorker(utf8d.decode(id), frames);
  }

  private fromClient(m: RawMessage): void {
    let content: Uint8Array[];
    try {
      content = parseRequest(decodeFrames(m.data));
    } catch (err) {
      this.opts.log?.warn({ err: (err as Error).message }, 'ppp queue: malformed client request dropped');
      return;
    }
    const id = `${this.prefix}-${++this.seq}`;
    // a request without a reply subject gets no answer, as before (respond() was a no-op for it), but is served
    this.clients.set(id, m.reply ?? '');
    this.machine.onRequest(id, content);
  }

  private act(a: QueueAction): void {
    this.opts.onAction?.(a);
    const subjects = this.subjects;
    switch (a.type) {
      case 'send': {
        let subject = this.workerSubjects.get(a.worker);
        if (!subject) this.workerSubjects.set(a.worker, (subject = subjects.worker(a.worker)));
        this.bus.publish(subject, encodeFrames(a.frames));
        break;
      }
      case 'reply':
      case 'fail': {
        const reply = this.clients.get(a.request);
        this.clients.delete(a.request);
        if (reply) {
          const frames = a.type === 'reply' ? replyFrames(a.content) : failFrames(a.error);
          // a reply is the tail of the worker's message, from its empty delimiter on: published as it came
          this.bus.publish(reply, encodedSpan(frames) ?? encodeFrames(frames));
        }
        if (a.type === 'fail') this.opts.log?.warn({ request: a.request, code: a.error.code }, a.error.message);
        break;
      }
      case 'worker-ready':
        this.opts.log?.info({ worker: a.worker }, 'ppp queue: worker ready');
        break;
      case 'worker-dead':
        this.workerSubjects.delete(a.worker);
        this.opts.log?.warn({ worker: a.worker, silentMs: a.silentMs, request: a.request, reason: a.reason }, 'ppp queue: worker dead');
        break;
      case 'dropped':
        this.opts.log?.debug({ worker: a.worker, reason: a.reason }, 'ppp queue: message dropped');
        break;
    }
  }
}
