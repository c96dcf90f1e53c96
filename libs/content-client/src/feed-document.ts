import {
  BoolAttribute,
  BytearrayAttribute,
  DocumentEntity,
  DocumentId,
  FloatAttribute,
  LongAttribute,
  RemoveOperation,
  StringAttribute,
  StringCollection,
  UpdateOperation,
  type KeyValuePair,
  type Operation,
} from '@esp/codecs';

/**
 * A document's raw bytes, read only when the document is sent: small ones go inline (attribute `body`), large ones
 * are streamed into the object store (a claim check), never held whole in the client.
 */
export interface DocumentContent {
  /** Size in bytes, known before reading (a file's size): it decides inline or out of band, and the size limit. */
  readonly size: number;
  /** A fresh stream of the bytes from the start (called again if the document has to be stored again). */
  open(): AsyncIterable<Uint8Array>;
}

/** A document as a content client knows it: an id and attributes; `remove` deletes it instead. */
export interface FeedDocument {
  id: string;
  attributes?: Record<string, string | number | boolean | Uint8Array | string[]>;
  remove?: boolean;
  /** The raw content, as attribute `body` (inline or by reference); see DocumentContent. */
  content?: DocumentContent;
}

function attribute(key: string, value: string | number | boolean | Uint8Array | string[]): KeyValuePair {
  if (typeof value === 'string') return new StringAttribute({ key, value });
  if (typeof value === 'boolean') return new BoolAttribute({ key, value });
  if (typeof value === 'number') return Number.isInteger(value) ? new LongAttribute({ key, value }) : new FloatAttribute({ key, value });
  if (value instanceof Uint8Array) return new BytearrayAttribute({ key, value });
  if (Array.isArray(value)) return new StringCollection({ key, values: value.map(String) });
  throw new TypeError(`attribute "${key}": unsupported value type ${typeof value}`);
}

/** The Cheetah operation for a document (update_operation, or remove_operation when doc.remove). */
export function toOperation(opId: number, doc: FeedDocument): Operation {
  const docId = new DocumentId({ id: doc.id });
  if (doc.remove) return new RemoveOperation({ id: opId, doc_id: docId });
  const attrs = Object.entries(doc.attributes ?? {}).map(([k, v]) => attribute(k, v));
  return new UpdateOperation({ id: opId, doc: new DocumentEntity({ doc_id: docId, document_attributes: attrs }) });
}
