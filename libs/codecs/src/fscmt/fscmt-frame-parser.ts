/**
 * Streaming FSCMT frame parser: feed it bytes in any chunking, it calls `onMessage` once per complete frame.
 *
 *   const parser = new FscmtFrameParser((msg) => handle(msg.dict, msg.priority), { maxFrameBytes: 1 << 20 });
 *   for await (const chunk of socket) parser.parse(chunk);
 *   parser.end(); // throws FscmtTruncatedFrameError if the stream stopped inside a frame
 *
 * Memory is bounded by `maxFrameBytes`: a header announcing more is refused before any of its body is buffered,
 * and a partial frame is gathered in one buffer that grows by doubling with the bytes actually received (never
 * beyond the announced length), so neither a false length nor a trickle of tiny chunks can inflate memory. After a failure (a CodecError, or an exception
 * thrown by `onMessage`, which leaves the rest of that chunk unread) the stream cannot be resynchronised, so the
 * parser keeps rethrowing that error.
 */
import { FSWCU_DEFAULT_MAX_DEPTH } from '../fswcu/fswcu-decoder';
import { fswcuCopyBytes } from '../fswcu/fswcu-slab';
import { FscmtFrameTooLargeError, FscmtTruncatedFrameError } from './fscmt-errors';
import { decodeFscmtBody, FSCMT_DEFAULT_MAX_FRAME_BYTES, FSCMT_HEADER_BYTES, type FscmtMessage } from './fscmt-frame';

export interface FscmtFrameParserOptions {
  /** Largest frame body accepted, in bytes. Default 16 MiB. */
  maxFrameBytes?: number;
  /** Deepest FSWCU nesting accepted inside a frame. Default 1000. */
  maxDepth?: number;
}

export class FscmtFrameParser {
  private readonly onMessage: (message: FscmtMessage) => void;
  private readonly maxFrameBytes: number;
  private readonly maxDepth: number;
  /** Stream offset of the next byte to be parsed. */
  private streamOffset = 0;
  /** Stream offset of the current frame's header. */
  private frameStart = 0;
  private readonly header = new Uint8Array(FSCMT_HEADER_BYTES);
  private headerFill = 0;
  /** Body length of the current frame, or -1 while its header is still being read. */
  private bodyLength = -1;
  /** The partial body gathered so far (its first bodyFill bytes), when the body spans chunks. */
  private partial: Uint8Array | undefined;
  private bodyFill = 0;
  private failure: unknown;
  private failed = false;

  constructor(onMessage: (message: FscmtMessage) => void, options: FscmtFrameParserOptions = {}) {
    this.onMessage = onMessage;
    this.maxFrameBytes = options.maxFrameBytes ?? FSCMT_DEFAULT_MAX_FRAME_BYTES;
    this.maxDepth = options.maxDepth ?? FSWCU_DEFAULT_MAX_DEPTH;
  }

  /** Bytes consumed so far. */
  get offset(): number {
    return this.streamOffset;
  }

  /** True while a frame has begun and not ended (a transport uses it to detect a peer that stalls mid-frame). */
  get midFrame(): boolean {
    return this.headerFill > 0 || this.bodyLength >= 0;
  }

  parse(chunk: Uint8Array): void {
    if (this.failed) throw this.failure;
    try {
      this.consume(chunk);
    } catch (err) {
      this.failed = true;
      this.failure = err;
      throw err;
    }
  }

  /** Declares the end of the stream: an error if it stopped inside a frame. */
  end(): void {
    if (this.failed) throw this.failure;
    if (this.headerFill > 0 && this.bodyLength < 0) {
      this.fail(
        new FscmtTruncatedFrameError(
          `stream ended inside a frame header (${this.headerFill} of ${FSCMT_HEADER_BYTES} bytes)`,
          this.frameStart,
        ),
      );
    }
    if (this.bodyLength >= 0) {
      this.fail(
        new FscmtTruncatedFrameError(
          `stream ended inside a frame (${this.bodyFill} of ${this.bodyLength} body bytes received)`,
          this.frameStart,
        ),
      );
    }
  }

  private consume(chunk: Uint8Array): void {
    const base = this.streamOffset;
    const n = chunk.length;
    let i = 0;
    // A header completing at the very end of a chunk may announce an empty body: handle it now, not on the next chunk.
    while (i < n || (this.bodyLength >= 0 && this.bodyFill === this.bodyLength)) {
      if (this.bodyLength < 0) {
        if (this.headerFill === 0) this.frameStart = base + i;
        if (this.headerFill === 0 && n - i >= FSCMT_HEADER_BYTES) {
          this.startBody(((chunk[i] << 24) | (chunk[i + 1] << 16) | (chunk[i + 2] << 8) | chunk[i + 3]) >>> 0);
          i += FSCMT_HEADER_BYTES;
        } else {
          this.header[this.headerFill++] = chunk[i++];
          if (this.headerFill < FSCMT_HEADER_BYTES) continue;
          const h = this.header;
          this.startBody(((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0);
        }
      }
      const need = this.bodyLength - this.bodyFill;
      const take = Math.min(need, n - i);
      let body: Uint8Array | undefined;
      if (this.bodyFill === 0 && take === need) {
        // The whole body is in this chunk: one private copy, no reassembly.
        body = fswcuCopyBytes(chunk.subarray(i, i + need));
      } else {
        this.gather(chunk.subarray(i, i + take));
        if (this.bodyFill === this.bodyLength) body = this.partial;
      }
      i += take;
      if (body !== undefined) {
        this.streamOffset = base + i;
        this.emit(body);
      }
    }
    this.streamOffset = base + n;
  }

  private startBody(length: number): void {
    if (length > this.maxFrameBytes) throw new FscmtFrameTooLargeError(length, this.maxFrameBytes, this.frameStart);
    this.bodyLength = length;
    this.bodyFill = 0;
    this.headerFill = 0;
  }

  private emit(body: Uint8Array): void {
    const frameStart = this.frameStart;
    // Reset before decoding and before the handler runs, so neither can leave a half-consumed frame behind.
    this.bodyLength = -1;
    this.bodyFill = 0;
    this.partial = undefined;
    const { dict, priority } = decodeFscmtBody(body, frameStart + FSCMT_HEADER_BYTES, this.maxDepth);
    this.onMessage({ dict, priority, offset: frameStart, frameBytes: FSCMT_HEADER_BYTES + body.length });
  }

  private gather(bytes: Uint8Array): void {
    const needed = this.bodyFill + bytes.length;
    const current = this.partial;
    if (current === undefined || current.length < needed) {
      const capacity = Math.min(this.bodyLength, Math.max(needed, 2 * (current?.length ?? 0), 4096));
      const grown = new Uint8Array(capacity);
      if (current !== undefined) grown.set(current.subarray(0, this.bodyFill));
      this.partial = grown;
    }
    this.partial?.set(bytes, this.bodyFill);
    this.bodyFill = needed;
  }

  private fail(err: unknown): never {
    this.failed = true;
    this.failure = err;
    throw err;
  }
}
