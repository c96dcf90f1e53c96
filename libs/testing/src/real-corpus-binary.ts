/**
 * Binary files of the test corpus: PDF (pdfkit) and DOCX (docx) made at test time, their broken twins, a real PNG, a
 * real zip archive, and a sparse file over the document size limit. All deterministic for a seed: the PDF's dates
 * (and so its file id) are fixed, and the DOCX is packed under a fixed clock (docx stamps its core properties and the
 * zip entries with the current time).
 *
 *   const pdf = await makePdf({ title: 'Quarterly report', pages: [['zorvex1q0 ...'], ['...'], ['... bel1q2']] });
 */
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import PDFDocument from 'pdfkit';
import { encodePng } from './png';
import type { SeededRandom } from './real-corpus-random';

/** The time stamped into made documents. */
export const CORPUS_EPOCH = new Date('2024-03-01T12:00:00Z');

/** A PDF with `title` in its metadata and one page per entry of `pages` (paragraphs of text). */
export async function makePdf(opts: { title: string; author?: string; pages: readonly (readonly string[])[] }): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    info: { Title: opts.title, Author: opts.author ?? 'Corpus Generator', CreationDate: CORPUS_EPOCH, ModDate: CORPUS_EPOCH },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  for (const page of opts.pages) {
    doc.addPage();
    doc.fontSize(11);
    for (const para of page) doc.text(para, { paragraphGap: 6 });
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

/**
 * Runs `fn` with `Date` fixed at `at` (no-argument construction and Date.now) until it settles. Only for packing a
 * DOCX (a few milliseconds); whatever else runs in those milliseconds sees the same fixed clock (performance.now and
 * timers are not affected).
 */
async function withFixedClock<T>(at: Date, fn: () => Promise<T>): Promise<T> {
  const Real = Date;
  const fixed = at.getTime();
  class FixedDate extends Real {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(fixed);
      else super(...(args as [number]));
    }
    static override now(): number {
      return fixed;
    }
  }
  globalThis.Date = FixedDate as DateConstructor;
  try {
    return await fn();
  } finally {
    globalThis.Date = Real;
  }
}

/** A DOCX with `title` in its core properties, a heading, and the paragraphs. */
export async function makeDocx(opts: { title: string; paragraphs: readonly string[] }): Promise<Buffer> {
  // the core properties take their dates when the document is made, the zip entries when it is packed
  return withFixedClock(CORPUS_EPOCH, () => {
    const doc = new Document({
      title: opts.title,
      creator: 'Corpus Generator',
      description: 'a test document of the realistic corpus',
      sections: [
        {
          children: [
            new Paragraph({ text: opts.title, heading: HeadingLevel.HEADING_1 }),
            ...opts.paragraphs.map((p) => new Paragraph({ children: [new TextRun(p)] })),
          ],
        },
      ],
    });
    return Packer.toBuffer(doc);
  });
}

/** A file that starts like a PDF and then holds garbage. */
export function brokenPdf(rng: SeededRandom): Buffer {
  const garbage = Buffer.alloc(4096);
  for (let i = 0; i < garbage.length; i++) garbage[i] = rng.int(0, 255);
  return Buffer.concat([Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\n', 'latin1'), garbage]);
}

/** The first half of a DOCX: a zip without its central directory. */
export function truncatedDocx(docx: Buffer): Buffer {
  return docx.subarray(0, Math.floor(docx.length / 2));
}

/** A real RGB PNG of `w` x `h` pixels (a gradient with noise). */
export function makePng(rng: SeededRandom, w = 64, h = 48): Buffer {
  return encodePng(w, h, 2, (x, y) => [(x * 4) & 255, (y * 5) & 255, rng.int(0, 255)]);
}

/** A real zip archive (entries stored, not compressed) of the given files. */
export function makeZip(files: readonly { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  // DOS date and time of CORPUS_EPOCH: 2024-03-01 12:00:00
  const dosTime = 12 << 11;
  const dosDate = ((2024 - 1980) << 9) | (3 << 5) | 1;
  for (const f of files) {
    const name = Buffer.from(f.name, 'utf8');
    const crc = crc32(f.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(f.data.length, 18);
    local.writeUInt32LE(f.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(f.data.length, 20);
    central.writeUInt32LE(f.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, f.data);
    centrals.push(central, name);
    offset += local.length + name.length + f.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A sparse file of `size` bytes that starts with `head` (costs no time and almost no disk). */
export function writeSparseFile(path: string, head: string, size: number): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}
