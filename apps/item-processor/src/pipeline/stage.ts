import { Action, type ActionName } from '@esp/codecs';
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

/** The `processing_error` subtypes a stage can fail an item with (MS-FSDPD 2.2.4-2.2.9). */
export type StageErrorKind = 'processing_error' | 'format_error' | 'xml_error' | 'utf8_error' | 'server_unavailable' | 'operation_dropped';

/**
 * Error codes of the processing errors this item processor reports. The spec fixes only operation_lost's code (4,
 * MS-FSDPD 3.5.5); these are ours, one per error entity, so that a client can tell them apart by code alone.
 */
export const PROCESSING_ERROR_CODES: Readonly<Record<StageErrorKind, number>> = Object.freeze({
  processing_error: 100,
  format_error: 101,
  xml_error: 102,
  utf8_error: 103,
  server_unavailable: 104,
  operation_dropped: 105,
});

/** Code of the warnings stages add unless they give their own. */
export const PROCESSING_WARNING_CODE = 200;

/**
 * The action suggested to the client when a stage does not say: content that is malformed fails the same way when
 * resubmitted, so drop; an unreachable server may be back, so resubmit; anything else, a limited number of times.
 */
export const DEFAULT_SUGGESTED_ACTION: Readonly<Record<StageErrorKind, Action>> = Object.freeze({
  processing_error: Action.limited_resubmit,
  format_error: Action.drop,
  xml_error: Action.drop,
  utf8_error: Action.drop,
  server_unavailable: Action.resubmit,
  operation_dropped: Action.drop,
});

export const STAGE_ERROR_KINDS = Object.keys(PROCESSING_ERROR_CODES) as StageErrorKind[];
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
