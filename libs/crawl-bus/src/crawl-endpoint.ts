/**
 * One crawl-cluster peer on NATS: it listens on its address and sends FSCMT frames (MS-FSCMT 2.2.1, unchanged:
 * length header + FSWCU (dict, priority)) to other addresses, with its own address as the reply subject.
 *
 *   const ep = await CrawlEndpoint.start(mw.bus, { self: { cluster: 'c1', role: 'dup', id: 'dup1' }, onBatch, log });
 *   ep.send(from, buildFscmtDuplicateServerMessage({ command: 'PPDUP_KEEPALIVE_ACK' }));
 *
 * Messages that arrive in one turn of the event loop are handed over as one batch with the high-priority ones
 * first (the spec's "prepended to any communication queues"); a duplicate server uses the batch as its group
 * commit. A frame that does not decode is logged and dropped: a bad peer cannot stop the endpoint.
 */
import { decodeFscmtFrame, encodeFscmtFrame, type FscmtPriority, type FswcuDict } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
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
  onBatch: (batch: CrawlInbound[]) => void;
  log?: Logger;
  /** Largest frame body accepted from the bus (default 16 MiB, the codec's limit). */
  maxFrameBytes?: number;
}

export class CrawlEndpoint {
  readonly address: string;
  private readonly inbox = new PriorityQueue<CrawlInbound>();
  private scheduled = false;
  private stopSub: (() => Promise<void>) | undefined;
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
    ep.stopSub = await bus.subscribe(ep.address, (m) => ep.receive(m.data, m.reply));
    return ep;
  }

  send(to: string, dict: FswcuDict, priority: FscmtPriority = 0): void {
    this.sendFrame(to, encodeFscmtFrame(dict, priority));
  }

  /** Sends an already encoded frame (the gateway passes frames through byte for byte). */
  sendFrame(to: string, frame: Uint8Array, from = this.address): void {
    this.sent++;
    this.bus.publish(to, frame, { reply: from });
  }

  flush(): Promise<void> {
    return this.bus.flush();
  }

  async stop(): Promise<void> {
    await this.stopSub?.();
    this.stopSub = undefined;
  }

  private receive(frame: Uint8Array, from: string | undefined): void {
    let decoded;
    try {
      decoded = decodeFscmtFrame(frame, { maxFrameBytes: this.opts.maxFrameBytes });
    } catch (err) {
      this.dropped++;
      this.opts.log?.warn({ from, err: (err as Error).message, code: (err as { code?: string }).code }, 'dropped a bad FSCMT frame');
      return;
    }
    this.inbox.push({ from, dict: decoded.dict, priority: decoded.priority, frame }, decoded.priority);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.deliver());
    }
  }

  private deliver(): void {
    this.scheduled = false;
    const batch = this.inbox.drain();
    if (batch.length > 0) this.opts.onBatch(batch);
  }
}
