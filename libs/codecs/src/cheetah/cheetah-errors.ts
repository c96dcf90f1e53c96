import { CodecError } from '../errors';

/**
 * One class per Cheetah failure. Every one is a CodecError with a stable `code`; the ones about an entity name it
 * (`entity`, the spec name such as `cht::documentmessages::operation_set`) and, where there is one, the field.
 */

/** A Cheetah extension carries a type id that no table of MS-FSCDFT / MS-FSDPD section 2.2 lists. */
export class CheetahUnknownTypeError extends CodecError {
  override name = 'CheetahUnknownTypeError';
  readonly typeId: number;
  readonly checksum: number;

  constructor(typeId: number, checksum: number, options: { offset?: number; cause?: unknown } = {}) {
    super('CHEETAH_UNKNOWN_TYPE', `unknown Cheetah type id ${typeId} (checksum ${checksum})`, options);
    this.typeId = typeId;
    this.checksum = checksum;
  }
}

/** The type id is known, but the checksum is not the one its entity was defined with (another schema version). */
export class CheetahChecksumError extends CodecError {
  override name = 'CheetahChecksumError';
  /** Spec name of the entity (or entities, `a or b`, when both namespaces use the id) the type id stands for. */
  readonly entity: string;
  readonly typeId: number;
  readonly checksum: number;
  readonly expected: readonly number[];

  constructor(entity: string, typeId: number, checksum: number, expected: readonly number[]) {
    super(
      'CHEETAH_CHECKSUM',
      `${entity}: wrong Cheetah checksum ${checksum} for type id ${typeId}, expected ${expected.join(' or ')}`,
    );
    this.entity = entity;
    this.typeId = typeId;
    this.checksum = checksum;
    this.expected = expected;
  }
}

/** What is wrong with a field: absent, of the wrong type, or present although the entity has no such field. */
export type CheetahFieldProblem = 'missing' | 'type' | 'extra';

/** A field of an entity is missing, wrongly typed (also an element of a collection: `values[3]`) or extra. */
export class CheetahFieldError extends CodecError {
  override name = 'CheetahFieldError';
  readonly entity: string;
  readonly field: string;
  readonly problem: CheetahFieldProblem;

  constructor(entity: string, field: string, problem: CheetahFieldProblem, detail: string) {
    super('CHEETAH_FIELD', `${entity}.${field}: ${detail}`);
    this.entity = entity;
    this.field = field;
    this.problem = problem;
  }
}

/** A value breaks a MUST of the spec (e.g. `feeding_priority.priority` is not 0). */
export class CheetahConstraintError extends CodecError {
  override name = 'CheetahConstraintError';
  readonly entity: string;
  readonly field: string;

  constructor(entity: string, field: string, rule: string) {
    super('CHEETAH_CONSTRAINT', `${entity}.${field}: ${rule}`);
    this.entity = entity;
    this.field = field;
  }
}

/** The bytes are not MessagePack, or a Cheetah extension is not laid out as [typeId, checksum, ...fields]. */
export class CheetahMalformedError extends CodecError {
  override name = 'CheetahMalformedError';

  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('CHEETAH_MALFORMED', message, options);
  }
}

/** A value could not be encoded (msgpackr refused it). */
export class CheetahEncodeError extends CodecError {
  override name = 'CheetahEncodeError';

  constructor(message: string, options: { cause?: unknown } = {}) {
    super('CHEETAH_ENCODE', message, options);
  }
}
