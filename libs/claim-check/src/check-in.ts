import { BytearrayAttribute, DocumentEntity, StringAttribute, type KeyValuePair } from '@esp/codecs';
import { BadContentRef, decodeContentRef, referencedAttribute, type ContentRef } from '@esp/interfaces';
import type { BlobStore } from '@esp/middleware';
import { ClaimCheckFailure } from './claim-check-failure';

export interface CheckInOptions {
  /** The store of a bucket (a reference names its bucket). */
  store: (bucket: string) => Promise<BlobStore>;
  /** A referenced object over this many bytes fails the document with document_too_large. */
  maxBytes: number;
}

/** Whether a document carries any content reference. */
export function hasContentRefs(doc: DocumentEntity): boolean {
  return doc.document_attributes.some((a) => referencedAttribute(a.key) !== undefined);
}

/**
 * Puts back the content a document's references stand for: each `esp.ref.<key>` attribute becomes `<key>` again
 * (a string when the reference says text, else a bytearray), fetched one at a time and checked against the
 * reference's size and digest. Returns the document and the references it resolved; throws ClaimCheckFailure.
 */
export async function checkIn(doc: DocumentEntity, opts: CheckInOptions): Promise<{ doc: DocumentEntity; refs: ContentRef[] }> {
  if (!hasContentRefs(doc)) return { doc, refs: [] };
  const refs: ContentRef[] = [];
  const attrs: KeyValuePair[] = [];
  for (const attr of doc.document_attributes) {
    const key = referencedAttribute(attr.key);
    if (key === undefined) {
      attrs.push(attr);
      continue;
    }
    let ref: ContentRef;
    try {
      if (!(attr instanceof StringAttribute)) throw new BadContentRef(`attribute "${attr.key}" must be a string`);
      ref = decodeContentRef(attr.value);
    } catch (err) {
      throw new ClaimCheckFailure('content_unavailable', `attribute "${attr.key}": ${(err as Error).message}`, { cause: err });
    }
    if (ref.size > opts.maxBytes) {
      throw new ClaimCheckFailure('document_too_large', `attribute "${key}" has ${ref.size} bytes, over the limit of ${opts.maxBytes} bytes (--max-document-bytes)`);
    }
    let bytes: Uint8Array;
    try {
      bytes = await (await opts.store(ref.bucket)).get(ref, { maxBytes: opts.maxBytes });
    } catch (err) {
      throw new ClaimCheckFailure('content_unavailable', `attribute "${key}": ${(err as Error).message}`, { cause: err });
    }
    attrs.push(ref.text ? new StringAttribute({ key, value: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8') }) : new BytearrayAttribute({ key, value: bytes }));
    refs.push(ref);
  }
  return { doc: new DocumentEntity({ doc_id: doc.doc_id, document_attributes: attrs }), refs };
}
