import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { collectionRecordSchema, type CollectionRecord } from '@esp/interfaces';
import { z } from 'zod';

/**
 * The config directory:
 *
 *   <dir>/collections.json          { "collections": [ { "name": "default", "pipeline": "default" }, ... ] }
 *   <dir>/<module>/<filepath>       what LoadConfigFile(module, filepath) returns,
 *                                   e.g. <dir>/DocumentProcessor/formatdetector/user_converter_rules.xml
 *
 * A configuration is validated before it is taken: a broken collections.json leaves the previous one in force.
 */
const collectionsFileSchema = z.strictObject({
  collections: z.array(collectionRecordSchema).refine((cs) => new Set(cs.map((c) => c.name)).size === cs.length, 'collection names must be unique'),
});

export const COLLECTIONS_FILE = 'collections.json';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function readCollections(dir: string): CollectionRecord[] {
  const path = join(dir, COLLECTIONS_FILE);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  const r = collectionsFileSchema.safeParse(json);
  if (!r.success) throw new ConfigError(`invalid ${path}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return r.data.collections;
}

/** Replaces <dir>/collections.json (written aside, then renamed: a reader never sees half a file). */
export function writeCollections(dir: string, collections: CollectionRecord[]): void {
  const path = join(dir, COLLECTIONS_FILE);
  writeFileSync(`${path}.tmp`, JSON.stringify({ collections }, null, 2) + '\n');
  renameSync(`${path}.tmp`, path);
}

/** The file LoadConfigFile(module, filepath) names, refusing anything that would leave the config directory. */
export function configFilePath(dir: string, module: string, filepath: string): string {
  const root = resolve(dir);
  const path = resolve(root, module, filepath);
  const rel = relative(root, path);
  if (!module || !filepath || rel.startsWith('..') || rel.split(sep).includes('..') || resolve(root, rel) !== path || rel === '') {
    throw new ConfigError(`"${module}/${filepath}" is outside the config directory`);
  }
  return path;
}

export function fingerprint(collections: CollectionRecord[]): string {
  return createHash('sha256').update(JSON.stringify(collections)).digest('hex');
}
