/**
 * Field checks. `check*` take an unknown value (constructor arguments) and return it typed or throw a
 * CheetahFieldError; `must*` take a typed value and throw a CheetahConstraintError when it breaks a MUST of the
 * spec. The wire reader types values as it reads them and uses the same `must*`. Nothing here allocates unless it
 * throws.
 */
import { CheetahConstraintError, CheetahFieldError } from './cheetah-errors';
import { type CheetahOwner, type CheetahTypeRef, cheetahOwnerName } from './entity';
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

function at(field: string, index: number): string {
  return index < 0 ? field : `${field}[${index}]`;
}

/** `got` is a value, or (from the wire reader) a description of what was on the wire. */
export function fieldTypeError(
  owner: CheetahOwner,
  field: string,
  expected: string,
  got: unknown,
  index = -1,
  gotIsDescription = false,
): CheetahFieldError {
  const entity = cheetahOwnerName(owner);
  if (got === undefined && !gotIsDescription) {
    return new CheetahFieldError(entity, at(field, index), 'missing', `missing field, expected ${expected}`);
  }
  const what = gotIsDescription ? String(got) : describe(got);
  return new CheetahFieldError(entity, at(field, index), 'type', `expected ${expected}, got ${what}`);
}

export function constraintError(owner: CheetahOwner, field: string, rule: string): CheetahConstraintError {
  return new CheetahConstraintError(cheetahOwnerName(owner), field, rule);
}

// ---- MUSTs on typed values

/** A longint that MUST be >= 0 (operation ids). */
export function mustBeNonNegative(owner: CheetahOwner, field: string, n: number): number {
  if (n < 0) throw constraintError(owner, field, `MUST be >= 0, got ${n}`);
  return n;
}

/** A string that MUST be "indexing" or "processing". */
export function mustBeSubsystem(owner: CheetahOwner, field: string, s: string): CheetahSubsystem {
  if (s === 'processing' || s === 'indexing') return s;
  throw constraintError(owner, field, `MUST be "indexing" or "processing", got ${JSON.stringify(s)}`);
}

/** A string that MUST have exactly one value. */
export function mustBe<S extends string>(owner: CheetahOwner, field: string, s: string, value: S): S {
  if (s === value) return value;
  throw constraintError(owner, field, `MUST be ${JSON.stringify(value)}, got ${JSON.stringify(s)}`);
}

/** A collection that MUST be empty ("Unused" collections of the spec). */
export function mustBeEmpty<T>(owner: CheetahOwner, field: string, a: readonly T[]): readonly T[] {
  if (a.length !== 0) throw constraintError(owner, field, `MUST be an empty collection, got ${a.length} element(s)`);
  return a;
}

// ---- scalars

export function checkInt(owner: CheetahOwner, field: string, v: unknown): number {
  if (typeof v === 'number' && (v | 0) === v) return v;
  throw fieldTypeError(owner, field, 'an int (32-bit signed integer)', v);
}

/** A Cheetah longint, held as a safe integer number (an in-range bigint is converted). */
export function checkLong(owner: CheetahOwner, field: string, v: unknown, index = -1): number {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'bigint' && v >= MIN_LONG && v <= MAX_LONG) return Number(v);
  throw fieldTypeError(owner, field, 'a longint (safe integer)', v, index);
}

export function checkNonNegativeLong(owner: CheetahOwner, field: string, v: unknown): number {
  return mustBeNonNegative(owner, field, checkLong(owner, field, v));
}

export function checkFloat(owner: CheetahOwner, field: string, v: unknown): number {
  if (typeof v === 'number') return v;
  throw fieldTypeError(owner, field, 'a float (number)', v);
}

export function checkString(owner: CheetahOwner, field: string, v: unknown): string {
  if (typeof v === 'string') return v;
  throw fieldTypeError(owner, field, 'a string', v);
}

export function checkBool(owner: CheetahOwner, field: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  throw fieldTypeError(owner, field, 'a bool', v);
}

export function checkBytes(owner: CheetahOwner, field: string, v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  throw fieldTypeError(owner, field, 'a bytearray (Uint8Array)', v);
}

