/**
 * FSIDL scalar and reference types of the processing interfaces as zod schemas, so that every interface file maps a
 * spec type the same way.
 *
 * Integer mapping (a choice; the FSIDL type table lives in MS-FSMW section 2, which is not among our specs):
 *  - FSIDL `long` (every integer parameter of MS-FSCDFT and MS-FSDPD) is a 32-bit signed integer, as `long` is in
 *    OMG IDL, whose syntax FSIDL shares (module, interface, in, raises, sequence<>). This also agrees with the
 *    Cheetah entities: a session id travels as Cheetah `int` (error.session_id, warning.session_id, MS-FSDPD
 *    2.2.2/2.2.3), so a session id in `long` must fit 32 bits. If MS-FSMW turns out to make `long` 64-bit, widen
 *    `fsidlLong` here: every integer schema of the processing interfaces is derived from it.
 *  - Cheetah / FSIDL `longint` (operation ids) is held as a JS safe integer (|n| <= 2^53 - 1), like the entity
 *    classes of @esp/codecs do: a number beyond that cannot round-trip through msgpack as a JS number.
 */
import { z } from 'zod';
import { aorSchema } from '../aor';
import { REQUIRED_PRIORITY } from './constants';

/** FSIDL `long` / Cheetah `int`: a 32-bit signed integer. */
export const fsidlLong = z.int32();

/** Cheetah `longint`: a safe integer (see the file comment). */
export const fsidlLongint = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

/** A non-negative FSIDL `long`: identifiers (session ids, node / dispatcher ids). */
export const nonNegativeLong = fsidlLong.nonnegative();

/**
 * A `priority` argument: an FSIDL `long` that MUST be 0 (REQUIRED_PRIORITY; MS-FSCDFT 3.5.4.1-3.5.4.3, MS-FSDPD
 * 3.5.4.1).
 */
export const zeroPriority = fsidlLong.refine((v): boolean => v === REQUIRED_PRIORITY, { message: `MUST be ${REQUIRED_PRIORITY}` });

/** A positive FSIDL `long` (a process id, a lease period). */
export const positiveLong = fsidlLong.positive();

/** FSIDL `string` used as a name or identifier: present and non-empty. */
export const nonEmptyString = z.string().min(1, 'must be a non-empty string');

/**
 * FSIDL `void` result. msgpack has no `undefined` (it becomes nil), so a void result arrives as null on the client
 * while the server's function returned undefined: both are accepted.
 */
export const voidResult = z.union([z.void(), z.null()]);

/**
 * An object reference (client proxy) of a given FSIDL interface type, as it travels: an AOR whose interface_type is
 * `interfaceType`. A proxy of another interface passed in its place is refused.
 */
export function aorOf(interfaceType: string) {
  return aorSchema.refine((a) => a.interface_type === interfaceType, {
    message: `expected an object reference of interface ${interfaceType}`,
    path: ['interface_type'],
  });
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v !== 'object') return typeof v;
  const ctor = (v as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name !== 'Object' ? `an instance of ${ctor.name}` : 'a plain object';
}

/**
 * A Cheetah entity argument: an instance of `cls` (or of a subclass). Entities arrive already decoded by the
 * msgpackr Cheetah extension of @esp/codecs, so a plain object of the same shape is refused: it means the sender did
 * not encode an entity.
 */
type EntityClass<T> = (abstract new (...args: never) => T) & { readonly cheetah: { readonly name: string } };

export function cheetahEntity<T>(cls: EntityClass<T>) {
  return z.custom<T>((v) => v instanceof cls, {
    error: (issue) => `expected a ${cls.cheetah.name} entity (${cls.name}), got ${describe(issue.input)}`,
  });
}
