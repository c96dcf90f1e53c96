import { Action } from '@esp/codecs';

/** The Cheetah error entities an item processor can fail an item with (MS-FSDPD 2.2.4-2.2.9). */
export type ProcessingErrorEntity = 'processing_error' | 'format_error' | 'xml_error' | 'utf8_error' | 'server_unavailable' | 'operation_dropped';

export interface ProcessingErrorKind {
  /** Which Cheetah error entity carries it. */
  readonly entity: ProcessingErrorEntity;
  /** Its `error_code`: one per name, so that a client tells the errors apart by code alone. */
  readonly code: number;
  /** The action suggested to the client when the stage does not say. */
  readonly action: Action;
}

/**
 * Every processing error by name. The spec fixes only operation_lost's code (4, MS-FSDPD 3.5.5); these codes are
 * ours. The first six are the spec's entities themselves; the others travel as a format_error (the content is the
 * problem) or a server_unavailable (a part of the system is) with a code of their own. Content that is malformed
 * fails the same way when resubmitted, so drop; an unreachable part may be back, so resubmit; a crash, a limited
 * number of times.
 */
export const PROCESSING_ERRORS = Object.freeze({
  processing_error: { entity: 'processing_error', code: 100, action: Action.limited_resubmit },
  format_error: { entity: 'format_error', code: 101, action: Action.drop },
  xml_error: { entity: 'xml_error', code: 102, action: Action.drop },
  utf8_error: { entity: 'utf8_error', code: 103, action: Action.drop },
  server_unavailable: { entity: 'server_unavailable', code: 104, action: Action.resubmit },
  operation_dropped: { entity: 'operation_dropped', code: 105, action: Action.drop },
  /** The document is larger than the limit (--max-document-bytes); the description names the limit. */
  document_too_large: { entity: 'format_error', code: 106, action: Action.drop },
  /** No stage can index this type of content (an image, a font, an archive...). */
  unsupported_format: { entity: 'format_error', code: 107, action: Action.drop },
  /** The text's character set is unknown or its bytes do not decode. */
  charset_error: { entity: 'format_error', code: 108, action: Action.drop },
  /** A PDF whose text cannot be extracted (broken, encrypted). */
  pdf_error: { entity: 'format_error', code: 109, action: Action.drop },
  /** A DOCX whose text cannot be extracted (truncated, not a Word document). */
  docx_error: { entity: 'format_error', code: 110, action: Action.drop },
  /** A document's content stored out of band (object store) cannot be fetched, or its digest does not match. */
  content_unavailable: { entity: 'server_unavailable', code: 111, action: Action.limited_resubmit },
} satisfies Record<string, ProcessingErrorKind>);

export type ProcessingErrorName = keyof typeof PROCESSING_ERRORS;
export const PROCESSING_ERROR_NAMES = Object.keys(PROCESSING_ERRORS) as ProcessingErrorName[];

const byCode = new Map<number, ProcessingErrorName>(PROCESSING_ERROR_NAMES.map((n) => [PROCESSING_ERRORS[n].code, n]));

/** The name of a processing error code (106 → "document_too_large"), or undefined for codes not ours. */
export function processingErrorName(code: number): ProcessingErrorName | undefined {
  return byCode.get(code);
}
