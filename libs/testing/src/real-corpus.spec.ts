import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { generateRealCorpus, OVERSIZE_BYTES } from './real-corpus';
import { readCorpusManifest, type CorpusFile, type CorpusManifest } from './real-corpus-manifest';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'esp-corpus-spec-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function walk(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name), root) : [relative(root, join(dir, e.name))]));
}

/** The hash of every file but the sparse oversize one (its 200 MiB of zeros cost time, not information). */
function corpusHash(dir: string): string {
  const h = createHash('sha256');
  for (const rel of walk(dir).sort()) {
    h.update(rel);
    h.update(rel.endsWith('oversize.txt') ? readFileSync(join(dir, rel)).subarray(0, 4096) : readFileSync(join(dir, rel)));
  }
  return h.digest('hex');
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const small = { scale: 0.1, large: 1, largeMaxBytes: 1536 * 1024, huge: false } as const;

describe('generateRealCorpus', () => {
  let dir: string;
  let m: CorpusManifest;
  const file = (path: string): CorpusFile => {
    const f = m.files.find((x) => x.path === path);
    if (!f) throw new Error(`no ${path} in the manifest`);
    return f;
  };
  const bytesOf = (path: string) => readFileSync(join(dir, path));

  it('generate - the same seed gives the same bytes, another seed other bytes', async () => {
    dir = tempDir();
    m = await generateRealCorpus(dir, { seed: 42, ...small });
    const again = tempDir();
    await generateRealCorpus(again, { seed: 42, ...small });
    const other = tempDir();
    await generateRealCorpus(other, { seed: 43, ...small });
    expect(corpusHash(again)).toBe(corpusHash(dir));
    expect(corpusHash(other)).not.toBe(corpusHash(dir));
  });

  it('manifest - lists every file with its real size, and nothing else', () => {
    expect(readCorpusManifest(join(dir, 'manifest.json'))).toEqual(m);
    const onDisk = walk(dir).filter((p) => p !== 'manifest.json').sort();
    expect(m.files.map((f) => f.path).sort()).toEqual(onDisk);
    for (const f of m.files) expect(statSync(join(dir, f.path)).size, f.path).toBe(f.size);
    expect(m.totals).toEqual({ files: m.files.length, bytes: m.files.reduce((a, f) => a + f.size, 0) });
    expect(m.files.map((f) => f.path)).toEqual(expect.arrayContaining(['site-a/index.html', 'site-b/index.html']));
    expect(m.files.filter((f) => f.kind === 'pdf' && f.expect === 'completed').length).toBeGreaterThanOrEqual(2);
    expect(m.files.filter((f) => f.kind === 'docx' && f.expect === 'completed').length).toBeGreaterThanOrEqual(2);
  });

  it('manifest - expectations of the broken files and binaries', () => {
    expect(file('broken/broken.pdf').expect).toEqual({ error: 'pdf_error' });
    expect(file('broken/truncated.docx').expect).toEqual({ error: 'docx_error' });
    expect(file('broken/mislabelled-utf8.html').expect).toEqual({ error: 'utf8_error' });
    expect(file('broken/oversize.txt').expect).toEqual({ error: 'document_too_large' });
    expect(file('binary/photo.png').expect).toBe('skipped');
    expect(file('binary/archive.zip').expect).toBe('skipped');
  });

  it('words - 2-3 per document, unique in the corpus, in the document own text', () => {
    const seen = new Set<string>();
    for (const f of m.files.filter((x) => x.expect === 'completed')) {
      expect(f.words.length, f.path).toBeGreaterThanOrEqual(2);
      expect(f.words.length, f.path).toBeLessThanOrEqual(3);
      expect(f.queries.length, f.path).toBeGreaterThan(0);
      for (const w of f.words) {
        expect(seen.has(w), w).toBe(false);
        seen.add(w);
      }
      if (f.kind === 'pdf' || f.kind === 'docx') continue;
      const text = iconv.decode(bytesOf(f.path), f.charset === 'Shift_JIS' ? 'shift_jis' : (f.charset ?? 'utf-8'));
      for (const w of f.words) expect(text.includes(w), `${f.path}: ${w}`).toBe(true);
    }
  });

  it('large documents - the words at the start, the middle and the end of the text', () => {
    const large = m.files.find((f) => f.path.startsWith('large/'));
    expect(large).toBeDefined();
    const f = large as CorpusFile;
    expect(f.size).toBeGreaterThanOrEqual(1024 * 1024);
    const text = bytesOf(f.path).toString('utf8');
    const at = f.words.map((w) => text.indexOf(w) / text.length);
    expect(at[0]).toBeLessThan(0.05);
    expect(at[1]).toBeGreaterThan(0.4);
    expect(at[1]).toBeLessThan(0.6);
    expect(at[2]).toBeGreaterThan(0.95);
  });

  it('charsets - legacy HTML is not UTF-8 and holds its non-ASCII words once decoded', () => {
    const legacy = m.files.filter((f) => f.path.startsWith('charsets/'));
    expect(legacy.map((f) => f.charset).sort()).toEqual(['ISO-8859-1', 'ISO-8859-1', 'Shift_JIS', 'Shift_JIS', 'windows-1252', 'windows-1252']);
    for (const f of legacy) {
      const bytes = bytesOf(f.path);
      expect(isUtf8(bytes), f.path).toBe(false);
      const text = iconv.decode(bytes, f.charset as string);
      expect(f.words.some((w) => /[\u0080-\uffff]/.test(w)), f.path).toBe(true);
      expect(f.words.some((w) => /^[a-z0-9]+$/.test(w)), f.path).toBe(true);
      expect(text.includes(`<meta charset="${f.charset}">`), f.path).toBe(f.declaredCharset !== undefined);
    }
    // only Windows-1252 has €, œ and curly quotes: bytes 0x80, 0x9c, 0x93 (C1 controls in ISO-8859-1)
    const cp1252 = bytesOf('charsets/cp1252-meta.html');
    for (const b of [0x80, 0x9c, 0x93, 0x97]) expect(cp1252.includes(b), `byte ${b}`).toBe(true);
    expect(iconv.decode(bytesOf('charsets/sjis-nometa.html'), 'shift_jis')).toMatch(/ 日本語の検索\d+号\./);
    const latin1 = iconv.decode(bytesOf('charsets/latin1-meta.html'), 'latin1');
    expect(latin1).toContain('Zürichsee');
    expect(latin1).toContain('crème');
  });

  it('broken and binary files - magic numbers, truncation, a sparse oversize file', () => {
    for (const f of m.files.filter((x) => x.kind === 'pdf')) expect(bytesOf(f.path).subarray(0, 5).toString('latin1'), f.path).toBe('%PDF-');
    for (const f of m.files.filter((x) => x.kind === 'docx' || x.kind === 'zip')) expect([...bytesOf(f.path).subarray(0, 4)], f.path).toEqual([0x50, 0x4b, 3, 4]);
    expect([...bytesOf('binary/photo.png').subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const docx = m.files.find((f) => f.kind === 'docx' && f.expect === 'completed') as CorpusFile;
    expect(file('broken/truncated.docx').size).toBeLessThan(docx.size);
    // no end of central directory: not a readable zip
    expect(bytesOf('broken/truncated.docx').includes(Buffer.from([0x50, 0x4b, 5, 6]))).toBe(false);
    const mislabelled = bytesOf('broken/mislabelled-utf8.html');
    expect(mislabelled.toString('latin1')).toContain('<meta charset="UTF-8">');
    expect(isUtf8(mislabelled)).toBe(false);
    const st = statSync(join(dir, 'broken/oversize.txt'));
    expect(st.size).toBe(OVERSIZE_BYTES);
    expect(st.blocks * 512).toBeLessThan(1024 * 1024);
  });

  it('sizes - the default 300 documents have a median near 7 KiB and a 90th percentile near 130 KiB', async () => {
    const d = tempDir();
    const full = await generateRealCorpus(d, { seed: 42, large: 0, huge: false, oversize: false });
    const ordinary = full.files.filter((f) => /^(site-a|site-b|news|blog|support|notes|feeds)\//.test(f.path)).map((f) => f.size);
    expect(ordinary.length).toBe(300);
    ordinary.sort((a, b) => a - b);
    const median = (ordinary[149] as number) / 1024;
    const p90 = (ordinary[269] as number) / 1024;
    expect(median).toBeGreaterThan(5);
    expect(median).toBeLessThan(10);
    expect(p90).toBeGreaterThan(90);
    expect(p90).toBeLessThan(190);
    expect(full.files.some((f) => f.path.startsWith('large/'))).toBe(false);
  });
});
