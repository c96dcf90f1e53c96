import type { WorkingDocument } from '../working-document';

/** What a document's content is, from its content type attribute, else (when `detect`) from its first bytes. */
export interface ContentKind {
  readonly xml: boolean;
  readonly html: boolean;
}

const XML_TYPE = /^[a-z0-9.+-]+\/(?:[a-z0-9.-]+\+)?xml$/;
const HTML_TYPE = /^(?:text\/html|application\/xhtml\+xml)$/;

export function contentKind(doc: WorkingDocument, contentTypeAttribute: string, body: string, detect: boolean): ContentKind {
  const declared = doc.getString(contentTypeAttribute);
  if (declared !== undefined && declared.trim() !== '') {
    const type = (declared.split(';')[0] ?? '').trim().toLowerCase();
    return { xml: XML_TYPE.test(type), html: HTML_TYPE.test(type) };
  }
  if (!detect) return { xml: false, html: false };
  const head = body.slice(0, 1024).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  const xml = head.startsWith('<?xml');
  const html = /^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!doctype html|<html[\s>])/.test(head);
  return { xml, html };
}

/** The MIME type of a content type value, lower case, without parameters ("text/html; charset=x" → "text/html"). */
export function mimeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const t = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return t === '' ? undefined : t;
}

/** The `charset` parameter of a content type value (RFC 9110 8.3.2), or undefined. */
export function charsetParam(contentType: string | undefined): string | undefined {
  const m = contentType === undefined ? null : /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return m?.[1];
}

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const PDF_TYPE = 'application/pdf';

/** Short names of what a MIME type is: the `format` attribute. */
export type Format = 'html' | 'xml' | 'text' | 'pdf' | 'docx' | 'image' | 'audio' | 'video' | 'font' | 'archive' | 'executable' | 'binary';

const ARCHIVE_TYPE = /^application\/(?:zip|gzip|x-gzip|x-tar|x-bzip2|x-xz|x-7z-compressed|x-rar-compressed|vnd\.rar|zstd|x-lzip|x-compress|x-cpio|x-iso9660-image|x-apple-diskimage|java-archive|vnd\.ms-cab-compressed|x-unix-archive|x-archive|x-lzh-compressed)$/;
const EXECUTABLE_TYPE = /^application\/(?:x-msdownload|x-elf|x-mach-binary|x-dosexec|vnd\.microsoft\.portable-executable|wasm|x-sharedlib|x-executable)$/;
const TEXT_APPLICATION_TYPE = /^application\/(?:json|[a-z0-9.-]+\+json|javascript|ecmascript|x-javascript|x-sh|x-httpd-php|sql|x-tex|x-yaml|yaml|toml|ld\+json|csv)$/;

/** What kind of content a MIME type names; text types other than HTML and XML are "text", unknown types "binary". */
export function formatOf(mime: string | undefined): Format {
  if (mime === undefined) return 'binary';
  if (HTML_TYPE.test(mime)) return 'html';
  if (XML_TYPE.test(mime)) return 'xml';
  if (mime === PDF_TYPE) return 'pdf';
  if (mime === DOCX_TYPE) return 'docx';
  if (mime.startsWith('text/') || TEXT_APPLICATION_TYPE.test(mime)) return 'text';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('audio/')) return 'audio';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('font/') || /^application\/(?:font-|x-font-|vnd\.ms-fontobject)/.test(mime)) return 'font';
  if (ARCHIVE_TYPE.test(mime)) return 'archive';
  if (EXECUTABLE_TYPE.test(mime)) return 'executable';
  return 'binary';
}

/** Whether content of this format is text that the charset stage decodes. */
export function isTextFormat(f: Format): boolean {
  return f === 'html' || f === 'xml' || f === 'text';
}

/** The last segment of a URL's path, percent-decoded ("file:///a/b/Report%201.pdf" → "Report 1.pdf"), or undefined. */
export function fileNameOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const path = url.replace(/[?#].*$/s, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (last === '') return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * The content type a file's name says (for text, which has no magic number): the table a client uses when it feeds
 * files, so that the stages see what a feed would give them.
 */
export const CONTENT_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.xml': 'application/xml',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.md': 'text/plain',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
});
