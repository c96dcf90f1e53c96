import type { Artifact } from '../artifact';
import type { ActiveEntry, ArtifactCache, ReplicaEntry } from '../caches';
import type { IdVersion, SsrMessage } from '../messages';
import { memberKey, type View } from '../membership';

/**
 * The rules of load requests (2.13, 2.18), without the network: what an access does with the copy it has, what a
 * member answers, and what the requester takes once the answers are in. load-requests.ts and load-answers.ts carry
 * the decisions out.
 */

export interface LoadQuery {
  id?: string;
  parentId?: string;
  minVersion?: number;
}

export interface LoadResult {
  items: Artifact[];
  unavailable: boolean;
}

/** The answers of one load request so far. */
export interface LoadTally {
  /** member keys still to answer */
  awaited: Set<string>;
  /** a member of the view was suspected when the request went out or while it waited */
  missing: boolean;
  /** the view the request was made in; an answer from another view makes the result unavailable */
  viewId: string;
  otherView: boolean;
  busy: boolean;
  found: { from: string; items: Artifact[] }[];
}

export type FindStep = { kind: 'busy'; reason: string } | { kind: 'here' } | { kind: 'absent' } | { kind: 'load'; minVersion?: number };

export interface FindContext {
  mode: 'get' | 'create';
  /** reloaded copies not yet sorted by the buddy's list */
  reloadUnsorted: boolean;
  /** loaded, not yet active here */
  arriving: boolean;
  /** every member's expat list of this view is in */
  expatReady: boolean;
  expatVersion: number | undefined;
  hasReplica: boolean;
}

/**
 * An access to `id` on this instance. `create` trusts the expat list: an artifact that is neither active here nor in
 * the complete expat list does not exist and needs no broadcast (2.13 "find vs create"); `get` loads before it
 * concludes that (version-aware when the expat list names a version).
 */
export function findStep(id: string, e: ActiveEntry | undefined, c: FindContext): FindStep {
  if (e && e.transfer) return { kind: 'busy', reason: `${id} is being moved to another instance` };
  if (e && e.suspect && c.reloadUnsorted) return { kind: 'busy', reason: `${id}: the copy reloaded from disk is not yet confirmed by the buddy` };
  if (!e && c.arriving) return { kind: 'busy', reason: `${id} is being activated here` };
  if (e && !e.suspect) return { kind: 'here' };
  if (!e && c.mode === 'create' && c.expatReady && c.expatVersion === undefined && !c.hasReplica) return { kind: 'absent' };
  return c.expatVersion !== undefined ? { kind: 'load', minVersion: c.expatVersion } : { kind: 'load' };
}

export type LoadMiss = { kind: 'found'; a: Artifact; olderThanExpat: boolean } | { kind: 'unavailable'; reason: string } | { kind: 'missing' };

/** What a finished load means for the access (2.8: a silent member makes a miss retryable, not "does not exist"). */
export function loadOutcome(id: string, r: LoadResult, mode: 'get' | 'create', expatVersion: number | undefined): LoadMiss {
  const a = r.items.find((x) => x.id === id);
  if (a) return { kind: 'found', a, olderThanExpat: expatVersion !== undefined && a.version < expatVersion };
  if (r.unavailable) {
    const reason = mode === 'get' ? `${id}: a member did not answer the load request` : `${id}: cannot tell find from create while a member is silent`;
    return { kind: 'unavailable', reason };
  }
  return { kind: 'missing' };
}

/** This instance's own copies take part without the network (2.13: "no network communication is needed"). */
export function localCopies(q: LoadQuery, active: ArtifactCache<ActiveEntry>, replica: ArtifactCache<ReplicaEntry>): Artifact[] {
  const local: Artifact[] = [];
  const ids = q.id !== undefined ? [q.id] : [...replica.children(q.parentId as string), ...active.children(q.parentId as string)].map((e) => e.a.id);
  for (const id of ids) {
    const r = replica.get(id);
    if (r && !r.suspect && !r.transfer) local.push(r.a);
    const ae = active.get(id);
    if (ae && q.id !== undefined && ae.suspect) local.push(ae.a);
  }
  return local;
}

/** A new tally: every other member not suspected is awaited; a suspected one makes the result unavailable. */
export function openTally(view: View, selfName: string, isSuspected: (name: string) => boolean): LoadTally {
  const awaited = new Set(view.members.filter((m) => m.name !== selfName && !isSuspected(m.name)).map(memberKey));
  return { awaited, missing: awaited.size < view.members.length - 1, viewId: view.id, otherView: false, busy: false, found: [] };
}

/**
 * One member's answer. Every member's answer is awaited even once a sufficient version is in hand (2.13
 * version-aware would stop there): a copy not yet heard of may be an active one that answers busy, and taking the
 * replica then would leave two active copies (2.18). Negative acknowledgements keep the wait to one round.
 * Returns true when the tally is complete.
 */
export function tallyAnswer(t: LoadTally, m: Extract<SsrMessage, { t: 'loadr' }>): boolean {
  t.awaited.delete(m.from);
  if (m.viewId !== undefined && m.viewId !== t.viewId) t.otherView = true;
  if (m.result === 'busy') t.busy = true;
  if (m.result === 'found') t.found.push({ from: m.from, items: m.items ?? [] });
  return t.awaited.size === 0;
}

/** A member suspected while awaited: not waited for, and the result is unavailable. True when complete. */
export function tallySuspect(t: LoadTally, key: string): boolean {
  if (!t.awaited.delete(key)) return false;
  t.missing = true;
  return t.awaited.size === 0;
}

/** A member gone from the view (failed or left) while awaited. True when complete. */
export function tallyGone(t: LoadTally, key: string): boolean {
  return t.awaited.delete(key) && t.awaited.size === 0;
}

