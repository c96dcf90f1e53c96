/**
 * An item and its identity (MS-FSDPD 2.2.13, 2.2.15). The `document` entity is exported as DocumentEntity so that
 * it does not shadow the DOM's Document.
 */
import { type CheetahFieldWriter, type CheetahWire, CheetahEntity, cheetahDescriptor } from './entity';
import { checkEmpty, checkEntities, checkEntity, checkString, required } from './field-checks';
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

  static decodeCheetahFields(w: CheetahWire): DocumentId {
    return new DocumentId({
      id: w[2],
      routing_attributes: required(DocumentId, 'routing_attributes', w[3]),
    } as DocumentIdFields);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.id);
    write(this.routing_attributes);
  }
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

  static decodeCheetahFields(w: CheetahWire): DocumentEntity {
    return new DocumentEntity({ doc_id: w[2], document_attributes: w[3] } as DocumentEntityFields);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.doc_id);
    write(this.document_attributes);
  }
}
