/**
 * ZeroMQ RFC 6 (PPP) constants and the shape of its messages, as seen on one worker link.
 *
 *   READY     1 frame: 0x01
 *   HEARTBEAT 1 frame: 0x02
 *   REQUEST / REPLY: [address stack...], empty delimiter, content (1 or more frames)
 */
export const PPP_READY = 0x01;
export const PPP_HEARTBEAT = 0x02;
export const READY_FRAME = Uint8Array.of(PPP_READY);
export const HEARTBEAT_FRAME = Uint8Array.of(PPP_HEARTBEAT);
export const EMPTY_FRAME = new Uint8Array(0);

/** Defaults of the RFC and the Guide: heartbeat every second, a peer silent for 3 heartbeats is dead. */
export const HEARTBEAT_INTERVAL_MS = 1000;
export const HEARTBEAT_LIVENESS = 3;
export const RECONNECT_INITIAL_MS = 1000;
export const RECONNECT_MAX_MS = 32_000;

export type PppMessage =
  | { kind: 'ready' }
  | { kind: 'heartbeat' }
  /** REQUEST or REPLY: the address stack (without the delimiter) and the content. */
  | { kind: 'envelope'; envelope: Uint8Array[]; content: Uint8Array[] }
  | { kind: 'malformed'; reason: string };

/** Classifies the frames of one message (identity of the sender already removed). */
export function parsePppMessage(frames: readonly Uint8Array[]): PppMessage {
  if (frames.length === 1) {
    const f = frames[0];
    if (f && f.length === 1 && f[0] === PPP_READY) return { kind: 'ready' };
    if (f && f.length === 1 && f[0] === PPP_HEARTBEAT) return { kind: 'heartbeat' };
    return { kind: 'malformed', reason: 'a 1-frame message must be READY (0x01) or HEARTBEAT (0x02)' };
  }
  let delimiter = -1;
  for (let i = 0; i < frames.length; i++) {
    if (frames[i]?.length === 0) {
      delimiter = i;
      break;
    }
  }
  if (delimiter < 0) return { kind: 'malformed', reason: 'no empty delimiter after the address stack' };
  if (delimiter === frames.length - 1) return { kind: 'malformed', reason: 'no content after the empty delimiter' };
  return { kind: 'envelope', envelope: frames.slice(0, delimiter), content: frames.slice(delimiter + 1) };
}

export function envelopeFrames(envelope: readonly Uint8Array[], content: readonly Uint8Array[]): Uint8Array[] {
  // runs for every request and reply (queue and worker): plain pushes, not spreads of iterables
  const out: Uint8Array[] = [];
  for (const f of envelope) out.push(f);
  out.push(EMPTY_FRAME);
  for (const f of content) out.push(f);
  return out;
}