export function checkAction(owner: CheetahOwner, field: string, v: unknown): Action {
  if (isAction(v)) return v;
  throw fieldTypeError(owner, field, 'an action (0..3)', v);
}

export function checkOperationState(owner: CheetahOwner, field: string, v: unknown): OperationState {
  if (isOperationState(v)) return v;
  throw fieldTypeError(owner, field, 'an operation_state (0..4)', v);
}

export function checkSubsystem(owner: CheetahOwner, field: string, v: unknown): CheetahSubsystem {
  return mustBeSubsystem(owner, field, checkString(owner, field, v));
}

/** A string that MUST have exactly one value. */
export function checkConstant<S extends string>(owner: CheetahOwner, field: string, v: unknown, value: S): S {
  return mustBe(owner, field, checkString(owner, field, v), value);
}

/** An attribute holding an entity of `type` or of one of its subtypes. */
export function checkEntity<T>(owner: CheetahOwner, field: string, v: unknown, type: CheetahTypeRef<T>): T {
  if (v instanceof type) return v;
  throw fieldTypeError(owner, field, `a ${type.cheetah.name}`, v);
}

// ---- collections (the array is kept, not copied)

function checkArray(owner: CheetahOwner, field: string, v: unknown, of: string): unknown[] {
  if (Array.isArray(v)) return v;
  throw fieldTypeError(owner, field, `a collection of ${of}`, v);
}

export function checkEntities<T>(
  owner: CheetahOwner,
  field: string,
  v: unknown,
  type: CheetahTypeRef<T>,
): readonly T[] {
  const a = checkArray(owner, field, v, type.cheetah.name);
  for (let i = 0; i < a.length; i++) {
    if (!(a[i] instanceof type)) throw fieldTypeError(owner, field, `a ${type.cheetah.name}`, a[i], i);
  }
  return a as T[];
}

export function checkStrings(owner: CheetahOwner, field: string, v: unknown): readonly string[] {
  const a = checkArray(owner, field, v, 'string');
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'string') throw fieldTypeError(owner, field, 'a string', a[i], i);
  }
  return a as string[];
}

export function checkBools(owner: CheetahOwner, field: string, v: unknown): readonly boolean[] {
  const a = checkArray(owner, field, v, 'bool');
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'boolean') throw fieldTypeError(owner, field, 'a bool', a[i], i);
  }
  return a as boolean[];
}

export function checkInts(owner: CheetahOwner, field: string, v: unknown): readonly number[] {
  const a = checkArray(owner, field, v, 'integer');
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (typeof x !== 'number' || (x | 0) !== x) {
      throw fieldTypeError(owner, field, 'an int (32-bit signed integer)', x, i);
    }
  }
  return a as number[];
}

export function checkFloats(owner: CheetahOwner, field: string, v: unknown): readonly number[] {
  const a = checkArray(owner, field, v, 'float');
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'number') throw fieldTypeError(owner, field, 'a float (number)', a[i], i);
  }
  return a as number[];
}

/** Longints; a collection holding in-range bigints is returned as a new array of numbers. */
export function checkLongs(owner: CheetahOwner, field: string, v: unknown): readonly number[] {
  const a = checkArray(owner, field, v, 'longint');
  let out: number[] | undefined;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (typeof x === 'number' && Number.isSafeInteger(x)) continue;
    const n = checkLong(owner, field, x, i);
    out ??= (a as number[]).slice();
    out[i] = n;
  }
  return out ?? (a as number[]);
}

export function checkBytesList(owner: CheetahOwner, field: string, v: unknown): readonly Uint8Array[] {
  const a = checkArray(owner, field, v, 'bytearray');
  for (let i = 0; i < a.length; i++) {
    if (!(a[i] instanceof Uint8Array)) throw fieldTypeError(owner, field, 'a bytearray (Uint8Array)', a[i], i);
  }
  return a as Uint8Array[];
}

/** A collection that MUST be empty. */
export function checkEmpty(owner: CheetahOwner, field: string, v: unknown, of: string): readonly never[] {
  return mustBeEmpty(owner, field, checkArray(owner, field, v, of)) as readonly never[];
}
