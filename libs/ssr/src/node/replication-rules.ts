import type { Artifact } from '../artifact';
import type { ReplicaEntry } from '../caches';
import { memberKey, type Member } from '../membership';
import type { SlotItem } from './versions';

/**
 * The rules of buddy replication (2.7, 2.12, 2.17, 2.19), without the network: what is sent on which event, what a
 * buddy accepts, what a purge covers, what is sent again, and what a change of buddy sets off.
 */

export type ReplicationEvent = 'put' | 'remove' | 'touch' | 'activate' | 'advisory-keep' | 'fire' | 'repair' | 'confirm' | 'children' | 'orphan' | 'pull' | 'resend';

/**
 * Whether the change waits for the buddy's acknowledgement. Puts, removes, slot updates and reactivations follow
 * the instance's mode (2.7.1 asynchronous by default); a timer firing always waits, so it is never repeated
 * elsewhere (2.14); repair and the check before a save wait, so that what follows (a purge, a save) is safe; the
 * rest (children taken back, orphans removed, pulls, resends) is sent asynchronously.
 */
export function waitsForAck(event: ReplicationEvent, waitForAck: boolean): boolean {
  switch (event) {
    case 'put':
    case 'remove':
    case 'touch':
    case 'activate':
    case 'advisory-keep':
      return waitForAck;
    case 'fire':
    case 'repair':
    case 'confirm':
      return true;
    case 'children':
    case 'orphan':
    case 'pull':
    case 'resend':
      return false;
  }
}

/**
 * A replication received: replicas are version-monotonic whoever sends them. A late replication from a former owner
 * (or one that made a second, older active copy) must not overwrite a newer replica, which may be the only other
 * copy. A suspect copy reloaded from disk is no evidence of anything and is replaced; so is a copy in transfer (the
 * load's commit then finds no transfer on the new entry and keeps it).
 */
export function acceptsReplica(old: ReplicaEntry | undefined, a: Artifact): boolean {
  return !(old && !old.suspect && !old.transfer && old.a.version > a.version);
}

/** Only the owner may remove: a late remove of a former owner must not delete the new owner's replica. */
export function acceptsRemove(r: ReplicaEntry | undefined, from: string): boolean {
  return !!r && r.a.owner === from && !r.transfer;
}

/** Slots (2.4.2.2) apply to the replica of the same version only. Returns true when applied. */
export function applySlot(r: ReplicaEntry | undefined, s: SlotItem): r is ReplicaEntry {
  if (!r || r.a.version !== s.version) return false;
  r.a.lastAccess = s.lastAccess;
  if (s.nextFire === undefined) delete r.a.nextFire;
  else r.a.nextFire = s.nextFire;
  return true;
}

/**
 * 2.17 / 2.19: a purge drops the replicas of `owner` written by its messages sent before `beforeSeq` (all of them
 * when absent), so a purge that meets an instance after it became the buddy again spares what was sent since.
 */
export function purgeVictims(replicas: Iterable<ReplicaEntry>, owner: string, beforeSeq: number | undefined): string[] {
  const out: string[] = [];
  for (const e of replicas) if (e.a.owner === owner && !e.transfer && (beforeSeq === undefined || (e.seq ?? 0) < beforeSeq)) out.push(e.a.id);
  return out;
}

export interface Unacked {
  seq: number;
  at: number;
  ids: string[];
}

/**
 * Replication the buddy has not acknowledged within ackTimeoutMs (a message lost to a slow-consumer disconnect, say)
 * is sent again with the current version: asynchronous replication (2.7.1) may lose a message, but an artifact must
 * not stay with one copy until its next change. Returns what stays pending and, when due, the ids to send again.
 */
export function resendPlan(unacked: Unacked[], acked: number, now: number, ackTimeoutMs: number, hasBuddy: boolean): { keep: Unacked[]; resend?: string[] } {
  let i = 0;
  while (i < unacked.length && (unacked[i] as Unacked).seq <= acked) i++;
  const keep = unacked.slice(i);
  const head = keep[0];
  if (!head || now - head.at < ackTimeoutMs || !hasBuddy) return { keep };
  return { keep: [], resend: [...new Set(keep.flatMap((u) => u.ids))] };
}

export type BuddyChange = { changed: false } | { changed: true; repairTo?: Member; purge?: Member };

/**
 * A reshape gave this instance a new buddy (2.17): with repair-under-load (2.22.2.1) the whole active cache goes to
 * the new buddy and the old one is purged afterwards; without it, the old buddy is purged at once.
 */
export function buddyChange(old: Member | undefined, nb: Member | undefined, c: { repairUnderLoad: boolean; replication: boolean; ready: boolean }): BuddyChange {
  if ((nb && memberKey(nb)) === (old && memberKey(old))) return { changed: false };
  if (nb && c.repairUnderLoad && c.replication && c.ready) return old ? { changed: true, repairTo: nb, purge: old } : { changed: true, repairTo: nb };
  return old ? { changed: true, purge: old } : { changed: true };
}

/**
 * Items in order, at most `size` per batch and, when a weight is given, at most `maxWeight` per batch (an item
 * heavier than that alone travels alone): a repair of many large artifacts must not become one message above the
 * bus's payload limit.
 */
/** An artifact's weight in a batch: its body, which is nearly all of its bytes on the wire. */
export const bodyBytes = (a: { body: Uint8Array }): number => a.body.length;

export function inBatches<T>(items: T[], size: number, weigh?: (item: T) => number, maxWeight = Infinity): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let weight = 0;
  for (const item of items) {
    const w = weigh ? weigh(item) : 0;
    if (cur.length && (cur.length >= size || weight + w > maxWeight)) {
      out.push(cur);
      cur = [];
      weight = 0;
    }
    cur.push(item);
    weight += w;
  }
  if (cur.length) out.push(cur);
  return out;
}
