/**
 * The baseline of `npm run bench:feed-real`: the realistic corpus (generateRealCorpus of @esp/testing) taken
 * through the default item processing pipeline (@esp/pipeline, the stages the item processors run) and written with
 * the indexer's own store (same SQLite settings, same upsert and full-text entries, one transaction per batch), all
 * in this one process: no bus, no sessions, no callbacks. Prints one JSON line and exits.
 *
 *   tsx apps/indexer/src/bench-real-baseline-main.ts --corpus <dir> --data <dir> [--batch-size 100] [--batch-bytes 33554432] [--manifest <file>]
 *   {"docs":341,"bytes":...,"seconds":...,"completed":...,"failed":...,"errors":{"utf8_error":1},"rss_peak_mb":...}
 *
 * The manifest (default <corpus>/manifest.json) says which files there are; files expected to be skipped (not text)
 * and files over the document size limit are left out, as the content client leaves them out. Each document is
 * what the feed CLI makes of a file: id = its relative path, url = file://<absolute path>, content_type from the
 * extension, body = its bytes. Files are read one batch at a time (at most --batch-size files and about
 * --batch-bytes bytes), so memory stays bounded whatever the corpus holds.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BytearrayAttribute, DocumentEntity, DocumentId, StringAttribute } from '@esp/codecs';
import { buildPipelines, CONTENT_TYPE_BY_EXTENSION, DEFAULT_PIPELINE_CONFIG, PROCESSING_ERROR_CODES } from '@esp/pipeline';
import { attributesOf, type Attributes } from './attributes';
import { DocumentStore, openCollectionDb } from './collection-store';

/** The content types the feed CLI gives files by extension. */
const CONTENT_TYPES = CONTENT_TYPE_BY_EXTENSION;
/** The content client's default document size limit. */
const MAX_DOCUMENT_BYTES = 100 * 1024 * 1024;
const COLLECTION = 'bench';

interface ManifestFile {
  path: string;
  size: number;
  expect: 'completed' | 'skipped' | { error: string };
}

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    data: { type: 'string' },
    manifest: { type: 'string' },
    'batch-size': { type: 'string', default: '100' },
    'batch-bytes': { type: 'string', default: String(32 * 1024 * 1024) },
  },
});
if (!values.corpus || !values.data) {
  process.stderr.write('usage: bench-real-baseline-main --corpus <dir> --data <dir> [--batch-size 100] [--batch-bytes N] [--manifest <file>]\n');
  process.exit(2);
}
const corpus = resolve(values.corpus);
const batchSize = Number(values['batch-size']);
const batchBytes = Number(values['batch-bytes']);
const manifest = JSON.parse(readFileSync(values.manifest ?? join(corpus, 'manifest.json'), 'utf8')) as { files: ManifestFile[] };
const files = manifest.files.filter((f) => f.expect !== 'skipped' && f.size <= MAX_DOCUMENT_BYTES);

const errorNames = new Map(Object.entries(PROCESSING_ERROR_CODES).map(([name, code]) => [code, name]));
const pipeline = buildPipelines(DEFAULT_PIPELINE_CONFIG).forCollection(COLLECTION);
const db = openCollectionDb(values.data, COLLECTION);
const store = new DocumentStore(db);
let opId = 0;
let writeOp = 0;
const writeBatch = db.transaction((docs: { id: string; attributes: Attributes }[]) => {
  const now = new Date().toISOString();
  for (const d of docs) store.upsert(d.id, d.attributes, ++writeOp, 0, now);
});

/** The files of the corpus in batches of at most batchSize files and about batchBytes bytes. */
function* batches(): Generator<ManifestFile[]> {
  let batch: ManifestFile[] = [];
  let bytes = 0;
  for (const f of files) {
    if (batch.length > 0 && (batch.length >= batchSize || bytes + f.size > batchBytes)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(f);
    bytes += f.size;
  }
  if (batch.length) yield batch;
}

let completed = 0;
let failed = 0;
let bytes = 0;
const errors: Record<string, number> = {};
const t0 = performance.now();
for (const batch of batches()) {
  const written: { id: string; attributes: Attributes }[] = [];
  for (const f of batch) {
    const path = join(corpus, f.path);
    const body = new Uint8Array(await readFile(path));
    bytes += body.byteLength;
    const doc = new DocumentEntity({
      doc_id: new DocumentId({ id: f.path }),
      document_attributes: [
        new StringAttribute({ key: 'url', value: `file://${path}` }),
        new BytearrayAttribute({ key: 'body', value: body }),
        new StringAttribute({ key: 'content_type', value: CONTENT_TYPES[extname(f.path).toLowerCase()] ?? 'application/octet-stream' }),
      ],
    });
    const outcome = await pipeline.run({ id: ++opId, kind: 'update', doc, collection: COLLECTION, session_id: 0 }, { cpu: false, debug: false });
    if (outcome.doc) {
      written.push({ id: f.path, attributes: attributesOf(outcome.doc.document_attributes).attributes });
      completed++;
    } else {
      failed++;
      const name = (outcome.error && errorNames.get(outcome.error.error_code)) ?? 'processing_error';
      errors[name] = (errors[name] ?? 0) + 1;
    }
  }
  writeBatch(written);
}
const seconds = (performance.now() - t0) / 1000;
db.close();
const rssPeakMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(JSON.stringify({ docs: files.length, bytes, seconds: Number(seconds.toFixed(3)), completed, failed, errors, rss_peak_mb: rssPeakMb }) + '\n');
process.exit(0);
