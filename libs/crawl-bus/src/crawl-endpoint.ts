/**
 * One crawl-cluster peer on NATS: it listens on its address and sends FSCMT frames (MS-FSCMT 2.2.1, unchanged:
 * length header + FSWCU (dict, priority)) to other addresses, with its own address as the reply subject.
 *
 * A NATS message between two peers carries a piece of the byte stream a TCP connection between them would carry:
 * one or more whole frames, back to back. Frames sent to one address in one event-loop turn travel together
 * (high priority first, as a connection's send queue orders them), which saves the bus most of its per-message
 * cost when a node scheduler has hundreds of checksum messages in flight.
 *
 *   const ep = await CrawlEndpoint.start(mw.bus, { self: { cluster: 'c1', role: 'dup', id: 'dup1' }, onBatch, log });
 *   ep.send(from, buildFscmtDuplicateServerMessage({ command: 'PPDUP_KEEPALIVE_ACK' }));
 *
 * A peer whose parts need the endpoint to send before the part that takes its messages exists starts it without
 * `onBatch` (it can send, and hears nothing) and calls `listen(onBatch)` once that part is built.
 *
 * With `lingerMs`, frames of priority 0 wait up to that long for more to the same address (a node scheduler sends a
 * checksum message or two per page, pages a millisecond or two apart: each NATS message is a write into the socket
 * that wakes nats-server and then the receiver); a frame of priority 1 leaves at the end of the turn as ever, and
 * takes what waits for its address along, high priority first.
 *
 * Messages that arrive in one turn of the event loop are handed over as one batch with the high-priority ones
 * first (the spec's "prepended to any communication queues"); a duplicate server uses the batch as its group
 * commit. A frame that does not decode is logged and dropped: a bad peer cannot stop the endpoint.
 */
import { encodeFscmtFrame, FscmtFrameParser, type FscmtPriority, type FswcuDict } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { crawlControlSubject, decodeCrawlControl, encodeCrawlControl, type CrawlControl } from './crawl-control';
import { crawlAddress, type CrawlPeer } from './crawl-subjects';
import { PriorityQueue } from './priority-queue';

export interface CrawlInbound {
  /** The sender's address (its reply subject); undefined when the sender gave none (it cannot be answered). */
  from: string | undefined;
  dict: FswcuDict;
  priority: FscmtPriority;
  /** The frame exactly as it travelled. */
  frame: Uint8Array;
}

export interface CrawlEndpointOptions {
  self: CrawlPeer;
  /** Where messages go; without it the endpoint only sends until `listen` is called. */
  onBatch?: (batch: CrawlInbound[]) => void;
  log?: Logger;
  /** Largest frame body accepted from the bus (default 16 MiB, the codec's limit). */
  maxFrameBytes?: number;
  /** Transport events sent to this address (crawl-control.ts); without it the endpoint does not listen for them. */
  onControl?: (msg: CrawlControl) => void;
  /** Frames of priority 0 wait up to this many milliseconds for others to the same address (default 0: until the end of the event-loop turn). */
  lingerMs?: number;
}

/** A NATS message is closed once it holds this many bytes of frames (well under NATS's 1 MiB default payload). */
const MAX_PACKED_BYTES = 32 * 1024;

interface Outgoing {
  frames: PriorityQueue<Uint8Array>;
  bytes: number;
}

export class CrawlEndpoint {
  readonly address: string;
  private readonly inbox = new PriorityQueue<CrawlInbound>();
  private scheduled = false;
  private readonly outgoing = new Map<string, Outgoing>();
  private flushScheduled = false;
  private lingerTimer: NodeJS.Timeout | undefined;
  private stopSub: (() => Promise<void>) | undefined;
  private stopControl: (() => Promise<void>) | undefined;
  private onBatch: ((batch: CrawlInbound[]) => void) | undefined;
  /** Frames dropped because they did not decode. */
  dropped = 0;
  /** Messages sent (a vector clock source for callers that keep one per link). */
  sent = 0;

  private constructor(
    private readonly bus: RawBus,
    private readonly opts: CrawlEndpointOptions,
  ) {
    this.address = crawlAddress(opts.self);
  }

  static async start(bus: RawBus, opts: CrawlEndpointOptions): Promise<CrawlEndpoint> {
    const ep = new CrawlEndpoint(bus, opts);
    const onControl = opts.onControl;
    if (onControl) {
      ep.stopControl = await bus.subscribe(crawlControlSubject(ep.address), (m) => {
        const msg = decodeCrawlControl(m.data);
        if (msg) onControl(msg);
        else opts.log?.warn({ subject: crawlControlSubject(ep.address) }, 'dropped a bad control message');
      });
    }
    if (opts.onBatch) await ep.listen(opts.onBatch);
    return ep;
  }

