import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CollectionRecord } from '@esp/interfaces';
import { z } from 'zod';
import { ConfigError } from './config-store';

/**
 * The pipelines of the config directory: `<dir>/DocumentProcessor/pipelines.json`, which item processors read with
 * LoadConfigFile("DocumentProcessor", "pipelines.json") in their ResetContainer (MS-FSDPD 3.7.4.3), in the item
 * processor's pipeline configuration format (apps/item-processor/README.md):
 *
 *   { "pipelines": { "default": [{ "type": "utf8" }, { "type": "html" }], "news": [ ... ] }, "default_pipeline": "default" }
 *
 * The config server checks the shape (a stage is an object with a string "type") and that every collection of
 * collections.json names a pipeline that exists; what each stage type accepts is checked by the item processors,
 * which keep their previous pipelines when a new one does not build. No file: the item processors' own default.
 */
export const PIPELINES_MODULE = 'DocumentProcessor';
export const PIPELINES_FILE = 'pipelines.json';

const stageSchema = z.looseObject({ type: z.string().min(1), name: z.string().min(1).optional() });
const pipelinesFileSchema = z.looseObject({
  pipelines: z.record(z.string().min(1), z.array(stageSchema)),
  default_pipeline: z.string().min(1).optional(),
});

export interface PipelineDefinitions {
  /** Pipeline name → a fingerprint of its stages (what tells added / modified / removed apart). */
  readonly fingerprints: ReadonlyMap<string, string>;
  readonly defaultPipeline: string | undefined;
}

function hash(v: unknown): string {
  return createHash('sha256').update(JSON.stringify(v)).digest('hex');
}

/** Reads and checks pipelines.json; undefined when the config directory has none. */
export function readPipelines(dir: string): PipelineDefinitions | undefined {
  const path = join(dir, PIPELINES_MODULE, PIPELINES_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const r = pipelinesFileSchema.safeParse(json);
  if (!r.success) throw new ConfigError(`invalid ${path}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const { pipelines, default_pipeline } = r.data;
  if (default_pipeline !== undefined && !(default_pipeline in pipelines)) {
    throw new ConfigError(`invalid ${path}: default_pipeline "${default_pipeline}" is not among the pipelines (${Object.keys(pipelines).join(', ') || 'none'})`);
  }
  return { fingerprints: new Map(Object.entries(pipelines).map(([name, stages]) => [name, hash(stages)])), defaultPipeline: default_pipeline };
}

/** Every collection must name a pipeline of pipelines.json (when there is one); throws ConfigError otherwise. */
export function checkCollectionPipelines(collections: CollectionRecord[], pipelines: PipelineDefinitions | undefined): void {
  if (!pipelines) return;
  const missing = collections.filter((c) => !pipelines.fingerprints.has(c.pipeline));
  if (missing.length > 0) {
    throw new ConfigError(
      `${missing.map((c) => `collection "${c.name}" names pipeline "${c.pipeline}"`).join('; ')}, which ${PIPELINES_MODULE}/${PIPELINES_FILE} does not define (it has ${[...pipelines.fingerprints.keys()].join(', ') || 'none'})`,
    );
  }
}

/** What changed between two sets of pipelines: the alert types of MS-FSDPD 3.7.4.3 with the pipeline names. */
export function pipelineChanges(before: PipelineDefinitions | undefined, after: PipelineDefinitions | undefined): { pipeline_added: string[]; pipeline_modified: string[]; pipeline_removed: string[] } {
  const a = before?.fingerprints ?? new Map<string, string>();
  const b = after?.fingerprints ?? new Map<string, string>();
  return {
    pipeline_added: [...b.keys()].filter((n) => !a.has(n)),
    pipeline_modified: [...b.keys()].filter((n) => a.has(n) && a.get(n) !== b.get(n)),
    pipeline_removed: [...a.keys()].filter((n) => !b.has(n)),
  };
}
