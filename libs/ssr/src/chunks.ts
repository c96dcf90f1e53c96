import { Packr } from 'msgpackr';

/**
 * SSR messages larger than the bus's max_payload travel as chunks (docs/decisions/0016-ssr-chunks.md): the encoded
 * message cut into frames that each fit, reassembled by the receiver before it is decoded. A frame starts with
 * 0xc1, the one byte MessagePack never uses, so it cannot be mistaken for a plain SSR message (a packed array), and a
 * receiver that knows no chunks drops it as undecodable rather than misreads it.
 *
 *   frame = 0xc1 | u16 header length | header [source, set, offset, total] (MessagePack) | data
 *
 * `source` is the sending transport (name and a random incarnation), `set` its counter of chunked messages, `offset`
 * where the data goes in the message of `total` bytes. NATS keeps the order of one publisher's messages to one
 * subscriber, and a sender publishes the frames of a message one after the other: frames arrive in order, so a frame
 * whose offset is not where the set stands means one was lost, and the set is dropped.
 */
export const CHUNK_MARK = 0xc1;
/** Room kept in each frame for the mark, the header length and the header (source names are short). */
export const FRAME_ROOM = 512;

const packr = new Packr({ useRecords: false });

export function isChunkFrame(data: Uint8Array): boolean {
  return data.length > 3 && data[0] === CHUNK_MARK;
}

/** The frames of `bytes`, each at most `maxFrameBytes` long. */
export function chunkFrames(bytes: Uint8Array, source: string, set: number, maxFrameBytes: number): Uint8Array[] {
  const room = Math.max(64, maxFrameBytes - FRAME_ROOM);
  const frames: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += room) {
    const data = bytes.subarray(offset, Math.min(bytes.length, offset + room));
    const header = packr.pack([source, set, offset, bytes.length]);
    const frame = Buffer.allocUnsafe(3 + header.length + data.length);
    frame[0] = CHUNK_MARK;
    frame.writeUInt16BE(header.length, 1);
    frame.set(header, 3);
    frame.set(data, 3 + header.length);
    frames.push(frame);
  }
  return frames;
}

export interface ChunkFrame {
  source: string;
  set: number;
  offset: number;
  total: number;
  data: Uint8Array;
}

/** The parts of a frame, undefined for a malformed one. */
export function readChunkFrame(frame: Uint8Array): ChunkFrame | undefined {
  if (!isChunkFrame(frame)) return undefined;
  const hlen = ((frame[1] ?? 0) << 8) | (frame[2] ?? 0);
  if (3 + hlen > frame.length) return undefined;
  let h: unknown;
  try {
    h = packr.unpack(frame.subarray(3, 3 + hlen));
  } catch {
    return undefined;
  }
  if (!Array.isArray(h) || h.length !== 4) return undefined;
  const [source, set, offset, total] = h as unknown[];
  if (typeof source !== 'string' || !Number.isSafeInteger(set) || !Number.isSafeInteger(offset) || !Number.isSafeInteger(total)) return undefined;
  const data = frame.subarray(3 + hlen);
  if ((offset as number) < 0 || (offset as number) + data.length > (total as number)) return undefined;
  return { source, set: set as number, offset: offset as number, total: total as number, data };
}
