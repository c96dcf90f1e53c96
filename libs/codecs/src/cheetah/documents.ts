/**
 * An item and its identity (MS-FSDPD 2.2.13, 2.2.15). The `document` entity is exported as DocumentEntity so that
 * it does not shadow the DOM's Document.
 */
import {
  type CheetahFieldWriter,
  type CheetahWire,
  CheetahEntity,
  cheetahDescriptor,
  wireConstructor,
} from './entity';
import { checkEmpty, checkEntities, checkEntity, checkString } from './field-checks';
import { KeyValuePair } from './key-value-pairs';

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

  static decodeCheetahFields(wire: CheetahWire): DocumentId {
    return new DocumentIdWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.id);
    write(this.routing_attributes);
  }
}

const DocumentIdWire = wireConstructor(DocumentId, function (w) {
  this.id = checkString(this, 'id', w[2]);
  this.routing_attributes = checkEmpty(this, 'routing_attributes', w[3], KeyValuePair.cheetah.name);
});

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

  static decodeCheetahFields(wire: CheetahWire): DocumentEntity {
    return new DocumentEntityWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.doc_id);
    write(this.document_attributes);
  }
}

const DocumentEntityWire = wireConstructor(DocumentEntity, function (w) {
  this.doc_id = checkEntity(this, 'doc_id', w[2], DocumentId);
  this.document_attributes = checkEntities(this, 'document_attributes', w[3], KeyValuePair);
});
