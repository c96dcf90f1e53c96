import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { FeedDocument } from '@esp/content-client';
import { Document, Packer, Paragraph } from 'docx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documents, type SourceOptions, type Skip } from './document-source';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
  0x89, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
  0x42, 0x60, 0x82,
]);
/** The start of a TrueType font: version 1.0, 16 tables. */
const TTF = Uint8Array.from([0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x03, 0x00, 0x70, ...new Array<number>(52).fill(0)]);
/** A ZIP local file header for "a.txt", stored. */
const ZIP = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 0x61, 0x2e, 0x74, 0x78, 0x74, 0x68, 0x69]);

interface Collected {
  docs: FeedDocument[];
  ids: string[];
  errors: string[];
  skips: Skip[];
}

async function collect(inputs: string[], options: Partial<SourceOptions> = {}): Promise<Collected> {
  const errors: string[] = [];
  const skips: Skip[] = [];
  const docs: FeedDocument[] = [];
  for await (const d of documents(inputs, { onError: (e) => errors.push(e.message), onSkip: (s) => skips.push(s), ...options })) docs.push(d);
  return { docs, ids: docs.map((d) => d.id), errors, skips };
}

async function inDirectory<T>(dir: string, f: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  process.chdir(dir);
  try {
    return await f();
  } finally {
    process.chdir(before);
  }
}

