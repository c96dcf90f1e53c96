/**
 * One FSCMT frame (MS-FSCMT 2.2.1): a big-endian uint32 length, then that many bytes of FSWCU holding the tuple
 * (message dict, priority).
 *
 *   const bytes = encodeFscmtFrame(dict, 1);
 *   const { dict, priority } = decodeFscmtFrame(bytes);
 */
import { decodeFswcuPrefix, FSWCU_DEFAULT_MAX_DEPTH } from '../fswcu/fswcu-decoder';
import { FswcuWriter } from '../fswcu/fswcu-encoder';
import { fswcuCopyBytes } from '../fswcu/fswcu-slab';
import { FswcuDict, FswcuTuple } from '../fswcu/fswcu-value';
import {
  FscmtBadPriorityError,
  FscmtFrameTooLargeError,
  FscmtMalformedFrameError,
  FscmtTrailingBytesError,
  FscmtTruncatedFrameError,
} from './fscmt-errors';

/** 0: normal priority, appended to queues. 1: high priority, prepended. */
export type FscmtPriority = 0 | 1;

export interface FscmtMessage {
  dict: FswcuDict;
  priority: FscmtPriority;
  /** Stream offset of the frame's length header. */
  offset: number;
  /** Bytes of the frame, header included. */
  frameBytes: number;
}

export const FSCMT_HEADER_BYTES = 4;
export const FSCMT_DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface FscmtEncodeOptions {
  /** Refuse to write frames bigger than this (the peer would refuse them). Default 16 MiB. */
  maxFrameBytes?: number;
}

let scratch: FswcuWriter | undefined;

export function encodeFscmtFrame(dict: FswcuDict, priority: FscmtPriority = 0, options: FscmtEncodeOptions = {}): Uint8Array {
  if (!(dict instanceof FswcuDict)) throw new FscmtMalformedFrameError('an FSCMT message must be an FswcuDict');
  if (priority !== 0 && priority !== 1) throw new FscmtBadPriorityError(`priority must be 0 or 1, got ${String(priority)}`);
  // A shared scratch writer, as in encodeFswcu: one exact-size copy per frame instead of a growing buffer.
  const writer = scratch ?? new FswcuWriter();
  scratch = undefined;
  try {
    writer.reset(FSWCU_DEFAULT_MAX_DEPTH);
    writer.reserve(FSCMT_HEADER_BYTES);
    writer.write(new FswcuTuple([dict, priority]));
    const bodyBytes = writer.length - FSCMT_HEADER_BYTES;
    const max = options.maxFrameBytes ?? FSCMT_DEFAULT_MAX_FRAME_BYTES;
    if (bodyBytes > max) throw new FscmtFrameTooLargeError(bodyBytes, max, 0);
    writer.patchUint32BE(0, bodyBytes);
    return fswcuCopyBytes(writer.finish());
  } finally {
    writer.shrink();
    scratch = writer;
  }
}

export interface FscmtDecodeOptions {
  maxFrameBytes?: number;
  /** Deepest FSWCU nesting accepted inside a frame. */
  maxDepth?: number;
}

/** Decodes exactly one complete frame (header included). For streams, use FscmtFrameParser. */
export function decodeFscmtFrame(bytes: Uint8Array, options: FscmtDecodeOptions = {}): FscmtMessage {
  if (bytes.length < FSCMT_HEADER_BYTES) {
    throw new FscmtTruncatedFrameError(`input ended inside the frame header (${bytes.length} of 4 bytes)`, 0);
  }
  const length = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, false);
  const max = options.maxFrameBytes ?? FSCMT_DEFAULT_MAX_FRAME_BYTES;
  if (length > max) throw new FscmtFrameTooLargeError(length, max, 0);
  if (bytes.length < FSCMT_HEADER_BYTES + length) {
    throw new FscmtTruncatedFrameError(`input ended inside the frame body (${bytes.length - 4} of ${length} bytes)`, 0);
  }
  if (bytes.length > FSCMT_HEADER_BYTES + length) {
    throw new FscmtTrailingBytesError(bytes.length - FSCMT_HEADER_BYTES - length, FSCMT_HEADER_BYTES + length);
  }
  const body = fswcuCopyBytes(bytes.subarray(FSCMT_HEADER_BYTES));
  const { dict, priority } = decodeFscmtBody(body, FSCMT_HEADER_BYTES, options.maxDepth);
  return { dict, priority, offset: 0, frameBytes: bytes.length };
}

/**
 * Decodes a frame body the caller owns (its byte strings become views into it). `baseOffset` is the stream offset
 * of body[0], used in errors.
 */
export function decodeFscmtBody(
  body: Uint8Array,
  baseOffset: number,
  maxDepth = FSWCU_DEFAULT_MAX_DEPTH,
): { dict: FswcuDict; priority: FscmtPriority } {
  // The tuple header is checked by hand so that the errors can say which part of the frame is wrong.
  if (body.length === 0) throw new FscmtMalformedFrameError('empty frame body', baseOffset);
  if (body[0] !== 0x28) throw new FscmtMalformedFrameError('frame body is not an FSWCU tuple', baseOffset);
  if (body.length < 5) throw new FscmtMalformedFrameError('frame body ends inside the tuple header', baseOffset);
  const count = body[1] | (body[2] << 8) | (body[3] << 16) | (body[4] << 24);
  if (count !== 2) throw new FscmtMalformedFrameError(`frame tuple has ${count} items, not 2 (dict, priority)`, baseOffset + 1);
  const dictAt = 5;
  if (body.length > dictAt && body[dictAt] !== 0x7b) {
    throw new FscmtMalformedFrameError('first item of the frame tuple is not a dict', baseOffset + dictAt);
  }
  // options objects written out in full (not spread from a shared one): object spread in this hot path cost more
  // than decoding the dict itself
  const first = decodeFswcuPrefix(body, { baseOffset, maxDepth, start: dictAt, shareInput: true });
  const priorityAt = first.end;
  const second = decodeFswcuPrefix(body, { baseOffset, maxDepth, start: priorityAt, shareInput: true });
  if (second.value !== 0 && second.value !== 1) {
    throw new FscmtBadPriorityError(`priority must be the int 0 or 1, got ${describe(second.value)}`, baseOffset + priorityAt);
  }
  if (second.end !== body.length) throw new FscmtTrailingBytesError(body.length - second.end, baseOffset + second.end);
  if (!(first.value instanceof FswcuDict)) throw new FscmtMalformedFrameError('first item of the frame tuple is not a dict', baseOffset + dictAt);
  return { dict: first.value, priority: second.value };
}

function describe(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (typeof value === 'bigint') return `the long ${value}`;
  return `a ${Object.getPrototypeOf(value)?.constructor?.name ?? typeof value}`;
}
