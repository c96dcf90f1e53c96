import { BytearrayAttribute, StringAttribute } from '@esp/codecs';
import { z } from 'zod';
import { StageFailure, type Stage, type StageContext } from '../stage';
import { fileNameOf, formatOf, isTextFormat, mimeOf, type Format } from './content-type';

export const detectOptions = z.strictObject({
  /** The attribute holding the content (default "body"). */
  attribute: z.string().default('body'),
  /** The attribute holding the MIME type (default "content_type"); set to what the bytes say. */
  content_type_attribute: z.string().default('content_type'),
  /** Where the size of the content in bytes goes (default "size"). */
  size_attribute: z.string().default('size'),
  /** Where the short name of the format goes: html, xml, text, pdf, docx, image, audio, video, font, archive, executable, binary. */
  format_attribute: z.string().default('format'),
  /** The document's URL (default "url"): its file name is the title of binary content indexed by its metadata. */
  url_attribute: z.string().default('url'),
  title_attribute: z.string().default('title'),
  /**
   * Content no stage can index (images, audio, video, fonts, archives, executables, unknown binary): "metadata"
   * removes the content and indexes the document by its URL, type, size and title; "fail" fails it with
   * unsupported_format.
   */
  binary: z.enum(['metadata', 'fail']).default('metadata'),
  /** How many leading bytes the magic numbers are looked for in. */
  sniff_bytes: z.number().int().min(64).default(4100),
});
export type DetectOptions = z.output<typeof detectOptions>;

const OCTET_STREAM = 'application/octet-stream';
const ZIP_TYPE = 'application/zip';
const XML_DECLARATION_TYPE = 'application/xml';
const HTML_START = /^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i;

/** The UTF-16 encoding a byte order mark at the start names, if any. */
function utf16Mark(head: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (head.length < 2) return undefined;
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Whether the first bytes look like text: no NUL byte, unless it starts with a UTF-16 byte order mark. */
function looksLikeText(head: Uint8Array): boolean {
  return utf16Mark(head) !== undefined || !head.includes(0);
}

/** html, xml or plain text, from how text starts (WHATWG MIME Sniffing 7.1, much simplified). */
function sniffText(head: Uint8Array): string {
  const first = head.subarray(0, 1024);
  const utf16 = utf16Mark(first);
  const start = (utf16 ? new TextDecoder(utf16).decode(first) : Buffer.from(first.buffer, first.byteOffset, first.length).toString('latin1').replace(/^\xef\xbb\xbf/, '')).trimStart();
  // XHTML is checked as XML and converted as HTML, as the xml and html stages did without a type
  if (HTML_START.test(start)) return start.startsWith('<?xml') ? 'application/xhtml+xml' : 'text/html';
  if (start.startsWith('<?xml')) return XML_DECLARATION_TYPE;
  return 'text/plain';
}

/** Text formats with magic numbers of printable ASCII: PDF and PostScript (%), RTF ({\rtf), XML (<?xml). */
const TEXT_MAGIC = /^(?:%|\{\\rtf|<\?xml)/;

/**
 * Whether `b` has a C0 control other than tab, line feed, form feed, carriage return and escape (ISO-2022-JP uses
 * it), or DEL: binary formats have some (NUL at least) in their first bytes, text in any ASCII-compatible charset none.
 */
function hasBinaryByte(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) {
    const c = b[i] as number;
    if (c < 0x20 ? c !== 0x09 && c !== 0x0a && c !== 0x0c && c !== 0x0d && c !== 0x1b : c === 0x7f) return true;
  }
  return false;
}

/**
 * Whether the magic numbers need looking for: not in text without control characters that starts like no text
 * format with magic numbers. file-type tries every format it knows, about 0.1 ms for 1 KB of text: more than the
 * rest of the pipeline.
 */
function mayHaveMagic(head: Uint8Array): boolean {
  return hasBinaryByte(head) || TEXT_MAGIC.test(Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 8)).toString('latin1'));
}

