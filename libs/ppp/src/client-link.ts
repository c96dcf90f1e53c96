/**
 * What a client and the queue say to each other on NATS (outside RFC 6, which covers the worker link): a request is
 * [empty delimiter, content...]; the answer is [empty delimiter, content...] or ["FAIL", code, message].
 */
import { PppFrameError } from './frames';
import { pppErrorFromCode, type PppError } from './errors';
import { EMPTY_FRAME } from './protocol';

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();
const FAIL = 'FAIL';

export function requestFrames(content: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [EMPTY_FRAME];
  for (const f of content) out.push(f);
  return out;
}

export const replyFrames = requestFrames;

/** The content of a client request, or a PppFrameError. */
export function parseRequest(frames: readonly Uint8Array[]): Uint8Array[] {
  if (frames.length < 2 || frames[0]?.length !== 0) throw new PppFrameError('a request is an empty delimiter and at least one content frame');
  return frames.slice(1);
}

export function failFrames(error: PppError): Uint8Array[] {
  return [utf8.encode(FAIL), utf8.encode(error.code), utf8.encode(error.message)];
}

/** The content of a reply, or the PppError it carries (thrown). */
export function parseReply(frames: readonly Uint8Array[]): Uint8Array[] {
  const [first, code, message] = frames;
  if (first && first.length === 0 && frames.length >= 2) return frames.slice(1);
  if (first && utf8d.decode(first) === FAIL && code && message) throw pppErrorFromCode(utf8d.decode(code), utf8d.decode(message));
  throw new PppFrameError('a reply is an empty delimiter and content, or FAIL code message');
}
