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
