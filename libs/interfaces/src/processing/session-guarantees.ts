import { FeedingPriority, GuaranteeSet, type Guarantee } from '@esp/codecs';
import { UnsupportedGuaranteeSet } from '../user-exceptions';

/**
 * The guarantees of a feeding session (MS-FSCDFT 3.5.4.1-3.5.4.3): the guarantee set "MUST contain either one
 * cht::core::feeding_priority ... or an empty collection", and a server that cannot create the session for the set it
 * is given "MUST" raise `core::unsupported_guarantee_set` (2.2.5). The feeding priority (2.2.2, which MUST be 0) is
 * kept with the session, and with its replica, as given.
 *
 *   const g = sessionGuarantees(set);        // throws UnsupportedGuaranteeSet for anything else
 *   g.priority                               // 0, or undefined when the set was empty
 */
export interface SessionGuarantees {
  /** The feeding_priority's priority; undefined: the set was empty. */
  priority: number | undefined;
}

function nameOf(g: Guarantee): string {
  return (g.constructor as { cheetah?: { name?: string } }).cheetah?.name ?? g.constructor.name;
}

/** The guarantees of a set a session can be created with; UnsupportedGuaranteeSet for any other set. */
export function sessionGuarantees(set: GuaranteeSet): SessionGuarantees {
  const g = set.guarantees;
  if (g.length === 0) return { priority: undefined };
  const only = g[0];
  if (g.length === 1 && only instanceof FeedingPriority) return { priority: only.priority };
  throw new UnsupportedGuaranteeSet(
    `the content distributor keeps one cht::core::feeding_priority or no guarantee (MS-FSCDFT 3.5.4.1); got ${g.map(nameOf).join(', ')}`,
    { guarantees: g.map(nameOf) },
  );
}

/** The guarantee set that says `g` (a reactivated session's, for whoever asks). */
export function guaranteeSetOf(g: SessionGuarantees): GuaranteeSet {
  return new GuaranteeSet({ guarantees: g.priority === undefined ? [] : [new FeedingPriority({ priority: g.priority })] });
}
