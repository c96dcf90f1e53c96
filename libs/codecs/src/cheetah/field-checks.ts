/**
 * Field checks shared by construction and decoding (a decoded entity is built by its constructor). Each returns
 * the value, typed, or throws a CheetahFieldError / CheetahConstraintError naming the entity and the field. They
 * allocate nothing unless they throw.
 */
import { CheetahConstraintError, CheetahFieldError } from './cheetah-errors';
import { type CheetahEntity, type CheetahTypeRef, cheetahNameOf } from './entity';
import { type Action, type OperationState, isAction, isOperationState } from './enums';

/** Where an item status, warning or error came from (MS-FSDPD 2.2.2, 2.2.3, 2.2.35). */
export type CheetahSubsystem = 'indexing' | 'processing';

const MIN_LONG = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_LONG = BigInt(Number.MAX_SAFE_INTEGER);

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  if (typeof v === 'object') {
    const ctor = (v as { constructor?: { cheetah?: { name?: unknown }; name?: unknown } }).constructor;
    const name = ctor?.cheetah?.name ?? ctor?.name;
    return typeof name === 'string' ? `a ${name}` : 'an object';
  }
  return `${typeof v} ${String(v)}`;
}

export function fieldTypeError(self: CheetahEntity, field: string, expected: string, v: unknown): CheetahFieldError {
  const entity = cheetahNameOf(self);
  if (v === undefined) return new CheetahFieldError(entity, field, 'missing', `missing field, expected ${expected}`);
  return new CheetahFieldError(entity, field, 'type', `expected ${expected}, got ${describe(v)}`);
}

export function constraintError(self: CheetahEntity, field: string, rule: string): CheetahConstraintError {
  return new CheetahConstraintError(cheetahNameOf(self), field, rule);
}

// ---- scalars

export function checkInt(self: CheetahEntity, field: string, v: unknown): number {
  if (typeof v === 'number' && (v | 0) === v) return v;
  throw fieldTypeError(self, field, 'an int (32-bit signed integer)', v);
}

/** A Cheetah longint, held as a safe integer number (a decoded int64 bigint in that range is converted). */
export function checkLong(self: CheetahEntity, field: string, v: unknown): number {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'bigint' && v >= MIN_LONG && v <= MAX_LONG) return Number(v);
  throw fieldTypeError(self, field, 'a longint (safe integer)', v);
}

/** A longint that MUST be >= 0 (operation ids). */
export function checkNonNegativeLong(self: CheetahEntity, field: string, v: unknown): number {
  const n = checkLong(self, field, v);
  if (n < 0) throw constraintError(self, field, `MUST be >= 0, got ${n}`);
  return n;
}

export function checkFloat(self: CheetahEntity, field: string, v: unknown): number {
  if (typeof v === 'number') return v;
  throw fieldTypeError(self, field, 'a float (number)', v);
}

export function checkString(self: CheetahEntity, field: string, v: unknown): string {
  if (typeof v === 'string') return v;
  throw fieldTypeError(self, field, 'a string', v);
}

export function checkBool(self: CheetahEntity, field: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  throw fieldTypeError(self, field, 'a bool', v);
}

export function checkBytes(self: CheetahEntity, field: string, v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  throw fieldTypeError(self, field, 'a bytearray (Uint8Array)', v);
}

export function checkAction(self: CheetahEntity, field: string, v: unknown): Action {
  if (isAction(v)) return v;
  throw fieldTypeError(self, field, 'an action (0..3)', v);
}

export function checkOperationState(self: CheetahEntity, field: string, v: unknown): OperationState {
  if (isOperationState(v)) return v;
  throw fieldTypeError(self, field, 'an operation_state (0..4)', v);
}

/** A string that MUST be "indexing" or "processing". */
export function checkSubsystem(self: CheetahEntity, field: string, v: unknown): CheetahSubsystem {
  const s = checkString(self, field, v);
  if (s === 'processing' || s === 'indexing') return s;
  throw constraintError(self, field, `MUST be "indexing" or "processing", got ${JSON.stringify(s)}`);
}

