import { Action, type ActionName } from '@esp/codecs';
import { PROCESSING_ERROR_NAMES, PROCESSING_ERRORS, type ProcessingErrorName } from '@esp/interfaces';
import type { WorkingDocument } from './working-document';

/** Which item operation a document came with (remove operations carry no document and skip the pipeline). */
export type OperationKind = 'update' | 'partial_update' | 'urlchange';

/** What a stage sees of one item: the document to edit, where it comes from, and a way to warn. */
export interface StageContext {
  readonly doc: WorkingDocument;
  readonly kind: OperationKind;
  readonly collection: string;
  readonly session_id: number;
  readonly operation_id: number;
  /** Adds a `warning` entity (subsystem "processing"; the stage name goes into its description). */
  warn(description: string, code?: number): void;
  /** A message for the item log at debug verbosity. */
  debug(message: string): void;
  /** Whether debug messages are kept: a stage may skip building one when they are not (the usual verbosity). */
  readonly debugging: boolean;
}

/**
 * One item processing stage. It edits `ctx.doc` in place, and fails the item by throwing a StageFailure; any other
 * exception also fails the item, as a processing_error that says the stage crashed.
 */
export interface Stage {
  /** The stage's name: `processor` of the errors it causes, its key in the Processing Stage Statistics Table. */
  readonly name: string;
  /** The stage type of the pipeline configuration ("utf8", "xml", "html", ...). */
  readonly type: string;
  process(ctx: StageContext): void | Promise<void>;
}

/** The processing errors a stage can fail an item with, by name (document_too_large, pdf_error, ...). */
export type StageErrorKind = ProcessingErrorName;

/** Error code of each processing error (the registry in @esp/interfaces). */
export const PROCESSING_ERROR_CODES: Readonly<Record<StageErrorKind, number>> = Object.freeze(
  Object.fromEntries(PROCESSING_ERROR_NAMES.map((n) => [n, PROCESSING_ERRORS[n].code])) as Record<StageErrorKind, number>,
);

/** Code of the warnings stages add unless they give their own. */
export const PROCESSING_WARNING_CODE = 200;

export const STAGE_ERROR_KINDS = PROCESSING_ERROR_NAMES;
export const ACTION_NAMES = Object.keys(Action) as ActionName[];

/** Thrown by a stage to fail the item with a given error entity. */
export class StageFailure extends Error {
  override name = 'StageFailure';

  constructor(
    readonly kind: StageErrorKind,
    message: string,
    readonly options: { code?: number; action?: Action } = {},
  ) {
    super(message);
  }
}
