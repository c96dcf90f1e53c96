/**
 * Item operations and the batch that carries them (MS-FSDPD 2.2.11, 2.2.12, 2.2.29-2.2.33). A collection of
 * `operation` (operation_set.operations) holds any of the subtypes:
 *
 *   operation
 *   +- update_operation
 *   +- remove_operation
 *   +- partial_update_operation
 *   |  +- urlchange_operation
 *   +- failed_operation
 */
import {
  type CheetahFieldWriter,
  type CheetahWire,
  type Writable,
  CheetahEntity,
  cheetahDescriptor,
  wireConstructor,
} from './entity';
import { type OperationState } from './enums';
import {
  checkConstant,
  checkEntities,
  checkEntity,
  checkLong,
  checkNonNegativeLong,
  checkOperationState,
} from './field-checks';
import { DocumentEntity, DocumentId } from './documents';
import { DocumentError, Warning } from './warnings-and-errors';

export interface OperationFields {
  /** Identifies the item operation; MUST be >= 0. */
  readonly id: number;
  /** Warnings about this operation; defaults to []. */
  readonly warnings?: readonly Warning[];
}

function operationDescriptor(name: string, typeId: number, own: readonly string[]) {
  return cheetahDescriptor('documentmessages', name, typeId, ['id', 'warnings', ...own]);
}

/** 2.2.12 `cht::documentmessages::operation` (type id 7): the parent of every item operation. */
export class Operation extends CheetahEntity {
  static override readonly cheetah = operationDescriptor('operation', 7, []);
  declare readonly id: number;
  declare readonly warnings: readonly Warning[];

  constructor(fields: OperationFields) {
    super();
    this.id = checkNonNegativeLong(this, 'id', fields.id);
    this.warnings = fields.warnings === undefined ? [] : checkEntities(this, 'warnings', fields.warnings, Warning);
  }

  static decodeCheetahFields(wire: CheetahWire): Operation {
    return new OperationWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.id);
    write(this.warnings);
  }
}

/** Decodes the fields of `operation` (wire positions 2, 3) into any operation entity. */
function decodeOperationFields(self: Writable<Operation>, w: CheetahWire): void {
  self.id = checkNonNegativeLong(self, 'id', w[2]);
  self.warnings = checkEntities(self, 'warnings', w[3], Warning);
}

const OperationWire = wireConstructor(Operation, function (w) {
  decodeOperationFields(this, w);
});

export interface UpdateOperationFields extends OperationFields {
  readonly doc: DocumentEntity;
}

/** 2.2.29 `cht::documentmessages::update_operation` (type id 52): add an item to the index, or replace it. */
export class UpdateOperation extends Operation {
  static override readonly cheetah = operationDescriptor('update_operation', 52, ['doc']);
  declare readonly doc: DocumentEntity;

  constructor(fields: UpdateOperationFields) {
    super(fields);
    this.doc = checkEntity(this, 'doc', fields.doc, DocumentEntity);
  }

  static override decodeCheetahFields(wire: CheetahWire): UpdateOperation {
    return new UpdateOperationWire(wire);
  }

  override encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.id);
    write(this.warnings);
    write(this.doc);
  }
}

const UpdateOperationWire = wireConstructor(UpdateOperation, function (w) {
  decodeOperationFields(this, w);
  this.doc = checkEntity(this, 'doc', w[4], DocumentEntity);
});

export interface RemoveOperationFields extends OperationFields {
  readonly doc_id: DocumentId;
}

/** 2.2.30 `cht::documentmessages::remove_operation` (type id 45): remove an item from the index. */
export class RemoveOperation extends Operation {
  static override readonly cheetah = operationDescriptor('remove_operation', 45, ['doc_id']);
  declare readonly doc_id: DocumentId;

  constructor(fields: RemoveOperationFields) {
    super(fields);
    this.doc_id = checkEntity(this, 'doc_id', fields.doc_id, DocumentId);
  }

  static override decodeCheetahFields(wire: CheetahWire): RemoveOperation {
    return new RemoveOperationWire(wire);
  }

  override encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.id);
    write(this.warnings);
    write(this.doc_id);
  }
}

const RemoveOperationWire = wireConstructor(RemoveOperation, function (w) {
  decodeOperationFields(this, w);
  this.doc_id = checkEntity(this, 'doc_id', w[4], DocumentId);
});

export interface PartialUpdateOperationFields extends OperationFields {
  /** The item's identifier and the attributes to update. */
  readonly doc: DocumentEntity;
}

/** 2.2.31 `cht::documentmessages::partial_update_operation` (type id 42): update some attributes of an item. */
export class PartialUpdateOperation extends Operation {
  static override readonly cheetah = operationDescriptor('partial_update_operation', 42, ['doc']);
  declare readonly doc: DocumentEntity;

