import { extname } from 'node:path';
import { CONTENT_TYPE_BY_EXTENSION } from '@esp/pipeline';
import { fileTypeFromBuffer } from 'file-type';

/** How many bytes of a file the type detection reads: file-type's own sample size. */
export const HEAD_BYTES = 4100;

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Content types by extension, for what the bytes do not tell (text has no magic number). */
const BY_EXTENSION = CONTENT_TYPE_BY_EXTENSION;

/** Types some stage reads, when the bytes say so: everything else file-type recognizes is binary to us. */
const INDEXABLE = new Set(['application/pdf', DOCX, 'application/xml']);

/** Indexable-looking by name yet not text: SVG is XML by its bytes, an image by its purpose. */
const BINARY_BY_EXTENSION: Record<string, string> = { '.svg': 'image/svg+xml' };

export interface DetectedType {
  contentType: string;
  /** Set when no stage can index this content: the reason it is skipped (its MIME type), unless binary is wanted. */
  binary?: string;
}

/**
 * The content type of a file from its first bytes (at most HEAD_BYTES; file-type's magic numbers) and its name.
 * PDF, DOCX and XML are recognized by their bytes; text has no magic number, so it is text when file-type knows
 * nothing and the head has no NUL byte (a UTF-16 byte order mark excepted), its type from the extension, else
 * text/html when it starts like HTML, else text/plain. Anything else file-type recognizes (images, fonts, audio, video, archives, executables) and unknown
 * bytes with NULs are binary.
 */
export async function detectType(head: Uint8Array, name: string): Promise<DetectedType> {
  const ext = extname(name).toLowerCase();
  const byName = BY_EXTENSION[ext];
  const text = !hasNul(head) || isUtf16(head);
  if (BINARY_BY_EXTENSION[ext]) return { contentType: BINARY_BY_EXTENSION[ext], binary: BINARY_BY_EXTENSION[ext] };
  const found = head.length > 0 ? await fileTypeFromBuffer(head).catch(() => undefined) : undefined;
  if (found) {
    // a DOCX whose [Content_Types].xml lies past the head looks like a plain ZIP; its name settles it
    if (found.mime === 'application/zip' && byName === DOCX) return { contentType: DOCX };
    // an XML declaration keeps a declared text type (XHTML, a .txt that is XML), as the pipeline's detect stage does
    if (found.mime === 'application/xml') return { contentType: byName && byName !== DOCX && byName !== 'application/pdf' ? byName : 'application/xml' };
    if (INDEXABLE.has(found.mime)) return { contentType: found.mime };
    // a text file whose first characters happen to look like a signature (a .txt that starts with "BM")
    if (text && byName && byName !== DOCX && byName !== 'application/pdf') return { contentType: byName };
    return { contentType: found.mime, binary: found.mime };
  }
  if (byName === DOCX || byName === 'application/pdf') return { contentType: byName };
  if (!text) return { contentType: 'application/octet-stream', binary: 'application/octet-stream' };
  return { contentType: byName ?? (HTML_START.test(latin1(head.subarray(0, 1024)).replace(/^\xef\xbb\xbf/, '').trimStart()) ? 'text/html' : 'text/plain') };
}

/** How HTML starts (WHATWG MIME Sniffing 7.1, much simplified), for text files without a known extension. */
const HTML_START = /^(?:<!--[\s\S]*?-->\s*)*(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i;

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
}

function hasNul(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

function isUtf16(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}
