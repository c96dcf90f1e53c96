/**
 * Which fetched documents the pipeline can index, decided from the HTTP Content-Type header and the bytes: HTML
 * (text/html, application/xhtml+xml), XML (text/xml, application/xml, any +xml type but images), plain text, PDF
 * and DOCX. Magic numbers win over the header: a PNG served as text/html is a PNG, and a PDF served as
 * application/octet-stream is a PDF. A type named by the header that the bytes contradict (application/pdf that
 * does not start with %PDF) is not fed: its text extraction could only fail. A text type declared for bytes that open
 * with a Unicode byte order mark stays text: FF FE, the UTF-16LE mark, also opens an MPEG audio frame.
 *
 *   const d = await indexableType('text/html; charset=ISO-8859-1', body);
 *   if (d.indexable) feed(body, d.format); else log.debug({ reason: d.reason }, 'not indexable');
 */
import { fileTypeFromBuffer } from 'file-type';
import { mediaType } from './http-get';

export type IndexableFormat = 'html' | 'xml' | 'text' | 'pdf' | 'docx';

export type IndexableDecision = { indexable: true; format: IndexableFormat } | { indexable: false; reason: string };

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The format a declared media type names, if the pipeline indexes it. */
export function declaredFormat(media: string): IndexableFormat | undefined {
  if (media === 'text/html' || media === 'application/xhtml+xml') return 'html';
  if (media === 'text/plain') return 'text';
  if (media === 'text/xml' || media === 'application/xml') return 'xml';
  if ((media.startsWith('application/') || media.startsWith('text/')) && media.endsWith('+xml')) return 'xml';
  if (media === PDF) return 'pdf';
  if (media === DOCX) return 'docx';
  return undefined;
}

/**
 * Media types whose bodies are not read at all: images, audio, video, fonts, stylesheets and scripts are never
 * documents, and their bytes cannot be a PDF or DOCX served under the wrong name in practice. Kept narrow: an
 * unknown or generic type (application/octet-stream) is read and sniffed.
 */
export function unwantedMedia(media: string): boolean {
  if (/^(image|audio|video|font)\//.test(media)) return true;
  return media === 'text/css' || media === 'text/javascript' || media === 'application/javascript' || media === 'application/x-javascript' || media === 'application/wasm';
}

/** WHATWG MIME Sniffing 7.1, the HTML patterns: an untyped body that opens like HTML is HTML. */
const LOOKS_LIKE_HTML = /^(?:\uFEFF)?[\t\n\f\r ]*<(?:!doctype html|html|head|body|title|!--)[\t\n\f\r >]/i;

function startsWithBom(b: Uint8Array): boolean {
  return (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff) || (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf);
}

export async function indexableType(contentTypeHeader: string, bytes: Uint8Array): Promise<IndexableDecision> {
  const media = mediaType(contentTypeHeader);
  const declared = declaredFormat(media);
  if ((declared === 'html' || declared === 'xml' || declared === 'text') && startsWithBom(bytes)) return { indexable: true, format: declared };
  const sniffed = bytes.length > 0 ? await fileTypeFromBuffer(bytes) : undefined;
  const as = media === '' ? 'served without a content type' : `served as ${media}`;
  if (sniffed) {
    if (sniffed.mime === PDF) return { indexable: true, format: 'pdf' };
    if (sniffed.mime === DOCX) return { indexable: true, format: 'docx' };
    // an XML prolog: XHTML, RSS, a text/plain XML file all stay what the header says, else XML
    if (sniffed.ext === 'xml') return { indexable: true, format: declared === 'html' || declared === 'text' ? declared : 'xml' };
    return { indexable: false, reason: `the bytes are ${sniffed.mime}, ${as}` };
  }
  if (declared === 'pdf' || declared === 'docx') return { indexable: false, reason: `${as}, but the bytes are not ${declared.toUpperCase()}` };
  if (declared) return { indexable: true, format: declared };
  if (media === '' || media === 'application/octet-stream') {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 512));
    if (LOOKS_LIKE_HTML.test(head)) return { indexable: true, format: 'html' };
  }
  return { indexable: false, reason: `${as}, a type the pipeline does not index` };
}
