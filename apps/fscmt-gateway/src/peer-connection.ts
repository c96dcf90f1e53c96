/**
 * One TCP connection to an FSCMT peer (MS-FSCMT 2.1, 2.2.1), with bounded buffers:
 *
 * - reading: a streaming frame parser (any chunking; a frame over `maxFrameBytes` is refused at its header);
 * - writing: a send queue where priority-1 frames go before every queued priority-0 frame (2.2.1: "prepended to
 *   any communication queues"), written as fast as the socket takes them, at most `maxQueueBytes` waiting;
 * - stalls: a peer that leaves a frame half sent, or stops reading while we have data for it, for `stallMs`.
 *
 * Garbage, an oversized frame, an over-full send queue or a stall closes this connection alone, with one log line
 * that says why (and the stream offset, for bad frames). Frames are handed on as bytes: what the peer sent, and what
 * it is sent, are frames exactly as a native peer writes them.
 *
 *   const conn = new PeerConnection(socket, { onFrame: (frame, priority) => bus.send(frame), onClose, log });
 *   conn.send(frameBytes, 1);
 */
import type { Socket } from 'node:net';
import { encodeFscmtFrame, FscmtFrameParser, type FscmtPriority } from '@esp/codecs';
import { PriorityQueue } from '@esp/crawl-bus';
import type { Logger } from '@esp/logging';

export interface PeerConnectionOptions {
  onFrame: (frame: Uint8Array, priority: FscmtPriority) => void;
  onClose: (reason: string) => void;
  log?: Logger;
  maxFrameBytes?: number;
  maxQueueBytes?: number;
  stallMs?: number;
}

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_QUEUE_BYTES = 32 * 1024 * 1024;
export const DEFAULT_STALL_MS = 30_000;

export class PeerConnection {
  readonly peer: string;
  private readonly parser: FscmtFrameParser;
  private readonly queue = new PriorityQueue<Uint8Array>();
  private queuedBytes = 0;
  private writable = true;
  /** When the peer began a frame it has not finished, or 0. */
  private partialSince = 0;
  /** When the socket stopped taking our writes, or 0. */
  private blockedSince = 0;
  private readonly watchdog: NodeJS.Timeout;
  private closed = false;
  framesIn = 0;
  framesOut = 0;

  constructor(
    private readonly socket: Socket,
    private readonly opts: PeerConnectionOptions,
  ) {
    this.peer = `${socket.remoteAddress}:${socket.remotePort}`;
    this.parser = new FscmtFrameParser(
      (msg) => {
        this.framesIn++;
        // the codec re-encodes a decoded frame to the very same bytes (FSWCU round trips byte for byte)
        this.opts.onFrame(encodeFscmtFrame(msg.dict, msg.priority, { maxFrameBytes: this.maxFrameBytes }), msg.priority);
      },
      { maxFrameBytes: this.maxFrameBytes },
    );
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => {
      this.writable = true;
      this.blockedSince = 0;
      this.pump();
    });
    socket.on('error', (err) => this.close(`socket error: ${err.message}`, 'info'));
    socket.on('close', () => this.close('peer closed the connection', 'info'));
    const stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
    this.watchdog = setInterval(() => this.checkStall(stallMs), Math.max(10, Math.floor(stallMs / 4)));
    this.watchdog.unref();
  }

  private get maxFrameBytes(): number {
    return this.opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(frame: Uint8Array, priority: FscmtPriority): void {
    if (this.closed) return;
    const max = this.opts.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES;
    if (this.queuedBytes + frame.length > max) {
      this.close(`send queue over ${max} bytes: the peer does not read`, 'warn');
      return;
    }
    this.queue.push(frame, priority);
    this.queuedBytes += frame.length;
    this.pump();
  }

  close(reason: string, level: 'info' | 'warn' = 'warn', details: Record<string, unknown> = {}): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    this.queue.clear();
    this.queuedBytes = 0;
    this.opts.log?.[level]({ peer: this.peer, framesIn: this.framesIn, framesOut: this.framesOut, ...details }, `disconnected: ${reason}`);
    this.socket.destroy();
    this.opts.onClose(reason);
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    try {
      this.parser.parse(chunk);
    } catch (err) {
      const e = err as Error & { code?: string; offset?: number };
      this.close(e.message, 'warn', { code: e.code, offset: e.offset });
      return;
    }
    this.partialSince = this.parser.midFrame ? this.partialSince || Date.now() : 0;
  }

  private pump(): void {
    // Frames stay in the priority queue until the socket takes them, so a priority-1 frame overtakes everything
    // not yet written; the socket's own buffer holds at most one frame beyond its high-water mark.
    while (this.writable && this.queue.length > 0) {
      const frame = this.queue.shift() as Uint8Array;
      this.queuedBytes -= frame.length;
      this.framesOut++;
      if (!this.socket.write(frame)) {
        this.writable = false;
        this.blockedSince = Date.now();
      }
    }
  }

  private checkStall(stallMs: number): void {
    const now = Date.now();
    if (this.partialSince && now - this.partialSince >= stallMs) {
      this.close(`stalled for ${stallMs} ms inside a frame`, 'warn', { offset: this.parser.offset });
    } else if (this.blockedSince && now - this.blockedSince >= stallMs) {
      this.close(`stopped reading for ${stallMs} ms with ${this.queuedBytes} bytes queued`, 'warn');
    }
  }
}
