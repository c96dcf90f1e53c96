import { CodecError } from '../errors';

/**
 * One class per FSCMT failure. Framing errors carry the byte offset in the stream given to the parser; message
 * shape errors (typed readers) work on decoded values and carry a path such as `PKT_DATA[1][0]` instead.
 */

/** A frame header announcing more bytes than the parser accepts; refused before anything is buffered. */
export class FscmtFrameTooLargeError extends CodecError {
  override name = 'FscmtFrameTooLargeError';
  readonly length: number;
  constructor(length: number, maxFrameBytes: number, offset: number) {
    super('FSCMT_FRAME_TOO_LARGE', `FSCMT frame of ${length} bytes exceeds the maximum of ${maxFrameBytes}`, { offset });
    this.length = length;
  }
}

/** The stream ended inside a frame (in its header or its body). The offset is where that frame starts. */
export class FscmtTruncatedFrameError extends CodecError {
  override name = 'FscmtTruncatedFrameError';
  constructor(message: string, offset: number) {
    super('FSCMT_TRUNCATED_FRAME', message, { offset });
  }
}

/** The frame's body is not the FSWCU tuple (dict, priority). */
export class FscmtMalformedFrameError extends CodecError {
  override name = 'FscmtMalformedFrameError';
  constructor(message: string, offset?: number) {
    super('FSCMT_MALFORMED_FRAME', message, { offset });
  }
}

/** A priority other than the int 0 (normal) or 1 (high). */
export class FscmtBadPriorityError extends CodecError {
  override name = 'FscmtBadPriorityError';
  constructor(message: string, offset?: number) {
    super('FSCMT_BAD_PRIORITY', message, { offset });
  }
}

/** Bytes left inside a frame after its (dict, priority) tuple. */
export class FscmtTrailingBytesError extends CodecError {
  override name = 'FscmtTrailingBytesError';
  constructor(count: number, offset: number) {
    super('FSCMT_TRAILING_BYTES', `${count} byte(s) left in the frame after its (dict, priority) tuple`, { offset });
  }
}

/** A message dict whose PKT_CMD is missing or names no command the receiving role handles. */
export class FscmtUnknownCommandError extends CodecError {
  override name = 'FscmtUnknownCommandError';
  constructor(message: string) {
    super('FSCMT_UNKNOWN_COMMAND', message);
  }
}

/** A decoded value that does not have the shape its message or structure requires. */
export class FscmtShapeError extends CodecError {
  override name = 'FscmtShapeError';
  readonly path: string;
  constructor(path: string, message: string) {
    super('FSCMT_BAD_SHAPE', `${path}: ${message}`);
    this.path = path;
  }
}

/** A DomainSpecification XML document that cannot be mapped to a crawl configuration. */
export class FscmtCrawlConfigError extends CodecError {
  override name = 'FscmtCrawlConfigError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('FSCMT_BAD_CRAWL_CONFIG', message, options);
  }
}
