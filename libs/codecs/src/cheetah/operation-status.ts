/**
 * What the processing chain reports back (MS-FSDPD 2.2.34, 2.2.35): where a batch goes next, and the status of a
 * range of operations.
 */
import {
  type CheetahFieldWriter,
  type CheetahWire,
  CheetahEntity,
  cheetahDescriptor,
  wireConstructor,
} from './entity';
import { type OperationState } from './enums';
import {
  type CheetahSubsystem,
  checkEntities,
  checkNonNegativeLong,
  checkOperationState,
  checkStrings,
  checkSubsystem,
  constraintError,
} from './field-checks';
import { DocumentError, Warning } from './warnings-and-errors';

function checkSubsystemIds(self: CheetahEntity, v: unknown): readonly string[] {
  const ids = checkStrings(self, 'ids', v);
  if (ids.length > 1 || (ids.length === 1 && ids[0] !== 'indexing')) {
    throw constraintError(self, 'ids', `MUST be empty or ["indexing"], got ${JSON.stringify(ids)}`);
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
    this.ids = checkSubsystemIds(this, fields.ids);
  }

  static decodeCheetahFields(wire: CheetahWire): SubsystemIdSet {
    return new SubsystemIdSetWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.ids);
  }
}

const SubsystemIdSetWire = wireConstructor(SubsystemIdSet, function (w) {
  this.ids = checkSubsystemIds(this, w[2]);
});

/** first_op_id and last_op_id MUST be >= 0 and first_op_id <= last_op_id. */
function checkOpRange(self: OperationStatusInfo): void {
  if (self.first_op_id > self.last_op_id) {
    throw constraintError(
      self,
      'first_op_id',
      `MUST be <= last_op_id, got first_op_id ${self.first_op_id} > last_op_id ${self.last_op_id}`,
    );
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
    checkOpRange(this);
    this.state = checkOperationState(this, 'state', fields.state);
    this.subsystem = checkSubsystem(this, 'subsystem', fields.subsystem);
    this.errors = checkEntities(this, 'errors', fields.errors, DocumentError);
    this.warnings = checkEntities(this, 'warnings', fields.warnings, Warning);
  }

  static decodeCheetahFields(wire: CheetahWire): OperationStatusInfo {
    return new OperationStatusInfoWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.first_op_id);
    write(this.last_op_id);
    write(this.state);
    write(this.subsystem);
    write(this.errors);
    write(this.warnings);
  }
}

const OperationStatusInfoWire = wireConstructor(OperationStatusInfo, function (w) {
  this.first_op_id = checkNonNegativeLong(this, 'first_op_id', w[2]);
  this.last_op_id = checkNonNegativeLong(this, 'last_op_id', w[3]);
  checkOpRange(this);
  this.state = checkOperationState(this, 'state', w[4]);
  this.subsystem = checkSubsystem(this, 'subsystem', w[5]);
  this.errors = checkEntities(this, 'errors', w[6], DocumentError);
  this.warnings = checkEntities(this, 'warnings', w[7], Warning);
});