/**
 * The MIME type of some content: what its magic numbers say where they say something definite, else the declared
 * type, else a sniff of html, xml or plain text. A zip container is looked into (a DOCX is a zip); an XML
 * declaration does not override a declared text type (XHTML, RSS, SVG...).
 */
export async function detectType(bytes: Uint8Array, declared: string | undefined, sniffBytes = 4100): Promise<string> {
  const head = bytes.subarray(0, sniffBytes);
  // a UTF-16 byte order mark makes it text: FF FE also opens an MPEG audio frame, which the magic numbers would say
  if (!mayHaveMagic(head) || utf16Mark(head)) return declaredOrSniffed(head, declared);
  // loaded when first needed, like the PDF and DOCX readers: item processors start faster
  const { fileTypeFromBuffer } = await import('file-type');
  let found = await fileTypeFromBuffer(head);
  if (found?.mime === ZIP_TYPE && bytes.length > head.length) found = (await fileTypeFromBuffer(bytes)) ?? found;
  const known = declared !== undefined && declared !== OCTET_STREAM ? declared : undefined;
  if (found !== undefined) {
    if (found.mime === XML_DECLARATION_TYPE) return known !== undefined && isTextFormat(formatOf(known)) ? known : sniffText(head);
    if (found.mime === ZIP_TYPE && known !== undefined && formatOf(known) === 'docx') return known;
    return found.mime;
  }
  return declaredOrSniffed(head, declared);
}

/** Without magic numbers: the declared type, else html, xml or plain text, else (NUL bytes) octet-stream. */
function declaredOrSniffed(head: Uint8Array, declared: string | undefined): string {
  const known = declared !== undefined && declared !== OCTET_STREAM ? declared : undefined;
  if (!looksLikeText(head)) return known !== undefined && !isTextFormat(formatOf(known)) ? known : OCTET_STREAM;
  return known ?? sniffText(head);
}

/** Formats the pipeline turns into text; the others are binary. */
const INDEXABLE = new Set<Format>(['html', 'xml', 'text', 'pdf', 'docx']);

/**
 * detect: what the content is, from its bytes, not only from the type declared for it (usually guessed from the file
 * name). Sets the content type, `size` and `format`. Content no stage can index is indexed by its metadata, or
 * fails with unsupported_format (`binary: "fail"`). Text content (a string attribute) keeps its declared type.
 */
export function createDetectStage(name: string, o: DetectOptions): Stage {
  return {
    name,
    type: 'detect',
    async process(ctx: StageContext) {
      const body = ctx.doc.get(o.attribute);
      const declaredAttr = ctx.doc.getString(o.content_type_attribute);
      const declared = mimeOf(declaredAttr);
      if (body instanceof StringAttribute) {
        ctx.doc.setScalar(o.size_attribute, Buffer.byteLength(body.value));
        const type = declared ?? sniffText(Buffer.from(body.value.slice(0, 1024)));
        if (declared === undefined) ctx.doc.setString(o.content_type_attribute, type);
        ctx.doc.setString(o.format_attribute, formatOf(type));
        return;
      }
      if (!(body instanceof BytearrayAttribute)) return;
      const bytes = body.value;
      const type = await detectType(bytes, declared, o.sniff_bytes);
      const format = formatOf(type);
      // a declared type keeps its parameters (the charset of an HTTP header) when the bytes agree with it
      if (type !== declared) ctx.doc.setString(o.content_type_attribute, type);
      ctx.doc.setScalar(o.size_attribute, bytes.length);
      ctx.doc.setString(o.format_attribute, format);
      if (ctx.debugging) ctx.debug(`${bytes.length} bytes of ${type}${declared !== undefined && declared !== type ? ` (declared ${declared})` : ''}`);
      if (INDEXABLE.has(format)) return;
      if (o.binary === 'fail') throw new StageFailure('unsupported_format', `${type} content (${format}) cannot be indexed`);
      ctx.doc.remove(o.attribute);
      const title = ctx.doc.getString(o.title_attribute);
      const file = fileNameOf(ctx.doc.getString(o.url_attribute));
      if ((title === undefined || title.trim() === '') && file !== undefined) ctx.doc.setString(o.title_attribute, file);
    },
  };
}
