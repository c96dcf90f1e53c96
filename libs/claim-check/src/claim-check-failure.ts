import type { ProcessingErrorName } from '@esp/interfaces';

/**
 * A document whose out-of-band content cannot be had: the object is gone or not what its reference says
 * (content_unavailable), or it is over the size limit (document_too_large). The error name is the processing error
 * the item fails with.
 */
export class ClaimCheckFailure extends Error {
  override name = 'ClaimCheckFailure';
  constructor(
    readonly error: Extract<ProcessingErrorName, 'content_unavailable' | 'document_too_large'>,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
