import {
  FormatError,
  OperationDropped,
  ProcessingError,
  ServerUnavailable,
  Utf8Error,
  Warning,
  XmlError,
  type DocumentEntity,
  type ProcessingErrorFields,
} from '@esp/codecs';
import { PROCESSING_ERRORS, PROCESSING_SUBSYSTEM, type ProcessingErrorEntity } from '@esp/interfaces';
import {
  PROCESSING_WARNING_CODE,
  StageFailure,
  type OperationKind,
  type Stage,
  type StageContext,
  type StageErrorKind,
} from './stage';
import { WorkingDocument, type AttributeChange } from './working-document';

/** Time one stage (or the whole pipeline) spent on one item. */
export interface StageTiming {
  readonly stage: string;
  readonly ok: boolean;
  /** Wall-clock seconds. */
  readonly work: number;
  /**
   * CPU seconds in user and in system mode. Measured with process.cpuUsage once per item (the whole pipeline) and
   * shared out to the stages in proportion to their wall time: a syscall pair per stage per item cost the processor
   * about a fifth of its time. With `run(item, { cpu: false })` they are 0 and the caller shares out what it
   * measured over many items (the batch processor measures once per batch).
   */
  readonly user: number;
  readonly system: number;
}

export type ItemLogLevel = 'INFO' | 'WARNING' | 'ERROR';
export type ItemLogMessage = readonly [ItemLogLevel, string];

export interface ItemOutcome {
  /** The processed document, or undefined when a stage failed the item. */
  readonly doc: DocumentEntity | undefined;
  /** The error that failed the item, with `processor` = the stage's name. */
  readonly error: ProcessingError | undefined;
  readonly warnings: readonly Warning[];
  /** The stages that ran, in order (the failing one last). */
  readonly stages: readonly StageTiming[];
  /** The whole pipeline. */
  readonly total: StageTiming;
  readonly changes: readonly AttributeChange[];
  /** Per-stage messages, for the item log at debug verbosity. */
  readonly debug: readonly string[];
}

export interface ItemInput {
  readonly id: number;
  readonly kind: OperationKind;
  readonly doc: DocumentEntity;
  readonly collection: string;
  readonly session_id: number;
}

const ERROR_CLASSES: Record<ProcessingErrorEntity, new (f: ProcessingErrorFields) => ProcessingError> = {
  processing_error: ProcessingError,
  format_error: FormatError,
  xml_error: XmlError,
  utf8_error: Utf8Error,
  server_unavailable: ServerUnavailable,
  operation_dropped: OperationDropped,
};

/** The Cheetah error entity of `kind` for one item operation; `processor` names the stage. */
export function processingError(
  kind: StageErrorKind,
  fields: { stage: string; description: string; session_id: number; operation_id: number; code?: number; action?: ProcessingErrorFields['suggested_action'] },
): ProcessingError {
  const known = PROCESSING_ERRORS[kind];
  return new ERROR_CLASSES[known.entity]({
    error_code: fields.code ?? known.code,
    suggested_action: fields.action ?? known.action,
    description: fields.description,
    subsystem: PROCESSING_SUBSYSTEM,
    session_id: fields.session_id,
    operation_id: fields.operation_id,
    processor: fields.stage,
  });
}

function measure(stage: string, ok: boolean, t0: number, c0: NodeJS.CpuUsage): StageTiming {
  const cpu = process.cpuUsage(c0);
  return { stage, ok, work: (performance.now() - t0) / 1000, user: cpu.user / 1e6, system: cpu.system / 1e6 };
}

/**
 * An ordered list of stages for one or more collections. `run` takes one item through every stage, stopping at the
 * first failure, and says what became of it; it never throws for what a stage does.
 */
export class Pipeline {
  constructor(
    readonly name: string,
    readonly stages: readonly Stage[],
  ) {}

  /**
   * `cpu: false`: no CPU time measured (the caller measures a whole batch); `debug: false`: no debug messages kept
   * (the item log shows them only at debug verbosity: four strings per item for nothing otherwise).
   */
  async run(item: ItemInput, opts: { cpu?: boolean; debug?: boolean } = {}): Promise<ItemOutcome> {
    const doc = new WorkingDocument(item.doc);
    const warnings: Warning[] = [];
    const debugging = opts.debug ?? true;
    const debug: string[] = [];
    const timings: StageTiming[] = [];
    let current = '';
    const ctx: StageContext = {
      doc,
      kind: item.kind,
      collection: item.collection,
      session_id: item.session_id,
      operation_id: item.id,
      warn: (description, code = PROCESSING_WARNING_CODE) => {
        warnings.push(
          new Warning({
            warning_code: code,
            description: `${current}: ${description}`,
            subsystem: PROCESSING_SUBSYSTEM,
            session_id: item.session_id,
            operation_id: item.id,
          }),
        );
      },
      debug: (message) => {
        if (debugging) debug.push(`${current}: ${message}`);
      },
      debugging,
    };
    const p0 = performance.now();
    const cpu = opts.cpu ?? true;
    const pc0 = cpu ? process.cpuUsage() : undefined;
    let error: ProcessingError | undefined;
    for (const stage of this.stages) {
      current = stage.name;
      doc.stage = stage.name;
      const t0 = performance.now();
      try {
        const r = stage.process(ctx);
        if (r !== undefined) await r;
      } catch (err) {
        const failure =
          err instanceof StageFailure ? err : new StageFailure('processing_error', `stage crashed: ${(err as Error)?.message ?? String(err)}`);
        error = processingError(failure.kind, {
          stage: stage.name,
          description: failure.message,
          session_id: item.session_id,
          operation_id: item.id,
          code: failure.options.code,
          action: failure.options.action,
        });
      }
      const work = (performance.now() - t0) / 1000;
      timings.push({ stage: stage.name, ok: error === undefined, work, user: 0, system: 0 });
      if (debugging) debug.push(`${stage.name}: ${error ? 'failed' : 'ok'} in ${(work * 1000).toFixed(2)} ms`);
      if (error) break;
    }
    const total = pc0 ? measure(this.name, error === undefined, p0, pc0) : { stage: this.name, ok: error === undefined, work: (performance.now() - p0) / 1000, user: 0, system: 0 };
    const wall = timings.reduce((a, t) => a + t.work, 0);
    // without CPU measured the timings are complete as they are (user and system 0)
    const stages = !pc0
      ? timings
      : timings.map((t) => {
          const share = wall > 0 ? t.work / wall : 1 / timings.length;
          return { ...t, user: total.user * share, system: total.system * share };
        });
    return {
      doc: error ? undefined : doc.toEntity(),
      error,
      warnings,
      stages,
      total,
      changes: doc.changes,
      debug,
    };
  }
}