async function bytesOf(doc: FeedDocument): Promise<{ text: string }> {
  const chunks: Uint8Array[] = [];
  for await (const c of doc.content!.open()) chunks.push(c);
  return { text: Buffer.concat(chunks).toString('latin1') };
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'feed-source-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function tree(name: string, files: Record<string, string | Uint8Array>): Promise<string> {
  const root = join(tmp, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe('document source - ids', () => {
  it('two folders with the same names below them give different ids: the path as given joined with the path below', async () => {
    const root = await tree('ids', { 'a/index.html': '<p>a</p>', 'a/sub/x.txt': 'x', 'b/index.html': '<p>b</p>' });
    const { ids, errors } = await inDirectory(root, () => collect(['./a/', 'b//']));
    expect(errors).toEqual([]);
    expect(ids).toEqual(['a/index.html', 'a/sub/x.txt', 'b/index.html']);
    expect((await inDirectory(root, () => collect(['.']))).ids).toEqual(['a/index.html', 'a/sub/x.txt', 'b/index.html']);
    expect((await inDirectory(join(root, 'a'), () => collect(['../b/./index.html']))).ids).toEqual(['../b/index.html']);
    expect((await collect([join(root, 'b') + '/'])).ids).toEqual([join(root, 'b', 'index.html')]);
  });

  it('a file is a document with url, content_type and lazy content, no body', async () => {
    const root = await tree('shape', { 'a b/page.html': '<html><title>t</title></html>' });
    const { docs } = await collect([root]);
    expect(docs).toHaveLength(1);
    const doc = docs[0]!;
    expect(doc.attributes).toEqual({ url: pathToFileURL(join(root, 'a b', 'page.html')).href, content_type: 'text/html' });
    expect(doc.content?.size).toBe(29);
    expect((await bytesOf(doc)).text).toBe('<html><title>t</title></html>');
    expect((await bytesOf(doc)).text).toBe('<html><title>t</title></html>'); // open() again: a fresh stream
  });

  it('an id repeated within one run is an input error for the repeat, which is not fed', async () => {
    const root = await tree('repeat', { 'x.txt': 'x', 'in.jsonl': '{"id":"d1","title":"first"}\n{"id":"d2"}\n{"id":"d1","title":"again"}\n' });
    const file = join(root, 'x.txt');
    const { docs, errors } = await collect([file, join(root, 'in.jsonl'), file]);
    expect(docs.map((d) => d.id)).toEqual([file, 'd1', 'd2']);
    expect(docs[1]!.attributes).toEqual({ title: 'first' });
    expect(errors).toEqual([
      `${join(root, 'in.jsonl')}:3: id "d1" repeated, first at ${join(root, 'in.jsonl')}:1; not fed`,
      `${file}: id ${JSON.stringify(file)} repeated, first at ${file}; not fed`,
    ]);
  });
});

describe('document source - bad inputs never stop the walk', () => {
  it('a dangling symlink is an input error naming it; the files around it are fed', async () => {
    const root = await tree('dangling', { 'a.txt': 'a', 'c.txt': 'c' });
    await symlink('nowhere.txt', join(root, 'b.txt'));
    const { ids, errors } = await collect([root]);
    expect(ids).toEqual([join(root, 'a.txt'), join(root, 'c.txt')]);
    expect(errors).toEqual([`${join(root, 'b.txt')}: dangling symbolic link to nowhere.txt`]);
  });

  it('a directory link to an ancestor is a loop (input error, not followed); a file linked twice is fed once', async () => {
    const root = await tree('loops/root', { 'a/x.txt': 'x', 'b/y.txt': 'y' });
    await symlink('..', join(root, 'a', 'loop')); // → root
    await symlink('../..', join(root, 'a', 'up')); // → loops/, which contains root
    await symlink('x.txt', join(root, 'a', 'l1'));
    await symlink('../a/x.txt', join(root, 'b', 'l2'));
    await symlink('s2', join(root, 'b', 's1'));
    await symlink('s1', join(root, 'b', 's2'));
    const { ids, errors, skips } = await collect([root]);
    expect(ids).toEqual([join(root, 'a', 'l1'), join(root, 'b', 'y.txt')]);
    expect(skips).toEqual([
      { id: join(root, 'a', 'x.txt'), reason: 'same file', sameAs: join(root, 'a', 'l1') },
      { id: join(root, 'b', 'l2'), reason: 'same file', sameAs: join(root, 'a', 'l1') },
    ]);
    expect(errors).toHaveLength(4);
    expect(errors[0]).toMatch(new RegExp(`^${join(root, 'a', 'loop')}: a link to .*root, a directory it is in: a loop, not followed$`));
    expect(errors[1]).toMatch(new RegExp(`^${join(root, 'a', 'up')}: a link to .*loops, which contains .*root, a directory it is in: a loop, not followed$`));
    expect(errors[2]).toBe(`${join(root, 'b', 's1')}: symbolic links in a loop`);
    expect(errors[3]).toBe(`${join(root, 'b', 's2')}: symbolic links in a loop`);
  });

  it('what cannot be read (a FIFO, a file whose read fails) is an input error; the next files are fed', async () => {
    const root = await tree('unreadable', { 'a.txt': 'a', 'z.txt': 'z' });
    execFileSync('mkfifo', [join(root, 'fifo')]);
    // reading /proc/<pid>/mem at offset 0 fails with EIO, even for root (a chmod 000 file does not stop root)
    await symlink('/proc/self/mem', join(root, 'mem'));
    const { ids, errors } = await collect([root]);
    expect(ids).toEqual([join(root, 'a.txt'), join(root, 'z.txt')]);
    expect(errors).toEqual([`${join(root, 'fifo')}: not a regular file or directory (a FIFO)`, expect.stringMatching(new RegExp(`^${join(root, 'mem')}: cannot read: .*EIO`))]);
  });

  it('an entry that vanishes between the listing and its turn is an input error; the next entries are fed', async () => {
    const root = await tree('vanishing', { 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
    const errors: string[] = [];
    const ids: string[] = [];
    for await (const d of documents([root], { onError: (e) => errors.push(e.message) })) {
      ids.push(d.id);
      if (d.id.endsWith('a.txt')) await rm(join(root, 'b.txt')); // the directory was listed already
    }
    expect(ids).toEqual([join(root, 'a.txt'), join(root, 'c.txt')]);
    expect(errors).toEqual([`${join(root, 'b.txt')}: no such file or directory`]);
  });

  it('a missing input is an input error and the next input is read', async () => {
    const root = await tree('missing', { 'a.txt': 'a' });
    const { ids, errors } = await collect([join(root, 'nope'), root]);
    expect(ids).toEqual([join(root, 'a.txt')]);
    expect(errors).toEqual([`${join(root, 'nope')}: no such file or directory`]);
  });

  it('JSON lines: a line nested 5,000 deep, junk and an over-long line are input errors; the good lines around them come out', async () => {
    const deep = '{"id":"deep","x":' + '['.repeat(5000) + ']'.repeat(5000) + '}';
    const lines = ['{"id":"g1"}', deep, '{nope', `{"id":"long","body":"${'x'.repeat(20_000)}"}`, '', '{"id":"g2"}', '{"id":"g3"}'];
    const root = await tree('jsonl', { 'in.jsonl': lines.join('\n') });
    const file = join(root, 'in.jsonl');
    const { ids, errors } = await collect([file], { maxLineBytes: 12_000 });
    expect(ids).toEqual(['g1', 'g2', 'g3']);
    expect(errors).toEqual([`${file}:2: nested deeper than 64 levels`, expect.stringMatching(new RegExp(`^${file}:3: not JSON`)), `${file}:4: line of 20023 bytes, more than 12000`]);
  });

  it('JSON lines on stdin ("-")', async () => {
    const stdin = Readable.from([Buffer.from('{"id":"s1"}\n{"id":'), Buffer.from('"s2"}\n')]);
    expect((await collect(['-'], { stdin })).ids).toEqual(['s1', 's2']);
  });
});

describe('document source - types', () => {
  let root: string;
  beforeAll(async () => {
    const docx = await Packer.toBuffer(new Document({ sections: [{ children: Array.from({ length: 300 }, (_, i) => new Paragraph(`paragraph ${i}`)) }] }));
    root = await tree('types', {
      'a.png': PNG,
      'b.ttf': TTF,
      'c.zip': ZIP,
      'd.bin': Uint8Array.from([1, 2, 3, 0, 0, 7, 0, 9, 200, 201]),
      'e.pdf': '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n',
      'f.docx': docx,
      'g.xml': '<?xml version="1.0"?><a/>',
      'h.xhtml': '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"/>',
      'i.txt': 'BM is how this text starts, like a bitmap',
      'j.md': '# title',
      'k.csv': 'a,b\n1,2\n',
      'l.json': '{"a":1}',
      'm': 'no extension, text',
      'n.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'o.txt': Uint8Array.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]),
      'p.html': '',
      'q.php': '\uFEFF<!-- generated -->\n<!DOCTYPE html><html></html>',
      'r.txt': '<?xml version="1.0"?><note/>',
    });
  });

  it('images, fonts, archives and unknown binary files are skipped with their type as the reason', async () => {
    const { docs, skips, errors } = await collect([root]);
    expect(errors).toEqual([]);
    expect(skips).toEqual([
      { id: join(root, 'a.png'), reason: 'image/png' },
      { id: join(root, 'b.ttf'), reason: 'font/ttf' },
      { id: join(root, 'c.zip'), reason: 'application/zip' },
      { id: join(root, 'd.bin'), reason: 'application/octet-stream' },
      { id: join(root, 'n.svg'), reason: 'image/svg+xml' },
    ]);
    expect(Object.fromEntries(docs.map((d) => [d.id.slice(root.length + 1), d.attributes?.['content_type']]))).toEqual({
      'e.pdf': 'application/pdf',
      'f.docx': DOCX,
      'g.xml': 'application/xml',
      'h.xhtml': 'application/xhtml+xml',
      'i.txt': 'text/plain',
      'j.md': 'text/plain',
      'k.csv': 'text/csv',
      'l.json': 'application/json',
      m: 'text/plain',
      'o.txt': 'text/plain',
      'p.html': 'text/html',
      'q.php': 'text/html',
      'r.txt': 'text/plain',
    });
  });

  it('--include-binary feeds them with their detected type', async () => {
    const { docs, skips } = await collect([root], { includeBinary: true });
    expect(skips).toEqual([]);
    const types = Object.fromEntries(docs.map((d) => [d.id.slice(root.length + 1), d.attributes?.['content_type']]));
    expect(types).toMatchObject({ 'a.png': 'image/png', 'b.ttf': 'font/ttf', 'c.zip': 'application/zip', 'd.bin': 'application/octet-stream', 'n.svg': 'image/svg+xml' });
    expect(docs).toHaveLength(18);
  });

  it('hidden entries are skipped and said so', async () => {
    const dir = await tree('hidden', { '.git/config': 'x', '.env': 'x', 'a.txt': 'a' });
    const { ids, skips } = await collect([dir]);
    expect(ids).toEqual([join(dir, 'a.txt')]);
    expect(skips).toEqual([
      { id: join(dir, '.env'), reason: 'hidden' },
      { id: join(dir, '.git'), reason: 'hidden' },
    ]);
  });
});

describe('document source - large files', () => {
  it('a 30 MB file becomes a document without being read (only its head, for the type); open() streams it in chunks', async () => {
    const size = 30 * 1024 * 1024;
    const root = await tree('large', {});
    await mkdir(root, { recursive: true });
    const path = join(root, 'big.txt');
    await writeFile(path, Buffer.alloc(size, 'a'));
    const t0 = performance.now();
    const { docs } = await collect([path]);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(docs).toHaveLength(1);
    const doc = docs[0]!;
    expect(doc.content?.size).toBe(size);
    expect(doc.attributes?.['body']).toBeUndefined();
    // the bytes are read when open() is called, not before: a change made after the document was produced shows
    const fh = await open(path, 'r+');
    await fh.write(Buffer.from('ZZZZ'), 0, 4, size - 4);
    await fh.close();
    const chunks: number[] = [];
    let tail = '';
    for await (const c of doc.content!.open()) {
      chunks.push(c.length);
      tail = (tail + Buffer.from(c.subarray(-5)).toString('latin1')).slice(-5);
    }
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(size);
    expect(tail).toBe('aZZZZ');
    expect(chunks.length).toBeGreaterThan(100);
    expect(Math.max(...chunks)).toBeLessThanOrEqual(64 * 1024);
  });

  it('a file over maxDocumentBytes is handed on without a single byte read (the client fails it), even one whose head looks binary', async () => {
    const root = await tree('oversize', {});
    await mkdir(root, { recursive: true });
    const path = join(root, 'oversize.txt');
    const fh = await open(path, 'w');
    await fh.write(Buffer.from('text head'), 0, 9, 0);
    await fh.truncate(50 * 1024 * 1024); // sparse: zeros after the head, which type detection would call binary
    await fh.close();
    const { docs, skips } = await collect([path], { maxDocumentBytes: 10 * 1024 * 1024 });
    expect(skips).toEqual([]);
    expect(docs.map((d) => [d.id, d.content?.size])).toEqual([[path, 50 * 1024 * 1024]]);
    // without the limit it is detected, and skipped as binary
    expect((await collect([path])).skips).toMatchObject([{ reason: 'application/octet-stream' }]);
  });
});
