import { createReadStream } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { FeedDocument } from '@esp/content-client';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.xml': 'application/xml',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.md': 'text/plain',
};
const JSON_LINES = new Set(['.jsonl', '.ndjson']);

/** A bad line of a JSON lines input: where it is and why (the feed goes on with the other lines). */
export class InputError extends Error {
  override name = 'InputError';
}

/**
 * A JSON line → document. Either {"id", "attributes": {...}, "remove"?} or a flat object whose fields other than id
 * are the attributes.
 */
export function documentFromJson(line: string, where: string): FeedDocument {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new InputError(`${where}: not JSON: ${(err as Error).message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new InputError(`${where}: expected a JSON object`);
  const o = v as Record<string, unknown>;
  if (typeof o['id'] !== 'string' || o['id'].length === 0) throw new InputError(`${where}: "id" must be a non-empty string`);
  const raw = (o['attributes'] && typeof o['attributes'] === 'object' ? o['attributes'] : Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'id' && k !== 'remove'))) as Record<string, unknown>;
  const attributes: NonNullable<FeedDocument['attributes']> = {};
  for (const [k, val] of Object.entries(raw)) {
    if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') attributes[k] = val;
    else if (Array.isArray(val) && val.every((x) => typeof x === 'string')) attributes[k] = val as string[];
    else if (val !== null && val !== undefined) attributes[k] = JSON.stringify(val);
  }
  return { id: o['id'], attributes, ...(o['remove'] === true ? { remove: true } : {}) };
}

/** A file → document: its bytes as `body` (so the pipeline checks their encoding), content type from the extension. */
export async function documentFromFile(path: string, root: string): Promise<FeedDocument> {
  const body = new Uint8Array(await readFile(path));
  const rel = relative(root, path) || path;
  return { id: rel, attributes: { url: `file://${resolve(path)}`, body, content_type: CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream' } };
}

async function* jsonLines(input: Readable, name: string, onError: (e: InputError) => void): AsyncGenerator<FeedDocument> {
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    n++;
    if (!line.trim()) continue;
    try {
      yield documentFromJson(line, `${name}:${n}`);
    } catch (err) {
      if (err instanceof InputError) onError(err);
      else throw err;
    }
  }
}

async function* walk(path: string): AsyncGenerator<string> {
  const s = await stat(path);
  if (s.isFile()) {
    yield path;
    return;
  }
  if (!s.isDirectory()) return;
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    yield* walk(join(path, e.name));
  }
}

/** Every document of the inputs, in order: "-" is JSON lines on stdin; .jsonl/.ndjson files are JSON lines; other files are one document each; directories are walked. */
export async function* documents(inputs: string[], onError: (e: InputError) => void): AsyncGenerator<FeedDocument> {
  for (const input of inputs) {
    if (input === '-') {
      yield* jsonLines(process.stdin, 'stdin', onError);
      continue;
    }
    const root = (await stat(input)).isDirectory() ? input : join(input, '..');
    for await (const file of walk(input)) {
      if (JSON_LINES.has(extname(file).toLowerCase())) yield* jsonLines(createReadStream(file), file, onError);
      else yield await documentFromFile(file, root);
    }
  }
}