  /** Subscribes to the endpoint's address: from now on messages go to `onBatch`. Once only. */
  async listen(onBatch: (batch: CrawlInbound[]) => void): Promise<void> {
    if (this.onBatch) throw new Error(`crawl endpoint ${this.address} is already listening`);
    this.onBatch = onBatch;
    this.stopSub = await this.bus.subscribe(this.address, (m) => this.receive(m.data, m.reply));
  }

  send(to: string, dict: FswcuDict, priority: FscmtPriority = 0): void {
    this.sendFrame(to, encodeFscmtFrame(dict, priority));
  }

  /** Queues an encoded frame for `to`; it leaves at the end of this event-loop turn (priority 0 with `lingerMs`: that much later at most). */
  sendFrame(to: string, frame: Uint8Array): void {
    this.sent++;
    const priority = (frame.length > 4 ? frameTail(frame) : 0) as FscmtPriority;
    let out = this.outgoing.get(to);
    if (!out) this.outgoing.set(to, (out = { frames: new PriorityQueue(), bytes: 0 }));
    out.frames.push(frame, priority);
    out.bytes += frame.length;
    if (out.bytes >= MAX_PACKED_BYTES) this.flushTo(to, out);
    else if (priority === 0 && this.opts.lingerMs) this.lingerTimer ??= setTimeout(this.flushLingering, this.opts.lingerMs);
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flushAll);
    }
  }

  /**
   * A transport event for `to` (crawl-control.ts). It is published after the frames already queued here, so a peer
   * hears of a disconnect after everything that came over the connection.
   */
  sendControl(to: string, msg: CrawlControl): void {
    this.flushAll();
    this.bus.publish(crawlControlSubject(to), encodeCrawlControl(msg));
  }

  /** Publishes now what is queued, as given (frames already packed by someone else, with their own reply subject). */
  publishRaw(to: string, bytes: Uint8Array, from: string): void {
    this.bus.publish(to, bytes, { reply: from });
  }

  async flush(): Promise<void> {
    this.flushAll();
    await this.bus.flush();
  }

  async stop(): Promise<void> {
    this.flushAll();
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    await this.stopSub?.();
    this.stopSub = undefined;
    await this.stopControl?.();
    this.stopControl = undefined;
  }

  private readonly flushAll = (): void => {
    this.flushScheduled = false;
    for (const [to, out] of this.outgoing) this.flushTo(to, out);
  };

  private readonly flushLingering = (): void => {
    this.lingerTimer = undefined;
    this.flushAll();
  };

  private flushTo(to: string, out: Outgoing): void {
    this.outgoing.delete(to);
    const frames = out.frames.drain();
    if (frames.length === 0) return;
    let packed: Uint8Array;
    if (frames.length === 1) packed = frames[0] as Uint8Array;
    else {
      packed = new Uint8Array(out.bytes);
      let at = 0;
      for (const f of frames) {
        packed.set(f, at);
        at += f.length;
      }
    }
    this.bus.publish(to, packed, { reply: this.address });
  }

  private receive(data: Uint8Array, from: string | undefined): void {
    // each NATS message holds whole frames: a fresh parser per message, so a bad one cannot desynchronise the next
    const parser = new FscmtFrameParser(
      (msg) => {
        // a view made with the constructor: half the cost of subarray() (no species lookup), once per frame
        const frame = new Uint8Array(data.buffer, data.byteOffset + msg.offset, msg.frameBytes);
        this.inbox.push({ from, dict: msg.dict, priority: msg.priority, frame }, msg.priority);
      },
      { maxFrameBytes: this.opts.maxFrameBytes },
    );
    try {
      parser.parse(data);
      parser.end();
    } catch (err) {
      this.dropped++;
      this.opts.log?.warn({ from, err: (err as Error).message, code: (err as { code?: string }).code }, 'dropped a bad FSCMT frame');
    }
    if (!this.scheduled && this.inbox.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.deliver());
    }
  }

  private deliver(): void {
    this.scheduled = false;
    const batch = this.inbox.drain();
    if (batch.length > 0) this.onBatch?.(batch);
  }
}

/** The priority of an encoded frame: its last FSWCU item is the int 0 or 1 ('i' + 4 bytes little-endian). */
function frameTail(frame: Uint8Array): number {
  return frame[frame.length - 4] === 1 ? 1 : 0;
}
