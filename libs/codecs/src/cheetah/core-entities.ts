/**
 * `cht::core` entities of MS-FSCDFT 2.2 (checksum -1479218033): the guarantees a content client asks for when it
 * creates a feeding session.
 */
import { CheetahConstraintError } from './cheetah-errors';
import {
  type CheetahFieldWriter,
  type CheetahWire,
  CheetahEntity,
  cheetahDescriptor,
  wireConstructor,
} from './entity';
import { checkEntities, checkInt, constraintError } from './field-checks';

/** No fields. */
export type GuaranteeFields = Record<never, never>;

/** 2.2.1 `cht::core::guarantee` (type id 3): parent of feeding_priority. */
export class Guarantee extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('core', 'guarantee', 3, []);

  constructor(_fields: GuaranteeFields = {}) {
    super();
  }

  static decodeCheetahFields(_wire: CheetahWire): Guarantee {
    return new GuaranteeWire(_wire);
  }

  encodeCheetahFields(_write: CheetahFieldWriter): void {
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

function checkPriority(self: CheetahEntity, v: unknown): number {
  const priority = checkInt(self, 'priority', v);
  if (priority !== 0) throw constraintError(self, 'priority', `MUST be 0, got ${priority}`);
  return priority;
}

/** 2.2.2 `cht::core::feeding_priority` (type id 7): the priority of a feeding session, which MUST be 0. */
export class FeedingPriority extends Guarantee {
  static override readonly cheetah = cheetahDescriptor('core', 'feeding_priority', 7, ['priority']);
  declare readonly priority: number;

  constructor(fields: FeedingPriorityFields = {}) {
    super(fields);
    this.priority = fields.priority === undefined ? 0 : checkPriority(this, fields.priority);
  }

  static override decodeCheetahFields(wire: CheetahWire): FeedingPriority {
    return new FeedingPriorityWire(wire);
  }

  override encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.priority);
  }
}

const FeedingPriorityWire = wireConstructor(FeedingPriority, function (w) {
  this.priority = checkPriority(this, w[2]);
});

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
    return new GuaranteeSetWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.guarantees);
  }
}

const GuaranteeSetWire = wireConstructor(GuaranteeSet, function (w) {
  this.guarantees = checkEntities(this, 'guarantees', w[2], Guarantee);
});

/**
 * The `guarantees` argument of session creation (MS-FSCDFT 3.5.4, `create_session` / `create`): its
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
