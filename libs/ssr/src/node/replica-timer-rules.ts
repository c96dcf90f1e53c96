import { hashKey, type Artifact } from '../artifact';
import type { ActiveEntry, ReplicaEntry } from '../caches';
import type { Member, View } from '../membership';

/**
 * The timer rules (2.14, 2.14.1), without clocks or the network: when the active copy's timer fires, when a
 * replica whose owner is gone expires, what the replica does then, and what the home does with the advisory.
 * replica-timers.ts arms the timers and carries the decisions out.
 */

export interface ReplicaTimerOptions {
  failAfterMs: number;
  graceMs: number;
  reactivation?: { lowMs: number; highMs: number } | undefined;
}

/** Milliseconds until the active copy's timer is due; undefined when it has none (or the instance does not serve). */
export function activeTimerDelay(a: Artifact, now: number, serving: boolean): number | undefined {
  if (a.nextFire === undefined || !serving) return undefined;
  return Math.max(0, a.nextFire - now);
}

export type ActiveFiring = 'skip' | 'rearm' | 'fire';

/** The active copy's timer went off: fire it, arm it again (moved later meanwhile), or nothing (gone, moving, cleared). */
export function activeFiring(e: ActiveEntry | undefined, now: number): ActiveFiring {
  if (!e || e.suspect || e.transfer || e.a.nextFire === undefined) return 'skip';
  return e.a.nextFire > now ? 'rearm' : 'fire';
}

/** A replica keeps a timer only while its owner is gone (2.14): not for a member's replica, nor a suspect one. */
export function replicaTimerRuns(e: ReplicaEntry, ownerIsMember: boolean, stopped: boolean): boolean {
  return !stopped && !e.suspect && !ownerIsMember;
}

/**
 * When a replica of a gone owner expires: its timer's time plus grace x (1 + depth) (children after parents), or
 * with a reactivation window (2.14.1) no later than a point spread over it by the id's hash. An owner never seen
 * here (a replica that arrived before the owner's first heartbeat, `goneAt` undefined) counts as gone only after a
 * failure-detection time. undefined: no timer.
 */
export function replicaDueAt(a: Artifact, goneAt: number | undefined, now: number, o: ReplicaTimerOptions): number | undefined {
  const gone = goneAt ?? now + o.failAfterMs;
  const g = o.graceMs;
  let due = a.nextFire !== undefined ? a.nextFire + g * (1 + a.depth) : Infinity;
  const w = o.reactivation;
  if (w) {
    const spread = (hashKey(a.id) % 1000) / 1000;
    due = Math.min(due, gone + w.lowMs + spread * (w.highMs - w.lowMs) + a.depth * g);
  }
  return due === Infinity ? undefined : due;
}

export type ReplicaExpiry =
  /** the owner is (back) in the view, or the copy is suspect: no orphan */
  | { kind: 'ignore' }
  /** a load has it in hand; if that load gives it back, the timer must still run */
  | { kind: 'wait-transfer' }
  /** this instance is the home: it handles the advisory itself */
  | { kind: 'advise-self' }
  /** a load advisory to the home (2.14) */
  | { kind: 'advise'; home: Member }
  /** the home is not in this view (yet): try again later */
  | { kind: 'retry' };

export function replicaExpiry(e: ReplicaEntry, c: { ownerIsMember: boolean; home: string | undefined; selfName: string; view: View }): ReplicaExpiry {
  if (e.suspect || c.ownerIsMember) return { kind: 'ignore' };
  if (e.transfer) return { kind: 'wait-transfer' };
  if (c.home === c.selfName) return { kind: 'advise-self' };
  const home = c.view.members.find((m) => m.name === c.home);
  return home ? { kind: 'advise', home } : { kind: 'retry' };
}

export type AdvisoryOutcome = 'drop' | 'taken' | 'retry';

/** The advisory's answer: 'drop' removes the replica, unless it changed or is in transfer meanwhile. */
export function dropsReplicaAfterAdvisory(outcome: AdvisoryOutcome, advised: Artifact, now: ReplicaEntry | undefined): boolean {
  return outcome === 'drop' && !!now && now.a === advised && !now.transfer;
}

/** Whatever the advisory did, a replica of a gone owner still here keeps a timer: it must not stay an orphan. */
export function needsOrphanTimer(left: ReplicaEntry | undefined, ownerIsMember: boolean): boolean {
  return !!left && !left.timer && !left.suspect && !ownerIsMember;
}

/** The home takes advisories only while serving. */
export function acceptsAdvisory(ready: boolean, quiescing: boolean): boolean {
  return ready && !quiescing;
}

export type AdvisoryStep =
  /**
   * an active copy here older than the advising replica (a second active copy made while the newer one was out of
   * sight): settled by a load, as a suspect copy is, and the highest version wins; dropping the replica would drop
   * the newest, possibly the last, copy
   */
  | 'settle-by-load'
  /** active here already (2.14 pseudo-code): the advising replica goes, the buddy gets a replica of this incarnation */
  | 'keep-active'
  /** not active here (or only a suspect copy reloaded from disk, 2.22.1.1): reactivate by a load */
  | 'load';

export function advisoryOnHome(e: ActiveEntry | undefined, advisedVersion: number): AdvisoryStep {
  if (e && !e.suspect && !e.transfer && e.a.version < advisedVersion) return 'settle-by-load';
  if (e && !e.suspect) return 'keep-active';
  return 'load';
}
