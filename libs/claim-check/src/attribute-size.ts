import { BytearrayAttribute, BytearrayCollection, KeyValueCollection, StringAttribute, StringCollection, type DocumentEntity, type KeyValuePair } from '@esp/codecs';

/** Bytes an attribute adds to an encoded batch, about: its key and value, and a little framing. */
export function attributeBytes(attr: KeyValuePair): number {
  const framing = 16 + attr.key.length;
  if (attr instanceof StringAttribute) return framing + Buffer.byteLength(attr.value, 'utf8');
  if (attr instanceof BytearrayAttribute) return framing + attr.value.length;
  if (attr instanceof StringCollection) return attr.values.reduce((n, v) => n + 8 + Buffer.byteLength(v, 'utf8'), framing);
  if (attr instanceof BytearrayCollection) return attr.values.reduce((n, v) => n + 8 + v.length, framing);
  if (attr instanceof KeyValueCollection) return attr.values.reduce((n, v) => n + attributeBytes(v), framing);
  return framing + 16;
}

/** Bytes a document adds to an encoded batch, about. */
export function documentBytes(doc: DocumentEntity): number {
  return doc.document_attributes.reduce((n, a) => n + attributeBytes(a), 64 + Buffer.byteLength(doc.doc_id.id, 'utf8'));
}

/** The bytes of an attribute's value that could go out of band: a string's UTF-8 or a bytearray's bytes. */
export function outOfBandValue(attr: KeyValuePair): { bytes: Uint8Array; text: boolean } | undefined {
  if (attr instanceof StringAttribute) return { bytes: Buffer.from(attr.value, 'utf8'), text: true };
  if (attr instanceof BytearrayAttribute) return { bytes: attr.value, text: false };
  return undefined;
}
