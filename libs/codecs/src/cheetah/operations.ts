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
import { type CheetahOwner, CheetahEntity, cheetahDescriptor, wireConstructor } from './entity';
import { type OperationState, isOperationState } from './enums';
import {
  checkConstant,
  checkEntities,
  checkEntity,
  checkLong,
  checkNonNegativeLong,
  checkOperationState,
  fieldTypeError,
  mustBe,
  mustBeNonNegative,
} from './field-checks';
import { DocumentEntity, DocumentId, readDocumentEntity, readDocumentId } from './documents';
import { DocumentError, Warning, readDocumentError, readWarnings } from './warnings-and-errors';
import { EMPTY_COLLECTION, readEntity, readEntityCollectionHeader, readInt, readLong, readString } from './wire-reader';
import { writeEntities, writeEntity, writeInteger, writeString } from './wire-writer';

export interface OperationFields {
  /** Identifies the item operation; MUST be >= 0. */
  readonly id: number;
  /** Warnings about this operation; defaults to []. */
  readonly warnings?: readonly Warning[];
}

function operationDescriptor(name: string, typeId: number, own: readonly string[]) {
  return cheetahDescriptor('documentmessages', name, typeId, ['id', 'warnings', ...own]);
}

function readOperationId(owner: CheetahOwner): number {
  return mustBeNonNegative(owner, 'id', readLong(owner, 'id'));
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

  static decodeCheetahFields(): Operation {
    return new OperationWire(readOperationId(Operation), readWarnings(Operation, 'warnings'));
  }

  encodeCheetahFields(): void {
    writeInteger(this.id);
    writeEntities(this.warnings);
  }
}

const OperationWire = wireConstructor(Operation, function (id: number, warnings: readonly Warning[]) {
  this.id = id;
  this.warnings = warnings;
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

  static override decodeCheetahFields(): UpdateOperation {
    return new UpdateOperationWire(
      readOperationId(UpdateOperation),
      readWarnings(UpdateOperation, 'warnings'),
      readDocumentEntity(UpdateOperation, 'doc'),
    );
  }

  override encodeCheetahFields(): void {
    writeInteger(this.id);
    writeEntities(this.warnings);
    writeEntity(this.doc);
  }
}

const UpdateOperationWire = wireConstructor(
  UpdateOperation,
  function (id: number, warnings: readonly Warning[], doc: DocumentEntity) {
    this.id = id;
    this.warnings = warnings;
    this.doc = doc;
  },
);

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

  static override decodeCheetahFields(): RemoveOperation {
    return new RemoveOperationWire(
      readOperationId(RemoveOperation),
      readWarnings(RemoveOperation, 'warnings'),
      readDocumentId(RemoveOperation, 'doc_id'),
    );
  }

  override encodeCheetahFields(): void {
    writeInteger(this.id);
    writeEntities(this.warnings);
    writeEntity(this.doc_id);
  }
}

const RemoveOperationWire = wireConstructor(
  RemoveOperation,
  function (id: number, warnings: readonly Warning[], docId: DocumentId) {
    this.id = id;
    this.warnings = warnings;
    this.doc_id = docId;
  },
);

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

  static override decodeCheetahFields(): PartialUpdateOperation {
    return new PartialUpdateOperationWire(
      readOperationId(PartialUpdateOperation),
      readWarnings(PartialUpdateOperation, 'warnings'),
      readDocumentEntity(PartialUpdateOperation, 'doc'),
    );
  }

  override encodeCheetahFields(): void {
    writeInteger(this.id);
    writeEntities(this.warnings);
    writeEntity(this.doc);
  }
}

const PartialUpdateOperationWire = wireConstructor(
  PartialUpdateOperation,
  function (id: number, warnings: readonly Warning[], doc: DocumentEntity) {
    this.id = id;
    this.warnings = warnings;
    this.doc = doc;
  },
);

/** 2.2.32 `cht::documentmessages::urlchange_operation` (type id 53): a partial update that changes the URL. */
export class UrlchangeOperation extends PartialUpdateOperation {
  static override readonly cheetah = operationDescriptor('urlchange_operation', 53, ['doc']);

  static override decodeCheetahFields(): UrlchangeOperation {
    return new UrlchangeOperationWire(
      readOperationId(UrlchangeOperation),
      readWarnings(UrlchangeOperation, 'warnings'),
      readDocumentEntity(UrlchangeOperation, 'doc'),
    );
  }
}

const UrlchangeOperationWire = wireConstructor(
  UrlchangeOperation,
  function (id: number, warnings: readonly Warning[], doc: DocumentEntity) {
    this.id = id;
    this.warnings = warnings;
    this.doc = doc;
  },
);

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

  static override decodeCheetahFields(): FailedOperation {
    const o = FailedOperation;
    const id = readOperationId(o);
    const warnings = readWarnings(o, 'warnings');
    const subsystem = mustBe(o, 'subsystem', readString(o, 'subsystem'), 'processing');
    const state = readInt(o, 'state');
    if (!isOperationState(state)) throw fieldTypeError(o, 'state', 'an operation_state (0..4)', state);
    const operationType = mustBe(o, 'operation_type', readString(o, 'operation_type'), 'failed_operation');
    const docId = readDocumentId(o, 'doc_id');
    const err = readDocumentError(o, 'err');
    return new FailedOperationWire(id, warnings, subsystem, state, operationType, docId, err);
  }

  override encodeCheetahFields(): void {
    writeInteger(this.id);
    writeEntities(this.warnings);
    writeString(this.subsystem);
    writeInteger(this.state);
    writeString(this.operation_type);
    writeEntity(this.doc_id);
    writeEntity(this.err);
  }
}

const FailedOperationWire = wireConstructor(
  FailedOperation,
  function (
    id: number,
    warnings: readonly Warning[],
    subsystem: 'processing',
    state: OperationState,
    operationType: 'failed_operation',
    docId: DocumentId,
    err: DocumentError,
  ) {
    this.id = id;
    this.warnings = warnings;
    this.subsystem = subsystem;
    this.state = state;
    this.operation_type = operationType;
    this.doc_id = docId;
    this.err = err;
  },
);

function readOperations(owner: CheetahOwner, field: string): readonly Operation[] {
  const n = readEntityCollectionHeader(owner, field);
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<Operation>(n);
  for (let i = 0; i < n; i++) {
    const e = readEntity(owner, field, i);
    if (!(e instanceof Operation)) throw fieldTypeError(owner, field, `a ${Operation.cheetah.name}`, e, i);
    out[i] = e;
  }
  return out;
}

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

  static decodeCheetahFields(): OperationSet {
    const completed = readLong(OperationSet, 'completed_op_id');
    return new OperationSetWire(completed, readOperations(OperationSet, 'operations'));
  }

  encodeCheetahFields(): void {
    writeInteger(this.completed_op_id);
    writeEntities(this.operations);
  }
}

const OperationSetWire = wireConstructor(OperationSet, function (completed: number, operations: readonly Operation[]) {
  this.completed_op_id = completed;
  this.operations = operations;
});
