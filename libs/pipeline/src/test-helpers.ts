import { BytearrayAttribute, DocumentEntity, DocumentId, StringAttribute, type KeyValuePair } from '@esp/codecs';
import type { ItemInput } from './pipeline';

/** A document from plain values: strings become string attributes, Uint8Arrays bytearray attributes. */
export function docOf(id: string, attrs: Record<string, string | Uint8Array | KeyValuePair>): DocumentEntity {
  return new DocumentEntity({
    doc_id: new DocumentId({ id }),
    document_attributes: Object.entries(attrs).map(([key, v]) =>
      typeof v === 'string' ? new StringAttribute({ key, value: v }) : v instanceof Uint8Array ? new BytearrayAttribute({ key, value: v }) : v,
    ),
  });
}

export function itemOf(id: string, attrs: Record<string, string | Uint8Array | KeyValuePair>, opId = 1): ItemInput {
  return { id: opId, kind: 'update', doc: docOf(id, attrs), collection: 'test', session_id: 7 };
}

/** The attributes of a document as a plain record (value or values). */
export function attrsOf(doc: DocumentEntity | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of doc?.document_attributes ?? []) out[a.key] = 'value' in a ? (a as { value: unknown }).value : (a as { values?: unknown }).values;
  return out;
}