  constructor(fields: PartialUpdateOperationFields) {
    super(fields);
    this.doc = checkEntity(this, 'doc', fields.doc, DocumentEntity);
  }

  static override decodeCheetahFields(wire: CheetahWire): PartialUpdateOperation {
    return new PartialUpdateOperationWire(wire);
  }

  override encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.id);
    write(this.warnings);
    write(this.doc);
  }
}

const PartialUpdateOperationWire = wireConstructor(PartialUpdateOperation, function (w) {
  decodeOperationFields(this, w);
  this.doc = checkEntity(this, 'doc', w[4], DocumentEntity);
});

/** 2.2.32 `cht::documentmessages::urlchange_operation` (type id 53): a partial update that changes the URL. */
export class UrlchangeOperation extends PartialUpdateOperation {
  static override readonly cheetah = operationDescriptor('urlchange_operation', 53, ['doc']);

  static override decodeCheetahFields(wire: CheetahWire): UrlchangeOperation {
    return new UrlchangeOperationWire(wire);
  }
}

const UrlchangeOperationWire = wireConstructor(UrlchangeOperation, function (w) {
  decodeOperationFields(this, w);
  this.doc = checkEntity(this, 'doc', w[4], DocumentEntity);
});

export interface FailedOperationFields extends OperationFields {
  /** MUST be "processing"; defaults to it. */
  readonly subsystem?: 'processing';
  readonly state: OperationState;
  /** MUST be "failed_operation"; defaults to it. */
  readonly operation_type?: 'failed_operation';
  readonly doc_id: DocumentId;
  /** The error (of any error subtype) that made the operation fail. */
  readonly err: DocumentError;
}

/** 2.2.33 `cht::documentmessages::failed_operation` (type id 18): tells the indexer an operation failed. */
export class FailedOperation extends Operation {
  static override readonly cheetah = operationDescriptor('failed_operation', 18, [
    'subsystem',
    'state',
    'operation_type',
    'doc_id',
    'err',
  ]);
  declare readonly subsystem: 'processing';
  declare readonly state: OperationState;
  declare readonly operation_type: 'failed_operation';
  declare readonly doc_id: DocumentId;
  declare readonly err: DocumentError;

  constructor(fields: FailedOperationFields) {
    super(fields);
    this.subsystem =
      fields.subsystem === undefined ? 'processing' : checkConstant(this, 'subsystem', fields.subsystem, 'processing');
    this.state = checkOperationState(this, 'state', fields.state);
    this.operation_type =
      fields.operation_type === undefined
        ? 'failed_operation'
        : checkConstant(this, 'operation_type', fields.operation_type, 'failed_operation');
    this.doc_id = checkEntity(this, 'doc_id', fields.doc_id, DocumentId);
    this.err = checkEntity(this, 'err', fields.err, DocumentError);
  }

  static override decodeCheetahFields(wire: CheetahWire): FailedOperation {
    return new FailedOperationWire(wire);
  }

  override encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.id);
    write(this.warnings);
    write(this.subsystem);
    write(this.state);
    write(this.operation_type);
    write(this.doc_id);
    write(this.err);
  }
}

const FailedOperationWire = wireConstructor(FailedOperation, function (w) {
  decodeOperationFields(this, w);
  this.subsystem = checkConstant(this, 'subsystem', w[4], 'processing');
  this.state = checkOperationState(this, 'state', w[5]);
  this.operation_type = checkConstant(this, 'operation_type', w[6], 'failed_operation');
  this.doc_id = checkEntity(this, 'doc_id', w[7], DocumentId);
  this.err = checkEntity(this, 'err', w[8], DocumentError);
});

export interface OperationSetFields {
  /** Highest operation id for which the client has received all callbacks. */
  readonly completed_op_id: number;
  /** Operations of any subtype. */
  readonly operations: readonly Operation[];
}

/** 2.2.11 `cht::documentmessages::operation_set` (type id 38): a batch of item operations. */
export class OperationSet extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('documentmessages', 'operation_set', 38, [
    'completed_op_id',
    'operations',
  ]);
  declare readonly completed_op_id: number;
  declare readonly operations: readonly Operation[];

  constructor(fields: OperationSetFields) {
    super();
    this.completed_op_id = checkLong(this, 'completed_op_id', fields.completed_op_id);
    this.operations = checkEntities(this, 'operations', fields.operations, Operation);
  }

  static decodeCheetahFields(wire: CheetahWire): OperationSet {
    return new OperationSetWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.completed_op_id);
    write(this.operations);
  }
}

const OperationSetWire = wireConstructor(OperationSet, function (w) {
  this.completed_op_id = checkLong(this, 'completed_op_id', w[2]);
  this.operations = checkEntities(this, 'operations', w[3], Operation);
});
