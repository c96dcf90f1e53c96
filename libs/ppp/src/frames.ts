/**
 * Multipart PPP messages on NATS: a NATS message carries the frames of one ZeroMQ multipart message, each as a
 * 4-byte big-endian length and its bytes. Pure: no transport, no clock.
 *
 *   encodeFrames([identity, READY])  →  00 00 00 05 <identity> 00 00 00 01 01
 */

/** Upper bound of frames in one message (a hostile peer can't make us allocate a huge array). */
export const MAX_FRAMES = 1024;

export class PppFrameError extends Error {
  override readonly name = 'PppFrameError';
  readonly code = 'bad_frames';
  readonly retryable = false;
}

export function encodeFrames(frames: readonly Uint8Array[]): Uint8Array {
  if (frames.length === 0) throw new PppFrameError('a message has at least one frame');
  if (frames.length > MAX_FRAMES) throw new PppFrameError(`a message has at most ${MAX_FRAMES} frames, got ${frames.length}`);
  let size = 0;
  for (const f of frames) size += 4 + f.length;
  // every PPP message is encoded here, several per request, so it takes a slice of a slab shared by messages (one
  // view, no zero-filled buffer of its own) and writes the lengths without a DataView
  const out = allocate(size);
  let o = 0;
  for (const f of frames) {
    const n = f.length;
    out[o] = n >>> 24;
    out[o + 1] = (n >>> 16) & 0xff;
    out[o + 2] = (n >>> 8) & 0xff;
    out[o + 3] = n & 0xff;
    out.set(f, o + 4);
    o += 4 + n;
  }
  return out;
}

/**
 * The encoding of `frames` where it already is in memory (a view on it, not a copy), or undefined. decodeFrames gives views on
 * the message received, each frame right after its length, so a message made of the tail of one received is there
 * already: the queue's answer to a client, [empty, content...], is the worker's reply from its empty delimiter on.
 * Every frame but an empty one must be such a view, at its place; every length is checked in memory. So the span
 * returned is exactly the frames' encoding, whatever they came from; when it is not there, encodeFrames copies.
 * For messages received, which nobody writes to: the view is read when nats.js copies it out, at the end of the tick.
 */
export function encodedSpan(frames: readonly Uint8Array[]): Uint8Array | undefined {
  const last = frames[frames.length - 1];
  if (!last || last.length === 0 || frames.length > MAX_FRAMES) return undefined;
  let size = 0;
  for (const f of frames) size += 4 + f.length;
  const buffer = last.buffer;
  const start = last.byteOffset + last.length - size;
  if (start < 0) return undefined;
  // first the places (nothing read, nothing allocated when a frame is elsewhere), then the lengths in memory
  let o = start + 4;
  for (const f of frames) {
    if (f.length > 0 && (f.buffer !== buffer || f.byteOffset !== o)) return undefined;
    o += f.length + 4;
  }
  const span = new Uint8Array(buffer, start, size);
  o = 0;
  for (const f of frames) {
    const n = f.length;
    if (span[o] !== n >>> 24 || span[o + 1] !== ((n >>> 16) & 0xff) || span[o + 2] !== ((n >>> 8) & 0xff) || span[o + 3] !== (n & 0xff)) return undefined;
    o += 4 + n;
  }
  return span;
}

/** Messages up to this size are cut from a shared slab. */
const SLAB_MESSAGE_MAX = 8 * 1024;
const SLAB_SIZE = 64 * 1024;
let slab = new ArrayBuffer(0);
let slabUsed = 0;

/**
 * `size` bytes of their own: a slice of the current slab, which is never handed out twice (a full slab is left to the
 * messages that hold slices of it, and to the garbage collector once they are gone).
 */
function allocate(size: number): Uint8Array {
  if (size > SLAB_MESSAGE_MAX) return new Uint8Array(size);
  if (slabUsed + size > slab.byteLength) {
    slab = new ArrayBuffer(SLAB_SIZE);
    slabUsed = 0;
  }
  const out = new Uint8Array(slab, slabUsed, size);
  slabUsed += size;
  return out;
}

/** Decodes one message; any malformed input raises PppFrameError and nothing else. */
export function decodeFrames(data: Uint8Array): Uint8Array[] {
  if (data.length === 0) throw new PppFrameError('empty message: no frames');
  const frames: Uint8Array[] = [];
  // plain views on the message's memory: `subarray` of the Buffer nats.js hands us goes through Buffer's species
  // constructor (FastBuffer), which costs more than all the rest of the decode
  const buf = data.buffer;
  const base = data.byteOffset;
  let o = 0;
  while (o < data.length) {
    if (frames.length >= MAX_FRAMES) throw new PppFrameError(`more than ${MAX_FRAMES} frames`);
    if (data.length - o < 4) throw new PppFrameError(`truncated length at byte ${o}: ${data.length - o} of 4 bytes`);
    const len = (((data[o] ?? 0) << 24) | ((data[o + 1] ?? 0) << 16) | ((data[o + 2] ?? 0) << 8) | (data[o + 3] ?? 0)) >>> 0;
    o += 4;
    if (len > data.length - o) throw new PppFrameError(`frame ${frames.length} claims ${len} bytes, ${data.length - o} left`);
    frames.push(new Uint8Array(buf, base + o, len));
    o += len;
  }
  return frames;
}
