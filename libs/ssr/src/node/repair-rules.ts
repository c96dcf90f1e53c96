import type { Artifact } from '../artifact';
import type { ActiveEntry, ArtifactCache, ReplicaEntry } from '../caches';
import type { IdVersion } from '../messages';
import { nameOfKey, type Member } from '../membership';

/**
 * The repair rules (2.16, 2.22.1, 2.9/2.10 in the small), without the network: how reloaded (suspect) copies are
 * sorted against the partners' version lists, what the buddy must hold before a save, and when an instance is told
 * that it was declared failed while alive.
 */

export function hasSuspects(active: ArtifactCache<ActiveEntry>, replica: ArtifactCache<ReplicaEntry>): boolean {
  for (const e of active.values()) if (e.suspect) return true;
  for (const e of replica.values()) if (e.suspect) return true;
  return false;
}

/**
 * 2.22.1.1: a reloaded active copy stays only if the buddy still holds a replica of ours of it, at any version (a
 * reactivation or a delete loads every copy away; a save whose replication was not yet acknowledged holds a newer
 * version than the replica). Those are settled by a load (`check`), the others dropped.
 */
export function sortReloadedActives(actives: Iterable<ActiveEntry>, buddyList: IdVersion[]): { check: string[]; drop: Artifact[] } {
  const have = new Map(buddyList);
  const check: string[] = [];
  const drop: Artifact[] = [];
  for (const e of actives) {
    if (!e.suspect) continue;
    if (have.has(e.a.id)) check.push(e.a.id);
    else drop.push(e.a);
  }
  return { check, drop };
}

/**
 * 2.22.1.2: a reloaded replica stays only if the source still has it active and it was the source's; it is then
 * confirmed (owned by the source's current incarnation), and pulled when the source holds a newer version. What the
 * source holds active and no replica here covers is pulled too.
 */
export function sortReloadedReplicas(
  replicas: Iterable<ReplicaEntry>,
  sourceList: IdVersion[],
  source: Member,
  hasReplica: (id: string) => boolean,
): { drop: string[]; confirm: ReplicaEntry[]; pull: string[] } {
  const theirs = new Map(sourceList);
  const drop: string[] = [];
  const confirm: ReplicaEntry[] = [];
  const pull: string[] = [];
  for (const e of replicas) {
    if (!e.suspect) continue;
    const v = theirs.get(e.a.id);
    if (v === undefined || nameOfKey(e.a.owner) !== source.name) drop.push(e.a.id);
    else {
      confirm.push(e);
      if (v > e.a.version) pull.push(e.a.id);
    }
  }
  const dropped = new Set(drop);
  for (const id of theirs.keys()) if (!hasReplica(id) || dropped.has(id)) pull.push(id);
  return { drop, confirm, pull };
}

/**
 * Before a save (2.16, 2.22.1): the reload keeps an active copy only if the buddy holds our replica of it, so every
 * confirmed active copy the buddy's list lacks, or holds at another version, is replicated again.
 */
export function missingOnBuddy(actives: Iterable<ActiveEntry>, buddyList: IdVersion[]): Artifact[] {
  const have = new Map(buddyList);
  const out: Artifact[] = [];
  for (const e of actives) if (!e.suspect && !e.transfer && have.get(e.a.id) !== e.a.version) out.push(e.a);
  return out;
}

/**
 * A partner's version list: the source's confirmed actives, or the replicas the buddy holds for the asker's name.
 * An artifact active here is not the asker's any more, whatever replica of it is still around.
 */
export function versionListOf(kind: 'replicas-of-mine' | 'actives', askerName: string, active: ArtifactCache<ActiveEntry>, replica: ArtifactCache<ReplicaEntry>): IdVersion[] {
  const items: IdVersion[] = [];
  if (kind === 'actives') {
    for (const e of active.values()) if (!e.suspect) items.push([e.a.id, e.a.version]);
  } else {
    for (const e of replica.values()) if (!e.suspect && nameOfKey(e.a.owner) === askerName && !active.has(e.a.id)) items.push([e.a.id, e.a.version]);
  }
  return items;
}

/**
 * The same incarnation back after this instance declared it failed: it was alive all along (stalled, or cut off),
 * and what this side reactivated of it meanwhile may now exist twice, so it is told to settle its copies. Not when
 * this instance itself was alone shortly before: then it most likely stalled, and the others declared it failed.
 */
export function tellsRejoined(wasDeclaredFailed: boolean, now: number, aloneAt: number, failAfterMs: number): boolean {
  return wasDeclaredFailed && now - aloneAt > failAfterMs;
}