/** A string that MUST have exactly one value. */
export function checkConstant<S extends string>(self: CheetahEntity, field: string, v: unknown, value: S): S {
  const s = checkString(self, field, v);
  if (s === value) return value;
  throw constraintError(self, field, `MUST be ${JSON.stringify(value)}, got ${JSON.stringify(s)}`);
}

/** An attribute holding an entity of `type` or of one of its subtypes. */
export function checkEntity<T>(self: CheetahEntity, field: string, v: unknown, type: CheetahTypeRef<T>): T {
  if (v instanceof type) return v;
  throw fieldTypeError(self, field, `a ${type.cheetah.name}`, v);
}

// ---- collections (the array is kept, not copied)

function checkArray(self: CheetahEntity, field: string, v: unknown, of: string): unknown[] {
  if (Array.isArray(v)) return v;
  throw fieldTypeError(self, field, `a collection of ${of}`, v);
}

export function checkEntities<T>(
  self: CheetahEntity,
  field: string,
  v: unknown,
  type: CheetahTypeRef<T>,
): readonly T[] {
  const a = checkArray(self, field, v, type.cheetah.name);
  for (let i = 0; i < a.length; i++) {
    if (!(a[i] instanceof type)) throw fieldTypeError(self, `${field}[${i}]`, `a ${type.cheetah.name}`, a[i]);
  }
  return a as T[];
}

export function checkStrings(self: CheetahEntity, field: string, v: unknown): readonly string[] {
  const a = checkArray(self, field, v, 'string');
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'string') throw fieldTypeError(self, `${field}[${i}]`, 'a string', a[i]);
  }
  return a as string[];
}

export function checkBools(self: CheetahEntity, field: string, v: unknown): readonly boolean[] {
  const a = checkArray(self, field, v, 'bool');
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'boolean') throw fieldTypeError(self, `${field}[${i}]`, 'a bool', a[i]);
  }
  return a as boolean[];
}

export function checkInts(self: CheetahEntity, field: string, v: unknown): readonly number[] {
  const a = checkArray(self, field, v, 'integer');
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (typeof x !== 'number' || (x | 0) !== x) {
      throw fieldTypeError(self, `${field}[${i}]`, 'an int (32-bit signed integer)', x);
    }
  }
  return a as number[];
}

export function checkFloats(self: CheetahEntity, field: string, v: unknown): readonly number[] {
  const a = checkArray(self, field, v, 'float');
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'number') throw fieldTypeError(self, `${field}[${i}]`, 'a float (number)', a[i]);
  }
  return a as number[];
}

/** Longints; a collection holding in-range bigints (decoded int64) is returned as a new array of numbers. */
export function checkLongs(self: CheetahEntity, field: string, v: unknown): readonly number[] {
  const a = checkArray(self, field, v, 'longint');
  let out: number[] | undefined;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (typeof x === 'number' && Number.isSafeInteger(x)) continue;
    const n = checkLong(self, `${field}[${i}]`, x);
    out ??= (a as number[]).slice();
    out[i] = n;
  }
  return out ?? (a as number[]);
}

export function checkBytesList(self: CheetahEntity, field: string, v: unknown): readonly Uint8Array[] {
  const a = checkArray(self, field, v, 'bytearray');
  for (let i = 0; i < a.length; i++) {
    if (!(a[i] instanceof Uint8Array)) throw fieldTypeError(self, `${field}[${i}]`, 'a bytearray (Uint8Array)', a[i]);
  }
  return a as Uint8Array[];
}

/** A collection that MUST be empty ("Unused" collections of the spec). */
export function checkEmpty(self: CheetahEntity, field: string, v: unknown, of: string): readonly never[] {
  const a = checkArray(self, field, v, of);
  if (a.length !== 0) throw constraintError(self, field, `MUST be an empty collection, got ${a.length} element(s)`);
  return a as never[];
}
