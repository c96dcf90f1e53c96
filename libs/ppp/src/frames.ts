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
  // every PPP message is encoded here, four per request, so it takes a slice of Node's shared buffer pool instead of a
  // zero-filled buffer of its own (safe: every byte is written below) and writes the lengths without a DataView
  const pooled = Buffer.allocUnsafe(size);
  const out = new Uint8Array(pooled.buffer, pooled.byteOffset, size);
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

/** Frames longer than this are not copied by encodeFrameParts but passed on as they are. */
const COPY_MAX = 64;

/**
 * The same bytes as encodeFrames, as a list of parts whose concatenation is the message: the length prefixes and the
 * small frames are written into small header arrays (which V8 allocates cheaply, on its heap, up to 64 bytes), and
 * each frame longer than 64 bytes is a part of its own, not copied. For RawBus.publishParts, which joins the parts
 * into the one payload nats.js's publish takes.
 *
 *   encodeFrameParts([addr, EMPTY, body300])  →  [00 00 00 0a <addr> 00 00 00 00 00 00 01 2c, body300]
 */
export function encodeFrameParts(frames: readonly Uint8Array[]): Uint8Array[] {
  if (frames.length === 0) throw new PppFrameError('a message has at least one frame');
  if (frames.length > MAX_FRAMES) throw new PppFrameError(`a message has at most ${MAX_FRAMES} frames, got ${frames.length}`);
  const parts: Uint8Array[] = [];
  let i = 0;
  while (i < frames.length) {
    // one header: the prefixes and small frames up to the next large frame, and that frame's prefix
    let size = 0;
    let j = i;
    for (; j < frames.length; j++) {
      const n = (frames[j] as Uint8Array).length;
      size += 4;
      if (n > COPY_MAX) break;
      size += n;
    }
    const head = new Uint8Array(size);
    let o = 0;
    for (let k = i; k <= j && k < frames.length; k++) {
      const f = frames[k] as Uint8Array;
      const n = f.length;
      head[o] = n >>> 24;
      head[o + 1] = (n >>> 16) & 0xff;
      head[o + 2] = (n >>> 8) & 0xff;
      head[o + 3] = n & 0xff;
      o += 4;
      if (k === j) break; // the large frame: its prefix only
      if (n > 0) head.set(f, o);
      o += n;
    }
    parts.push(head);
    if (j < frames.length) parts.push(frames[j] as Uint8Array);
    i = j + 1;
  }
  return parts;
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
