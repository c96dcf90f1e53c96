import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { Pipeline } from './pipeline';
import type { Stage } from './stage';
import { STAGE_TYPES } from './stages';

/**
 * The pipeline configuration (JSON):
 *
 *   {
 *     "pipelines": {
 *       "standard": [{ "type": "utf8" }, { "type": "xml" }, { "type": "html" }, { "type": "normalize" }],
 *       "news": [{ "type": "utf8" }, { "name": "no-spam", "type": "drop", "rules": [{ "attribute": "url", "pattern": "spam" }] }]
 *     },
 *     "default_pipeline": "standard",
 *     "collections": { "news": "news", "blogs": [{ "type": "utf8" }, { "type": "html" }] }
 *   }
 *
 * A stage is `{ "type": ..., "name"?: ..., ...options }`; its name (default: its type) is the `processor` of the
 * errors it causes and its key in the stage statistics, so names are unique within a pipeline. A collection maps to
 * a pipeline by name, or to its own list of stages (a pipeline named after the collection). Collections not listed
 * use `default_pipeline` (default: "default", which must then exist).
 */
const stageSpec = z.looseObject({ type: z.string(), name: z.string().min(1).optional() });
const stageList = z.array(stageSpec);

export const pipelineConfigSchema = z.strictObject({
  pipelines: z.record(z.string().min(1), stageList).default({}),
  default_pipeline: z.string().min(1).default('default'),
  collections: z.record(z.string().min(1), z.union([z.string().min(1), stageList])).default({}),
});
export type PipelineConfig = z.input<typeof pipelineConfigSchema>;

/**
 * The stages of the default pipeline: the type from the bytes, text decoded in its character set, PDF and DOCX to
 * text, then what remains in bytes must be UTF-8, XML must be well-formed, HTML becomes text, a title for what has none.
 */
export const DEFAULT_STAGES: readonly { readonly type: string }[] = Object.freeze(
  ['detect', 'charset', 'pdf', 'docx', 'utf8', 'xml', 'html', 'title', 'normalize'].map((type) => Object.freeze({ type })),
);

/** The configuration used without --pipeline-config: every collection through DEFAULT_STAGES. */
export const DEFAULT_PIPELINE_CONFIG: PipelineConfig = Object.freeze({
  pipelines: { default: DEFAULT_STAGES.map((s) => ({ ...s })) },
  default_pipeline: 'default',
});

export class PipelineConfigError extends Error {
  override name = 'PipelineConfigError';
}

function describeZod(err: z.ZodError, where: string): string {
  return err.issues.map((i) => `${[where, ...i.path.map(String)].filter(Boolean).join('.')}: ${i.message}`).join('; ');
}

/** The pipelines of a configuration, and which one serves a collection. */
export class PipelineSet {
  constructor(
    readonly pipelines: ReadonlyMap<string, Pipeline>,
    private readonly byCollection: ReadonlyMap<string, Pipeline>,
    private readonly fallback: Pipeline,
  ) {}

  forCollection(collection: string): Pipeline {
    return this.byCollection.get(collection) ?? this.fallback;
  }

  /** Every stage name, for the statistics tables. */
  stageNames(): string[] {
    return [...new Set([...this.pipelines.values()].flatMap((p) => p.stages.map((s) => s.name)))];
  }
}

function buildPipeline(name: string, specs: z.output<typeof stageList>, where: string): Pipeline {
  const names = new Set<string>();
  const stages: Stage[] = specs.map((spec, i) => {
    const type = STAGE_TYPES[spec.type];
    if (!type) throw new PipelineConfigError(`${where}[${i}].type: unknown stage type "${spec.type}" (known: ${Object.keys(STAGE_TYPES).join(', ')})`);
    const stageName = spec.name ?? spec.type;
    if (names.has(stageName)) throw new PipelineConfigError(`${where}[${i}].name: stage name "${stageName}" is used twice in pipeline "${name}"; give each a "name"`);
    names.add(stageName);
    const { type: _t, name: _n, ...options } = spec;
    const parsed = type.options.safeParse(options);
    if (!parsed.success) throw new PipelineConfigError(describeZod(parsed.error, `${where}[${i}] (${spec.type})`));
    return type.create(stageName, parsed.data);
  });
  return new Pipeline(name, stages);
}

/** Checks a configuration and builds its pipelines; throws PipelineConfigError saying where and what is wrong. */
export function buildPipelines(config: unknown): PipelineSet {
  const parsed = pipelineConfigSchema.safeParse(config);
  if (!parsed.success) throw new PipelineConfigError(describeZod(parsed.error, ''));
  const c = parsed.data;
  const pipelines = new Map<string, Pipeline>();
  for (const [name, specs] of Object.entries(c.pipelines)) pipelines.set(name, buildPipeline(name, specs, `pipelines.${name}`));
  const byCollection = new Map<string, Pipeline>();
  for (const [collection, ref] of Object.entries(c.collections)) {
    if (typeof ref === 'string') {
      const p = pipelines.get(ref);
      if (!p) throw new PipelineConfigError(`collections.${collection}: no pipeline named "${ref}" (known: ${[...pipelines.keys()].join(', ') || 'none'})`);
      byCollection.set(collection, p);
    } else {
      if (pipelines.has(collection)) throw new PipelineConfigError(`collections.${collection}: a pipeline of that name exists already; refer to it by name`);
      const p = buildPipeline(collection, ref, `collections.${collection}`);
      pipelines.set(collection, p);
      byCollection.set(collection, p);
    }
  }
  const fallback = pipelines.get(c.default_pipeline);
  if (!fallback) throw new PipelineConfigError(`default_pipeline: no pipeline named "${c.default_pipeline}" (known: ${[...pipelines.keys()].join(', ') || 'none'})`);
  return new PipelineSet(pipelines, byCollection, fallback);
}

/** Reads and builds a JSON pipeline configuration file. */
export function loadPipelineConfig(file: string): PipelineSet {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PipelineConfigError(`cannot read pipeline configuration ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PipelineConfigError(`pipeline configuration ${file} is not JSON: ${(err as Error).message}`);
  }
  try {
    return buildPipelines(json);
  } catch (err) {
    throw new PipelineConfigError(`pipeline configuration ${file}: ${(err as Error).message}`);
  }
}
