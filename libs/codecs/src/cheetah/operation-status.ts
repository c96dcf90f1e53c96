/**
 * What the processing chain reports back (MS-FSDPD 2.2.34, 2.2.35): where a batch goes next, and the status of a
 * range of operations.
 */
import { type CheetahOwner, CheetahEntity, cheetahDescriptor, wireConstructor } from './entity';
import { type OperationState, isOperationState } from './enums';
import {
  type CheetahSubsystem,
  checkEntities,
  checkNonNegativeLong,
  checkOperationState,
  checkStrings,
  checkSubsystem,
  constraintError,
  fieldTypeError,
  mustBeNonNegative,
  mustBeSubsystem,
} from './field-checks';
import { DocumentError, Warning, readDocumentErrors, readWarnings } from './warnings-and-errors';
import { readInt, readLong, readString, readStrings } from './wire-reader';
import { writeEntities, writeInteger, writeString, writeStrings } from './wire-writer';

/** ids MUST be [] or ["indexing"]. */
function mustBeSubsystemIds(owner: CheetahOwner, ids: readonly string[]): readonly string[] {
  if (ids.length > 1 || (ids.length === 1 && ids[0] !== 'indexing')) {
    throw constraintError(owner, 'ids', `MUST be empty or ["indexing"], got ${JSON.stringify(ids)}`);
  }
  return ids;
}

export interface SubsystemIdSetFields {
  /** MUST be [] or ["indexing"]. */
  readonly ids: readonly string[];
}

/** 2.2.34 `cht::documentmessages::subsystem_id_set` (type id 39): where a batch goes after processing. */
export class SubsystemIdSet extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('documentmessages', 'subsystem_id_set', 39, ['ids']);
  declare readonly ids: readonly string[];

  constructor(fields: SubsystemIdSetFields) {
    super();
    this.ids = mustBeSubsystemIds(this, checkStrings(this, 'ids', fields.ids));
  }

  static decodeCheetahFields(): SubsystemIdSet {
    return new SubsystemIdSetWire(mustBeSubsystemIds(SubsystemIdSet, readStrings(SubsystemIdSet, 'ids')));
  }

  encodeCheetahFields(): void {
    writeStrings(this.ids);
  }
}

const SubsystemIdSetWire = wireConstructor(SubsystemIdSet, function (ids: readonly string[]) {
  this.ids = ids;
});

/** first_op_id MUST be <= last_op_id (both MUST be >= 0, checked as they are read). */
function mustBeOrdered(owner: CheetahOwner, first: number, last: number): void {
  if (first > last) {
    throw constraintError(owner, 'first_op_id', `MUST be <= last_op_id, got first_op_id ${first} > last_op_id ${last}`);
  }
}

export interface OperationStatusInfoFields {
  /** MUST be >= 0 and <= last_op_id. */
  readonly first_op_id: number;
  /** MUST be >= 0 and >= first_op_id. */
  readonly last_op_id: number;
  readonly state: OperationState;
  /** MUST be "indexing" or "processing". */
  readonly subsystem: CheetahSubsystem;
  /** Errors of any error subtype. */
  readonly errors: readonly DocumentError[];
  readonly warnings: readonly Warning[];
}

/** 2.2.35 `cht::documentmessages::operation_status_info` (type id 40): the status of a range of operations. */
export class OperationStatusInfo extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('documentmessages', 'operation_status_info', 40, [
    'first_op_id',
    'last_op_id',
    'state',
    'subsystem',
    'errors',
    'warnings',
  ]);
  declare readonly first_op_id: number;
  declare readonly last_op_id: number;
  declare readonly state: OperationState;
  declare readonly subsystem: CheetahSubsystem;
  declare readonly errors: readonly DocumentError[];
  declare readonly warnings: readonly Warning[];

  constructor(fields: OperationStatusInfoFields) {
    super();
    this.first_op_id = checkNonNegativeLong(this, 'first_op_id', fields.first_op_id);
    this.last_op_id = checkNonNegativeLong(this, 'last_op_id', fields.last_op_id);
    mustBeOrdered(this, this.first_op_id, this.last_op_id);
    this.state = checkOperationState(this, 'state', fields.state);
    this.subsystem = checkSubsystem(this, 'subsystem', fields.subsystem);
    this.errors = checkEntities(this, 'errors', fields.errors, DocumentError);
    this.warnings = checkEntities(this, 'warnings', fields.warnings, Warning);
  }

  static decodeCheetahFields(): OperationStatusInfo {
    const o = OperationStatusInfo;
    const first = mustBeNonNegative(o, 'first_op_id', readLong(o, 'first_op_id'));
    const last = mustBeNonNegative(o, 'last_op_id', readLong(o, 'last_op_id'));
    mustBeOrdered(o, first, last);
    const state = readInt(o, 'state');
    if (!isOperationState(state)) throw fieldTypeError(o, 'state', 'an operation_state (0..4)', state);
    const subsystem = mustBeSubsystem(o, 'subsystem', readString(o, 'subsystem'));
    const errors = readDocumentErrors(o, 'errors');
    return new OperationStatusInfoWire(first, last, state, subsystem, errors, readWarnings(o, 'warnings'));
  }

  encodeCheetahFields(): void {
    writeInteger(this.first_op_id);
    writeInteger(this.last_op_id);
    writeInteger(this.state);
    writeString(this.subsystem);
    writeEntities(this.errors);
    writeEntities(this.warnings);
  }
}

const OperationStatusInfoWire = wireConstructor(
  OperationStatusInfo,
  function (
    first: number,
    last: number,
    state: OperationState,
    subsystem: CheetahSubsystem,
    errors: readonly DocumentError[],
    warnings: readonly Warning[],
  ) {
    this.first_op_id = first;
    this.last_op_id = last;
    this.state = state;
    this.subsystem = subsystem;
    this.errors = errors;
    this.warnings = warnings;
  },
);
