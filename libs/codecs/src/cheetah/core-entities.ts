/**
 * `cht::core` entities of MS-FSCDFT 2.2 (checksum -1479218033): the guarantees a content client asks for when it
 * creates a feeding session.
 */
import { CheetahConstraintError } from './cheetah-errors';
import { CheetahEntity, type CheetahFieldWriter, type CheetahWire, cheetahDescriptor } from './entity';
import { checkEntities, checkInt, constraintError, required } from './field-checks';

/** No fields. */
export type GuaranteeFields = Record<never, never>;

/** 2.2.1 `cht::core::guarantee` (type id 3): parent of feeding_priority. */
export class Guarantee extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('core', 'guarantee', 3, []);

  constructor(_fields: GuaranteeFields = {}) {
    super();
  }

  static decodeCheetahFields(_wire: CheetahWire): Guarantee {
    return new Guarantee();
  }

  encodeCheetahFields(_write: CheetahFieldWriter): void {
    // no fields
  }
}

export interface FeedingPriorityFields extends GuaranteeFields {
  /** MUST be 0; defaults to 0. */
  readonly priority?: number;
}

/** 2.2.2 `cht::core::feeding_priority` (type id 7): the priority of a feeding session, which MUST be 0. */
export class FeedingPriority extends Guarantee {
  static override readonly cheetah = cheetahDescriptor('core', 'feeding_priority', 7, ['priority']);
  declare readonly priority: number;

  constructor(fields: FeedingPriorityFields = {}) {
    super(fields);
    const priority = fields.priority === undefined ? 0 : checkInt(this, 'priority', fields.priority);
    if (priority !== 0) throw constraintError(this, 'priority', `MUST be 0, got ${priority}`);
    this.priority = priority;
  }

  static override decodeCheetahFields(wire: CheetahWire): FeedingPriority {
    return new FeedingPriority({ priority: required(FeedingPriority, 'priority', wire[2]) } as FeedingPriorityFields);
  }

  override encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.priority);
  }
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

  static decodeCheetahFields(wire: CheetahWire): GuaranteeSet {
    return new GuaranteeSet({ guarantees: wire[2] } as GuaranteeSetFields);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.guarantees);
  }
}

/**
 * The `guarantees` argument of session creation (MS-FSCDFT 3.x `create_session` / `recreate_session`): its
 * collection MUST hold either exactly one feeding_priority or nothing. Throws CheetahConstraintError otherwise.
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