export type LoadSettlement =
  /** 2.18.1: a copy is locked elsewhere; every copy found is given back */
  | { kind: 'busy' }
  /** a load by id that cannot be trusted: every copy found is given back, the caller retries */
  | { kind: 'give-back' }
  /** the highest version of each id is taken; every copy found goes (2.18: no duplicate active copies) */
  | { kind: 'take'; best: Map<string, Artifact>; unavailable: boolean; dropLocalReplicas: string[] };

export interface SettleContext {
  byId: boolean;
  now: number;
  lastViewAt: number;
  suspectAfterMs: number;
  /** the view now (a reshape since the request makes the result unavailable) */
  viewId: string;
  replicaVersion: (id: string) => number | undefined;
}

export function settleLoad(t: LoadTally, local: Artifact[], c: SettleContext): LoadSettlement {
  if (t.busy) return { kind: 'busy' };
  const best = new Map<string, Artifact>();
  for (const a of [...local, ...t.found.flatMap((f) => f.items)]) {
    const b = best.get(a.id);
    if (!b || a.version > b.version) best.set(a.id, a);
  }
  // right after a reshape a member may not be in this view yet: "found nowhere" is not trusted then.
  // An answer from a member in another view (or a reshape here since the request): the expat lists of the view
  // this copy would move in were made before it moved, so the home of the artifact would not know it exists here
  // and could create a fresh version 1 beside it (2.13 find vs create)
  const unavailable = t.missing || t.awaited.size > 0 || c.now - c.lastViewAt < c.suspectAfterMs || t.otherView || c.viewId !== t.viewId;
  // someone silent (or not yet in this young view) may hold a newer copy (2.8: 503 during a temporary failure)
  if (unavailable && c.byId) return { kind: 'give-back' };
  const dropLocalReplicas: string[] = [];
  for (const a of local) {
    const v = c.replicaVersion(a.id);
    if (v !== undefined && v <= (best.get(a.id)?.version ?? 0)) dropLocalReplicas.push(a.id);
  }
  return { kind: 'take', best, unavailable, dropLocalReplicas };
}

/** A 'found' answer after the load finished: committed (removed) if not newer than what was taken, else given back. */
export function commitLateAnswer(chosen: Map<string, number> | null | undefined, items: Artifact[]): boolean {
  return chosen != null && items.every((a) => a.version <= (chosen.get(a.id) ?? -1));
}

export type LoadAnswer = { result: 'busy' } | { result: 'nack' } | { result: 'found'; entries: (ActiveEntry | ReplicaEntry)[] };

export interface AnswerContext {
  active: ArtifactCache<ActiveEntry>;
  replica: ArtifactCache<ReplicaEntry>;
  locked: (id: string) => boolean;
  arriving: (id: string) => boolean;
  reloadUnsorted: boolean;
}

/**
 * A member's answer to a load request: the copies it holds (to be held in transfer until the commit), a negative
 * acknowledgement, or busy (2.18.1: an actively locked copy, one on its way here, or a reloaded copy the repair has
 * not sorted yet).
 */
export function answerLoad(q: { id?: string; parentId?: string }, c: AnswerContext): LoadAnswer {
  const ids = q.id !== undefined ? [q.id] : [...c.active.children(q.parentId ?? ''), ...c.replica.children(q.parentId ?? '')].map((e) => e.a.id);
  const entries: (ActiveEntry | ReplicaEntry)[] = [];
  let busy = false;
  for (const id of new Set(ids)) {
    if (c.arriving(id)) busy = true;
    const ae = c.active.get(id);
    if (ae) {
      if (c.locked(id) || ae.transfer || (ae.suspect && c.reloadUnsorted)) busy = true;
      else entries.push(ae);
    }
    const re = c.replica.get(id);
    if (re && !re.suspect) {
      if (re.transfer) busy = true;
      else entries.push(re);
    }
  }
  if (busy) return { result: 'busy' };
  return entries.length ? { result: 'found', entries } : { result: 'nack' };
}

export interface CommitPlan {
  dropActive: string[];
  dropReplica: string[];
  /** entries given back: their transfer ends, they stay */
  release: (ActiveEntry | ReplicaEntry)[];
  /** ids of this home now held elsewhere: expat entries to add */
  expat: IdVersion[];
}

/**
 * The requester's commit of a transfer (2.18 "not removed until the reception is acknowledged"): remove the copies
 * handed out, or keep them. An artifact of this home taken by another instance (a reload's repair, an advisory or a
 * read in a view that disagrees with ours) now lives elsewhere and no expat list of this view says so: it goes in
 * this home's expat list, so a create here does the load round rather than make a fresh version 1 beside it.
 */
export function planCommit(
  ids: string[],
  req: string,
  remove: boolean,
  c: { active: ArtifactCache<ActiveEntry>; replica: ArtifactCache<ReplicaEntry>; isHome: (a: Artifact) => boolean; expatVersion: (id: string) => number | undefined },
): CommitPlan {
  const plan: CommitPlan = { dropActive: [], dropReplica: [], release: [], expat: [] };
  for (const id of ids) {
    let gone: Artifact | undefined;
    const ae = c.active.get(id);
    if (ae?.transfer?.req === req) {
      if (remove) {
        plan.dropActive.push(id);
        gone = ae.a;
      } else plan.release.push(ae);
    }
    const re = c.replica.get(id);
    if (re?.transfer?.req === req) {
      if (remove) {
        plan.dropReplica.push(id);
        if (!gone || re.a.version > gone.version) gone = re.a;
      } else plan.release.push(re);
    }
    if (gone && c.isHome(gone) && (c.expatVersion(id) ?? -1) < gone.version) plan.expat.push([id, gone.version]);
  }
  return plan;
}
