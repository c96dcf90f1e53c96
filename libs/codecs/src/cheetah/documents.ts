/**
 * An item and its identity (MS-FSDPD 2.2.13, 2.2.15). The `document` entity is exported as DocumentEntity so that
 * it does not shadow the DOM's Document.
 */
import { type CheetahOwner, CheetahEntity, cheetahDescriptor, wireConstructor } from './entity';
import { checkEmpty, checkEntities, checkEntity, checkString, fieldTypeError, mustBeEmpty } from './field-checks';
import { KeyValuePair, readKeyValuePairs } from './key-value-pairs';
import { readEntity, readString } from './wire-reader';
import { writeEntities, writeEntity, writeString } from './wire-writer';

export interface DocumentIdFields {
  readonly id: string;
  /** Unused: MUST be empty; defaults to []. */
  readonly routing_attributes?: readonly KeyValuePair[];
}

/** 2.2.15 `cht::documentmessages::document_id` (type id 11): the document identifier of an item. */
export class DocumentId extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('documentmessages', 'document_id', 11, [
    'id',
    'routing_attributes',
  ]);
  declare readonly id: string;
  declare readonly routing_attributes: readonly KeyValuePair[];

  constructor(fields: DocumentIdFields) {
    super();
    this.id = checkString(this, 'id', fields.id);
    this.routing_attributes =
      fields.routing_attributes === undefined
        ? []
        : checkEmpty(this, 'routing_attributes', fields.routing_attributes, KeyValuePair.cheetah.name);
  }

  static decodeCheetahFields(): DocumentId {
    return new DocumentIdWire(
      readString(DocumentId, 'id'),
      mustBeEmpty(DocumentId, 'routing_attributes', readKeyValuePairs(DocumentId, 'routing_attributes')),
    );
  }

  encodeCheetahFields(): void {
    writeString(this.id);
    writeEntities(this.routing_attributes);
  }
}

const DocumentIdWire = wireConstructor(DocumentId, function (id: string, routing: readonly KeyValuePair[]) {
  this.id = id;
  this.routing_attributes = routing;
});

/** Reads one document_id from the wire. */
export function readDocumentId(owner: CheetahOwner, field: string): DocumentId {
  const e = readEntity(owner, field);
  if (!(e instanceof DocumentId)) throw fieldTypeError(owner, field, `a ${DocumentId.cheetah.name}`, e);
  return e;
}

export interface DocumentEntityFields {
  readonly doc_id: DocumentId;
  /** key_value_pair entities or any of their subtypes (string_attribute, integer_attribute, ...). */
  readonly document_attributes: readonly KeyValuePair[];
}

/** 2.2.13 `cht::documentmessages::document` (type id 12): one item, its identifier and its attributes. */
export class DocumentEntity extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('documentmessages', 'document', 12, [
    'doc_id',
    'document_attributes',
  ]);
  declare readonly doc_id: DocumentId;
  declare readonly document_attributes: readonly KeyValuePair[];

  constructor(fields: DocumentEntityFields) {
    super();
    this.doc_id = checkEntity(this, 'doc_id', fields.doc_id, DocumentId);
    this.document_attributes = checkEntities(this, 'document_attributes', fields.document_attributes, KeyValuePair);
  }

  static decodeCheetahFields(): DocumentEntity {
    return new DocumentEntityWire(
      readDocumentId(DocumentEntity, 'doc_id'),
      readKeyValuePairs(DocumentEntity, 'document_attributes'),
    );
  }

  encodeCheetahFields(): void {
    writeEntity(this.doc_id);
    writeEntities(this.document_attributes);
  }
}

const DocumentEntityWire = wireConstructor(
  DocumentEntity,
  function (docId: DocumentId, attributes: readonly KeyValuePair[]) {
    this.doc_id = docId;
    this.document_attributes = attributes;
  },
);

/** Reads one document from the wire. */
export function readDocumentEntity(owner: CheetahOwner, field: string): DocumentEntity {
  const e = readEntity(owner, field);
  if (!(e instanceof DocumentEntity)) throw fieldTypeError(owner, field, `a ${DocumentEntity.cheetah.name}`, e);
  return e;
}
