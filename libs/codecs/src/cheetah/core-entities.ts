/**
 * `cht::core` entities of MS-FSCDFT 2.2 (checksum -1479218033): the guarantees a content client asks for when it
 * creates a feeding session.
 */
import { CheetahConstraintError } from './cheetah-errors';
import { type CheetahOwner, CheetahEntity, cheetahDescriptor, wireConstructor } from './entity';
import { checkEntities, checkInt, constraintError, fieldTypeError } from './field-checks';
import { EMPTY_COLLECTION, readEntity, readEntityCollectionHeader, readInt } from './wire-reader';
import { writeEntities, writeInteger } from './wire-writer';

/** No fields. */
export type GuaranteeFields = Record<never, never>;

/** 2.2.1 `cht::core::guarantee` (type id 3): parent of feeding_priority. */
export class Guarantee extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('core', 'guarantee', 3, []);

  constructor(_fields: GuaranteeFields = {}) {
    super();
  }

  static decodeCheetahFields(): Guarantee {
    return new GuaranteeWire();
  }

  encodeCheetahFields(): void {
    // no fields
  }
}

const GuaranteeWire = wireConstructor(Guarantee, function () {
  // no fields
});

export interface FeedingPriorityFields extends GuaranteeFields {
  /** MUST be 0; defaults to 0. */
  readonly priority?: number;
}

function mustBeZero(owner: CheetahOwner, priority: number): number {
  if (priority !== 0) throw constraintError(owner, 'priority', `MUST be 0, got ${priority}`);
  return priority;
}

/** 2.2.2 `cht::core::feeding_priority` (type id 7): the priority of a feeding session, which MUST be 0. */
export class FeedingPriority extends Guarantee {
  static override readonly cheetah = cheetahDescriptor('core', 'feeding_priority', 7, ['priority']);
  declare readonly priority: number;

  constructor(fields: FeedingPriorityFields = {}) {
    super(fields);
    this.priority = fields.priority === undefined ? 0 : mustBeZero(this, checkInt(this, 'priority', fields.priority));
  }

  static override decodeCheetahFields(): FeedingPriority {
    return new FeedingPriorityWire(mustBeZero(FeedingPriority, readInt(FeedingPriority, 'priority')));
  }

  override encodeCheetahFields(): void {
    writeInteger(this.priority);
  }
}

const FeedingPriorityWire = wireConstructor(FeedingPriority, function (priority: number) {
  this.priority = priority;
});

function readGuarantees(owner: CheetahOwner, field: string): readonly Guarantee[] {
  const n = readEntityCollectionHeader(owner, field);
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<Guarantee>(n);
  for (let i = 0; i < n; i++) {
    const e = readEntity(owner, field, i);
    if (!(e instanceof Guarantee)) throw fieldTypeError(owner, field, `a ${Guarantee.cheetah.name}`, e, i);
    out[i] = e;
  }
  return out;
}

export interface GuaranteeSetFields {
  /** guarantee entities or their subtypes (feeding_priority). */
  readonly guarantees: readonly Guarantee[];
}

/** 2.2.3 `cht::core::guarantee_set` (type id 9): a collection of guarantees. */
export class GuaranteeSet extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('core', 'guarantee_set', 9, ['guarantees']);
  declare readonly guarantees: readonly Guarantee[];

  constructor(fields: GuaranteeSetFields) {
    super();
    this.guarantees = checkEntities(this, 'guarantees', fields.guarantees, Guarantee);
  }

  static decodeCheetahFields(): GuaranteeSet {
    return new GuaranteeSetWire(readGuarantees(GuaranteeSet, 'guarantees'));
  }

  encodeCheetahFields(): void {
    writeEntities(this.guarantees);
  }
}

const GuaranteeSetWire = wireConstructor(GuaranteeSet, function (guarantees: readonly Guarantee[]) {
  this.guarantees = guarantees;
});

/**
 * The `guarantees` argument of session creation (MS-FSCDFT 3.5.4, `create_session` / `create`): its collection
 * MUST hold either exactly one feeding_priority or nothing. Throws CheetahConstraintError otherwise.
 */
export function assertSessionGuarantees(set: GuaranteeSet): void {
  const g = set.guarantees;
  if (g.length === 0 || (g.length === 1 && g[0] instanceof FeedingPriority)) return;
  throw new CheetahConstraintError(
    GuaranteeSet.cheetah.name,
    'guarantees',
    'MUST contain either one cht::core::feeding_priority or nothing (session creation)',
  );
}
