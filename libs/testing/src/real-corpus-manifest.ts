/**
 * The manifest of a generated corpus (`manifest.json`): every file with its size, kind, charset, what feeding it
 * should end in, and the distinctive words of its own text with the queries that find it once indexed.
 *
 *   const m = readCorpusManifest(join(dir, 'manifest.json'));
 *   m.files.filter((f) => f.expect === 'completed').map((f) => f.queries[0]);
 */
import { readFileSync, writeFileSync } from 'node:fs';

export type CorpusKind = 'html' | 'text' | 'xml' | 'pdf' | 'docx' | 'png' | 'zip';

/** What feeding a file should end in: completed (searchable), a processing error by name, or skipped as not text. */
export type CorpusExpectation = 'completed' | 'skipped' | { readonly error: string };

export interface CorpusFile {
  /** Relative to the corpus directory, '/'-separated. */
  readonly path: string;
  readonly size: number;
  readonly kind: CorpusKind;
  /** The text's character set (null for binary formats whose text has its own encoding). */
  readonly charset: string | null;
  /** Whether an HTML file declares its charset in `<meta charset>`. */
  readonly declaredCharset?: string;
  readonly expect: CorpusExpectation;
  /** 2-3 words of the document's own text that no other document holds (first, middle, last for large ones). */
  readonly words: readonly string[];
  /** Queries (search service syntax) each of which finds this document alone. */
  readonly queries: readonly string[];
  /** What the file is there for, in a few words. */
  readonly note?: string;
}

export interface CorpusManifest {
  readonly seed: number;
  readonly files: readonly CorpusFile[];
  readonly totals: { readonly files: number; readonly bytes: number };
}

export function expectationName(e: CorpusExpectation): string {
  return typeof e === 'string' ? e : e.error;
}

export function writeCorpusManifest(path: string, m: CorpusManifest): void {
  writeFileSync(path, JSON.stringify(m, null, 1) + '\n');
}

export function readCorpusManifest(path: string): CorpusManifest {
  return JSON.parse(readFileSync(path, 'utf8')) as CorpusManifest;
}
