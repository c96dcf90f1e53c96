/**
 * The one message on a liveness subject (see livenessSubject): [peer name, READY | HEARTBEAT], so that many peers can
 * share one subject. Pure: bytes in, values out.
 *
 *   encodeLivenessMessage('ip-1', READY_FRAME)  →  frames ['ip-1', 0x01]
 *   decodeLivenessMessage(data)                 →  { kind: 'ready', name: 'ip-1' } | { kind: 'malformed', reason }
 */
import { decodeFrames, encodeFrames, PppFrameError } from './frames';
import { parsePppMessage } from './protocol';

export type LivenessMessage = { kind: 'ready' | 'heartbeat'; name: string } | { kind: 'malformed'; reason: string };

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

/** `name` as a string, or its bytes already encoded (a sender that beats every second encodes it once). */
export function encodeLivenessMessage(name: string | Uint8Array, frame: Uint8Array): Uint8Array {
  return encodeFrames([typeof name === 'string' ? utf8.encode(name) : name, frame]);
}

/** Never throws: anything but [non-empty name, READY | HEARTBEAT] is 'malformed', with the reason. */
export function decodeLivenessMessage(data: Uint8Array): LivenessMessage {
  let frames: Uint8Array[];
  try {
    frames = decodeFrames(data);
  } catch (err) {
    if (err instanceof PppFrameError) return { kind: 'malformed', reason: err.message };
    throw err;
  }
  const [identity, ...rest] = frames;
  if (!identity || identity.length === 0) return { kind: 'malformed', reason: 'no peer name' };
  const msg = parsePppMessage(rest);
  if (msg.kind === 'malformed') return msg;
  if (msg.kind === 'envelope') return { kind: 'malformed', reason: 'a request or reply where READY or HEARTBEAT was expected' };
  return { kind: msg.kind, name: utf8d.decode(identity) };
}
