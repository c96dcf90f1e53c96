import { inflateRawSync } from 'node:zlib';
import { BytearrayAttribute } from '@esp/codecs';
import { z } from 'zod';
import { StageFailure, type Stage, type StageContext } from '../stage';
import { DOCX_TYPE, mimeOf } from './content-type';
import { wellFormed } from './utf8';

export const docxOptions = z.strictObject({
  /** The attribute holding the DOCX (default "body"); its text replaces it. */
  attribute: z.string().default('body'),
  /** The attribute holding the MIME type (default "content_type"): the Word (OOXML) type is converted. */
  content_type_attribute: z.string().default('content_type'),
  /** Where the title of docProps/core.xml goes; an existing non-empty title is kept. */
  title_attribute: z.string().default('title'),
});
export type DocxOptions = z.output<typeof docxOptions>;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * One stored or deflated file of a zip archive (APPNOTE.TXT 4.3: the end of central directory record, the central
 * directory, the local header), or undefined when it is not there or the archive is not readable.
 */
export function zipEntry(zip: Uint8Array, name: string): Buffer | undefined {
  const b = Buffer.from(zip.buffer, zip.byteOffset, zip.length);
  // the end record is in the last 22 + 65535 (comment) bytes
  let end = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 0xffff); i--) {
    if (b.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) return undefined;
  const count = b.readUInt16LE(end + 10);
  let p = b.readUInt32LE(end + 16);
  for (let n = 0; n < count && p + 46 <= b.length && b.readUInt32LE(p) === CENTRAL; n++) {
    const method = b.readUInt16LE(p + 10);
    const size = b.readUInt32LE(p + 20);
    const nameLen = b.readUInt16LE(p + 28);
    const skip = nameLen + b.readUInt16LE(p + 30) + b.readUInt16LE(p + 32);
    const local = b.readUInt32LE(p + 42);
    if (b.toString('utf8', p + 46, p + 46 + nameLen) === name) {
      if (local + 30 > b.length || b.readUInt32LE(local) !== LOCAL) return undefined;
      const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
      const data = b.subarray(start, start + size);
      if (method === 0) return data;
      return method === 8 ? inflateRawSync(data) : undefined;
    }
    p += 46 + skip;
  }
  return undefined;
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The dc:title of a DOCX's docProps/core.xml (ECMA-376 Part 2, 11), or undefined. */
export function docxTitle(zip: Uint8Array): string | undefined {
  let core: Buffer | undefined;
  try {
    core = zipEntry(zip, 'docProps/core.xml');
  } catch {
    return undefined;
  }
  const m = core && /<dc:title(?:\s[^>]*)?>([^<]*)<\/dc:title>/.exec(core.toString('utf8'));
  const title = m?.[1]
    ?.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (all, e: string) =>
      e[0] === '#' ? String.fromCodePoint(parseInt(e[1] === 'x' || e[1] === 'X' ? e.slice(2) : e.slice(1), e[1] === 'x' || e[1] === 'X' ? 16 : 10)) : (XML_ENTITIES[e] ?? all),
    )
    .trim();
  return title ? title : undefined;
}

/**
 * docx: a Word document (OOXML, as the detect stage sets it from the bytes) becomes its text, with mammoth; the
 * title of its document properties goes into `title`. A DOCX that cannot be read (truncated, not a Word document)
 * fails the item with docx_error. Other content is left alone.
 */
export function createDocxStage(name: string, o: DocxOptions): Stage {
  return {
    name,
    type: 'docx',
    async process(ctx: StageContext) {
      const body = ctx.doc.get(o.attribute);
      if (!(body instanceof BytearrayAttribute) || mimeOf(ctx.doc.getString(o.content_type_attribute)) !== DOCX_TYPE) return;
      const bytes = body.value;
      let text: string;
      try {
        // loaded on the first DOCX, as pdf.js is on the first PDF
        const { default: mammoth } = await import('mammoth');
        const result = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) });
        text = wellFormed(result.value);
      } catch (err) {
        throw new StageFailure('docx_error', `attribute "${o.attribute}": cannot read the DOCX (${bytes.length} bytes): ${(err as Error)?.message ?? String(err)}`);
      }
      ctx.doc.setString(o.attribute, text);
      const title = docxTitle(bytes);
      const existing = ctx.doc.getString(o.title_attribute);
      if (title !== undefined && (existing === undefined || existing.trim() === '')) ctx.doc.setString(o.title_attribute, title);
      if (ctx.debugging) ctx.debug(`DOCX to text: ${text.length} characters, title ${title ? JSON.stringify(title) : 'none'}`);
    },
  };
}
