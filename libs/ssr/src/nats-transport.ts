import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { randomBytes } from 'node:crypto';
import { Packr } from 'msgpackr';
import { ChunkReassembly, DEFAULT_REASSEMBLY_LIMITS, type ReassemblyLimits } from './chunk-reassembly';
import { chunkFrames, FRAME_ROOM, isChunkFrame, readChunkFrame } from './chunks';
import { isSsrMessage, type SsrMessage } from './messages';
import { ssrSubjects, type SsrSubjects } from './subjects';
import type { SsrTransport } from './transport';

const packr = new Packr({ useRecords: false, mapsAsObjects: true });
const MAX_BATCH = 512;

export interface NatsSsrTransportOptions {
  /** Bounds of the reassembly of chunked messages (./chunk-reassembly). */
  reassembly?: Partial<ReassemblyLimits>;
}

/**
 * SSR messages on NATS core subjects (subjects.ts). Messages to the same subject within one turn of the event loop
 * travel as one NATS message (an array): replication of many small updates costs one publish, not one per update.
 * NATS keeps the order of one publisher's messages to one subscriber, which the acknowledgement counting needs.
 * A message larger than the server's max_payload (a batch of a feeding session close to the limit, a load answer with
 * a tree's children) goes as chunks that the receiver reassembles (./chunks, docs/decisions/0016-ssr-chunks.md):
 * none is dropped for its size.
 */
export class NatsSsrTransport implements SsrTransport {
  readonly subjects: SsrSubjects;
  private readonly queues = new Map<string, SsrMessage[]>();
  private scheduled = false;
  private unsubs: (() => Promise<void>)[] = [];
  private readonly reassembly: ChunkReassembly;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  /** This transport as a sender of chunks: its name (set by start) and a random incarnation. */
  private source = randomBytes(6).toString('base64url');
  private chunkSets = 0;
  dropped = 0;
  /** Messages sent as chunks, and the frames they took. */
  readonly chunked = { messages: 0, frames: 0 };

  constructor(
    private readonly bus: RawBus,
    cluster: string,
    private readonly log?: Logger,
    opts: NatsSsrTransportOptions = {},
  ) {
    this.subjects = ssrSubjects(cluster);
    const limits = { ...DEFAULT_REASSEMBLY_LIMITS, ...opts.reassembly };
    this.reassembly = new ChunkReassembly(limits, Date.now, (reason, f) => {
      this.dropped++;
      this.log?.warn({ reason, source: f.source, set: f.set, bytes: f.total }, 'chunked SSR message dropped before it was whole');
    });
  }

  /** Chunked messages reassembled, dropped, and the bytes held for incomplete ones. */
  get reassembled(): { completed: number; dropped: number; heldBytes: number } {
    return { ...this.reassembly.counters, heldBytes: this.reassembly.heldBytes };
  }

  async start(name: string, onMessage: (m: SsrMessage) => void): Promise<void> {
    this.source = `${name}:${this.source}`;
    const handler = (via: string, raw: Uint8Array): void => {
      let data: Uint8Array | undefined = raw;
      if (isChunkFrame(raw)) {
        const f = readChunkFrame(raw);
        if (!f) {
          this.dropped++;
          this.log?.warn({ bytes: raw.length }, 'malformed SSR chunk dropped');
          return;
        }
        data = this.reassembly.take(via, f);
        if (!data) return;
      }
      let v: unknown;
      try {
        v = packr.unpack(data);
      } catch (err) {
        this.dropped++;
        this.log?.warn({ err }, 'undecodable SSR message dropped');
        return;
      }
      if (!Array.isArray(v)) {
        this.dropped++;
        return;
      }
      for (const m of v) {
        if (isSsrMessage(m)) onMessage(m);
        else this.dropped++;
      }
    };
    this.unsubs.push(await this.bus.subscribe(this.subjects.to(name), (m) => handler('to', m.data)));
    this.unsubs.push(await this.bus.subscribe(this.subjects.all, (m) => handler('all', m.data)));
    // incomplete messages whose sender went quiet are dropped even when no further frame comes
    this.sweeper = setInterval(() => this.reassembly.sweep(), 1000);
    this.sweeper.unref?.();
  }

  send(toName: string, m: SsrMessage): void {
    this.enqueue(this.subjects.to(toName), m);
  }

  broadcast(m: SsrMessage): void {
    this.enqueue(this.subjects.all, m);
  }

  async flush(): Promise<void> {
    this.drain();
    await this.bus.flush();
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } catch {
      /* connection already gone */
    }
    await Promise.all(this.unsubs.map((u) => u().catch(() => undefined)));
    this.unsubs = [];
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.reassembly.clear();
  }

  private enqueue(subject: string, m: SsrMessage): void {
    let q = this.queues.get(subject);
    if (!q) this.queues.set(subject, (q = []));
    q.push(m);
    if (q.length >= MAX_BATCH) this.publish(subject, q.splice(0));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    this.scheduled = false;
    for (const [subject, q] of this.queues) if (q.length) this.publish(subject, q.splice(0));
  }

  private publish(subject: string, batch: SsrMessage[]): void {
    // the server's limit, read each time: a reconnect may have brought us to another server
    const limit = this.bus.maxPayload - FRAME_ROOM;
    const bytes = packr.pack(batch);
    if (bytes.length > limit && batch.length > 1) {
      const half = batch.length >> 1;
      this.publish(subject, batch.slice(0, half));
      this.publish(subject, batch.slice(half));
      return;
    }
    try {
      if (bytes.length <= limit) {
        this.bus.publish(subject, bytes);
        return;
      }
      // one message above the limit: its frames, one after the other (the receiver relies on their order)
      const frames = chunkFrames(bytes, this.source, ++this.chunkSets, this.bus.maxPayload);
      this.chunked.messages++;
      this.chunked.frames += frames.length;
      for (const f of frames) this.bus.publish(subject, f);
    } catch (err) {
      this.log?.warn({ err, subject, bytes: bytes.length }, 'SSR publish failed');
    }
  }
}
