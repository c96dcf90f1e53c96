/**
 * Every codec failure is a CodecError (or a subclass, one per failure). `code` is stable and survives a trip over
 * the bus; `offset` is the byte offset in the input where the problem was found, when there is one.
 */
export class CodecError extends Error {
  override name = 'CodecError';
  readonly code: string;
  readonly offset: number | undefined;

  constructor(code: string, message: string, options: { offset?: number; cause?: unknown } = {}) {
    super(options.offset === undefined ? message : `${message} (at byte offset ${options.offset})`, { cause: options.cause });
    this.code = code;
    this.offset = options.offset;
  }
}
