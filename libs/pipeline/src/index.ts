/**
 * @esp/pipeline: the item processing pipeline (MS-FSDPD 3.1.4.1): stages that turn a fed document into what the
 * indexer stores, configured per collection. The item processor runs it on every batch; a benchmark baseline runs
 * the same stages in one process.
 *
 *   import { buildPipelines, DEFAULT_PIPELINE_CONFIG } from '@esp/pipeline';
 *   const set = buildPipelines(DEFAULT_PIPELINE_CONFIG);
 *   const outcome = await set.forCollection('news').run({ id: 1, kind: 'update', doc, collection: 'news', session_id: 7 });
 */
export {
  DEFAULT_PIPELINE_CONFIG,
  DEFAULT_STAGES,
  PipelineConfigError,
  PipelineSet,
  buildPipelines,
  loadPipelineConfig,
  pipelineConfigSchema,
  type PipelineConfig,
} from './config';
export { Pipeline, processingError, type ItemInput, type ItemLogLevel, type ItemLogMessage, type ItemOutcome, type StageTiming } from './pipeline';
export { PROCESSING_ERROR_CODES, PROCESSING_WARNING_CODE, StageFailure, type OperationKind, type Stage, type StageContext, type StageErrorKind } from './stage';
export { WorkingDocument, type AttributeChange } from './working-document';
export { STAGE_TYPES } from './stages';
export { CONTENT_TYPE_BY_EXTENSION } from './stages/content-type';
export { charsetName, decideCharset, DEFAULT_CHARSET_OPTIONS, type CharsetDecision, type CharsetSource } from './stages/charset';
