/**
 * A realistic test corpus, the same bytes for the same seed: ordinary HTML, text and XML documents with log-normal
 * sizes (median 7 KiB, p90 130 KiB), large documents of 1-20 MiB and one of 60 MiB (written in chunks), PDF and DOCX
 * made at generation time, HTML in ISO-8859-1, Windows-1252 and Shift_JIS with and without `<meta charset>`,
 * broken files that must fail with a named error, binaries that must be skipped, and a 200 MiB sparse file over
 * the 100 MiB document limit. Two folders hold files of the same names (site-a/index.html, site-b/index.html).
 *
 *   const m = await generateRealCorpus(dir, { seed: 42 });                        // ~300 documents + 21 large ones
 *   const small = await generateRealCorpus(dir, { seed: 1, scale: 0.1 });          // 30 documents, nothing large
 *   m.files[0]   // { path: 'site-a/index.html', size, kind: 'html', charset: 'utf-8', expect: 'completed', words, queries }
 *
 * Writes `manifest.json` into `dir` unless `manifestFile` says where (a feed of the whole directory then holds only
 * the corpus).
 */
import { closeSync, fstatSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { brokenPdf, makeDocx, makePdf, makePng, makeZip, truncatedDocx, writeSparseFile } from './real-corpus-binary';
import { CHARSET_LABEL, legacyHtml, mislabelledUtf8Html, type LegacyCharset } from './real-corpus-encodings';
import { writeCorpusManifest, type CorpusFile, type CorpusManifest } from './real-corpus-manifest';
import { SeededRandom, uniqueWord } from './real-corpus-random';
import { htmlChunks, joinChunks, paragraphText, textChunks, xmlChunks, type TextDocSpec } from './real-corpus-text';

const MiB = 1024 * 1024;

export interface RealCorpusOptions {
  readonly seed: number;
  /** Shrinks the corpus (ordinary, PDF and DOCX counts); below 1 also no large or huge documents unless asked. */
  readonly scale?: number;
  /** Ordinary documents (default 300 x scale). */
  readonly docs?: number;
  /** Documents of 1-20 MiB, 0..20 (default 20 at scale 1, else 0). */
  readonly large?: number;
  /** The largest size of the large documents (default 20 MiB). */
  readonly largeMaxBytes?: number;
  /** The 60 MiB document (default: at scale 1). */
  readonly huge?: boolean;
  readonly hugeBytes?: number;
  /** The 200 MiB sparse file over the document limit (default true). */
  readonly oversize?: boolean;
  /** Where to write the manifest (default `<dir>/manifest.json`). */
  readonly manifestFile?: string;
}

/** The document size limit the oversize file exceeds (the content client's default). */
export const CORPUS_DOCUMENT_LIMIT_BYTES = 100 * MiB;
export const OVERSIZE_BYTES = 200 * MiB;

const ORDINARY_FOLDERS = ['site-a', 'site-b', 'news', 'blog/2024', 'support/kb'];
const TITLES = ['Annual report', 'Product overview', 'Release notes', 'Press release', 'Travel guide', 'Museum exhibition', 'Council minutes', 'Harbour schedule', 'Research summary', 'Service status'];
const UTF8_LEADS = ['A naïve café — “quoted” and ‘noted’ — for 5 €.', 'Grüße aus Köln; São Paulo, Kraków and Malmö.', 'Price: ¥1200 · £9 · ±3 °C.'];

interface Writer {
  add(rel: string, file: Omit<CorpusFile, 'path' | 'size'>, bytes: Uint8Array | string): void;
  addChunks(rel: string, file: Omit<CorpusFile, 'path' | 'size'>, chunks: Iterable<string>): void;
  addSized(rel: string, file: Omit<CorpusFile, 'path' | 'size'>, size: number, make: (path: string) => void): void;
}

function writer(dir: string, files: CorpusFile[]): Writer {
  const prepare = (rel: string) => {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    return path;
  };
  return {
    add(rel, file, bytes) {
      const path = prepare(rel);
      writeFileSync(path, bytes);
      files.push({ path: rel, size: typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.byteLength, ...file });
    },
    addChunks(rel, file, chunks) {
      const fd = openSync(prepare(rel), 'w');
      try {
        for (const c of chunks) writeSync(fd, c);
        files.push({ path: rel, size: fstatSync(fd).size, ...file });
      } finally {
        closeSync(fd);
      }
    },
    addSized(rel, file, size, make) {
      make(prepare(rel));
      files.push({ path: rel, size, ...file });
    },
  };
}

function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

/** Generates the corpus into `dir` (created if missing) and returns its manifest. */
export async function generateRealCorpus(dir: string, opts: RealCorpusOptions): Promise<CorpusManifest> {
  const scale = opts.scale ?? 1;
  const full = scale >= 1;
  const nDocs = opts.docs ?? Math.round(300 * scale);
  const nLarge = Math.min(20, Math.max(0, opts.large ?? (full ? 20 : 0)));
  const huge = opts.huge ?? full;
  const nPdf = Math.max(2, Math.round(8 * scale));
  const nDocx = Math.max(2, Math.round(8 * scale));
  const root = new SeededRandom(opts.seed);
  const files: CorpusFile[] = [];
  const w = writer(dir, files);
  mkdirSync(dir, { recursive: true });
  // every document has a number of its own: its distinctive words carry it, so they are unique in the corpus
  let docNo = 0;
  const wordsFor = (rng: SeededRandom, no: number, n: number) => Array.from({ length: n }, (_, k) => uniqueWord(rng, no, k));

  // ordinary documents: mostly HTML, some text and XML; sizes drawn in order from one sequence
  const sizes = root.fork('sizes');
  for (let i = 0; i < nDocs; i++) {
    const no = docNo++;
    const rng = root.fork(`doc-${i}`);
    const targetBytes = sizes.logNormalSize();
    const r = rng.next();
    const kind = r < 0.8 ? 'html' : r < 0.92 ? 'text' : 'xml';
    const title = `${rng.pick(TITLES)} ${no}`;
    const words = wordsFor(rng, no, 3);
    const spec: TextDocSpec = { title, targetBytes, words, ...(kind === 'html' && rng.chance(0.3) ? { lead: rng.pick(UTF8_LEADS) } : {}), ...(rng.chance(0.7) ? { charset: 'utf-8' } : {}) };
    const rel =
      i < 2
        ? `${ORDINARY_FOLDERS[i]}/index.html`
        : kind === 'html'
          ? `${rng.pick(ORDINARY_FOLDERS)}/${slug(title)}.html`
          : kind === 'text'
            ? `notes/${slug(title)}.txt`
            : `feeds/${slug(title)}.xml`;
    const chunks = i < 2 || kind === 'html' ? htmlChunks(rng, spec) : kind === 'text' ? textChunks(rng, spec) : xmlChunks(rng, spec);
    w.add(rel, { kind: i < 2 ? 'html' : kind, charset: 'utf-8', ...(spec.charset && (i < 2 || kind === 'html') ? { declaredCharset: spec.charset } : {}), expect: 'completed', words, queries: words }, joinChunks(chunks));
  }

  // large documents, 1..20 MiB, and the huge one: written chunk by chunk
  const maxLarge = opts.largeMaxBytes ?? 20 * MiB;
  for (let k = 0; k < nLarge; k++) {
    const no = docNo++;
    const rng = root.fork(`large-${k}`);
    const targetBytes = Math.round(Math.min(MiB, maxLarge) + rng.next() * Math.max(0, maxLarge - MiB));
    const words = wordsFor(rng, no, 3);
    const html = k % 2 === 0;
    const spec: TextDocSpec = { title: `Large ${html ? 'page' : 'log'} ${no}`, targetBytes, words, ...(html ? { charset: 'utf-8' } : {}) };
    w.addChunks(`large/large-${k + 1}.${html ? 'html' : 'txt'}`, { kind: html ? 'html' : 'text', charset: 'utf-8', expect: 'completed', words, queries: words, note: 'large: words at start, middle, end' }, html ? htmlChunks(rng, spec) : textChunks(rng, spec));
  }
  if (huge) {
    const no = docNo++;
    const rng = root.fork('huge');
    const words = wordsFor(rng, no, 3);
    const spec: TextDocSpec = { title: `Huge archive ${no}`, targetBytes: opts.hugeBytes ?? 60 * MiB, words, charset: 'utf-8' };
    w.addChunks('large/huge-60mb.html', { kind: 'html', charset: 'utf-8', expect: 'completed', words, queries: words, note: 'huge: words at start, middle, end' }, htmlChunks(rng, spec));
  }

  // PDF and DOCX made now, words on the first, a middle and the last page / paragraph
  for (let k = 0; k < nPdf; k++) {
    const no = docNo++;
    const rng = root.fork(`pdf-${k}`);
    const words = wordsFor(rng, no, 3);
    const title = `${rng.pick(TITLES)} ${no}`;
    const pageCount = rng.int(2, 5);
    const pages = Array.from({ length: pageCount }, () => Array.from({ length: rng.int(3, 6) }, () => paragraphText(rng)));
    const at = (p: number, para: 'first' | 'last', word: string) => {
      const page = pages[p] as string[];
      const i = para === 'first' ? 0 : page.length - 1;
      page[i] = para === 'first' ? `${word} ${page[i]}` : `${page[i]} ${word}`;
    };
    at(0, 'first', words[0] as string);
    at(Math.floor(pageCount / 2), 'first', words[1] as string);
    at(pageCount - 1, 'last', words[2] as string);
    w.add(`pdf/${slug(title)}.pdf`, { kind: 'pdf', charset: null, expect: 'completed', words, queries: words, note: `${pageCount} pages, title in metadata` }, await makePdf({ title, pages }));
  }
  let lastDocx: Buffer | undefined;
  for (let k = 0; k < nDocx; k++) {
    const no = docNo++;
    const rng = root.fork(`docx-${k}`);
    const words = wordsFor(rng, no, 3);
    const title = `${rng.pick(TITLES)} ${no}`;
    const paragraphs = Array.from({ length: rng.int(8, 30) }, () => paragraphText(rng));
    paragraphs[0] = `${words[0]} ${paragraphs[0]}`;
    const mid = Math.floor(paragraphs.length / 2);
    paragraphs[mid] = `${paragraphs[mid]} ${words[1]}`;
    paragraphs[paragraphs.length - 1] = `${paragraphs[paragraphs.length - 1]} ${words[2]}`;
    lastDocx = await makeDocx({ title, paragraphs });
    w.add(`docx/${slug(title)}.docx`, { kind: 'docx', charset: null, expect: 'completed', words, queries: words }, lastDocx);
  }

  // legacy charsets, each with and without <meta charset>
  const legacy: [LegacyCharset, string][] = [
    ['iso-8859-1', 'latin1'],
    ['windows-1252', 'cp1252'],
    ['shift_jis', 'sjis'],
  ];
  for (const [charset, short] of legacy) {
    for (const withMeta of [true, false]) {
      const no = docNo++;
      const rng = root.fork(`${short}-${withMeta}`);
      const d = legacyHtml(rng, charset, { doc: no, withMeta, asciiWord: uniqueWord(rng, no, 0) });
      w.add(
        `charsets/${short}-${withMeta ? 'meta' : 'nometa'}.html`,
        { kind: 'html', charset: CHARSET_LABEL[charset], ...(withMeta ? { declaredCharset: CHARSET_LABEL[charset] } : {}), expect: 'completed', words: d.words, queries: d.queries },
        d.bytes,
      );
    }
  }

  // broken files: each must fail with its named error
  {
    const rng = root.fork('broken');
    const pdfWord = uniqueWord(rng, docNo++, 0);
    w.add('broken/broken.pdf', { kind: 'pdf', charset: null, expect: { error: 'pdf_error' }, words: [pdfWord], queries: [], note: 'PDF header, then garbage' }, brokenPdf(rng));
    const docxNo = docNo++;
    const docxWords = wordsFor(rng, docxNo, 2);
    const docx = lastDocx ?? (await makeDocx({ title: 'Truncated', paragraphs: docxWords }));
    w.add('broken/truncated.docx', { kind: 'docx', charset: null, expect: { error: 'docx_error' }, words: docxWords, queries: [], note: 'the first half of a DOCX' }, truncatedDocx(docx));
    const utf8Word = uniqueWord(rng, docNo++, 0);
    w.add('broken/mislabelled-utf8.html', { kind: 'html', charset: 'ISO-8859-1', declaredCharset: 'UTF-8', expect: { error: 'utf8_error' }, words: [utf8Word], queries: [], note: 'declares UTF-8, holds ISO-8859-1 bytes' }, mislabelledUtf8Html(rng, utf8Word));
    if (opts.oversize ?? true) {
      const word = uniqueWord(rng, docNo++, 0);
      w.addSized('broken/oversize.txt', { kind: 'text', charset: 'utf-8', expect: { error: 'document_too_large' }, words: [word], queries: [], note: 'sparse, over the 100 MiB limit' }, OVERSIZE_BYTES, (path) =>
        writeSparseFile(path, `Oversize ${word}\n${paragraphText(rng)}\n`, OVERSIZE_BYTES),
      );
    }
  }

  // binaries: not text, skipped
  {
    const rng = root.fork('binary');
    w.add('binary/photo.png', { kind: 'png', charset: null, expect: 'skipped', words: [], queries: [], note: 'a real PNG' }, makePng(rng));
    const zip = makeZip([
      { name: 'readme.txt', data: Buffer.from(paragraphText(rng)) },
      { name: 'image.png', data: makePng(rng, 16, 16) },
    ]);
    w.add('binary/archive.zip', { kind: 'zip', charset: null, expect: 'skipped', words: [], queries: [], note: 'a real zip archive' }, zip);
  }

  const manifest: CorpusManifest = { seed: opts.seed, files, totals: { files: files.length, bytes: files.reduce((a, f) => a + f.size, 0) } };
  writeCorpusManifest(opts.manifestFile ?? join(dir, 'manifest.json'), manifest);
  return manifest;
}
