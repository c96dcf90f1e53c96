import type { TimerHandle } from '@esp/timers';
import type { Artifact } from './artifact';

/** A copy handed out to a load request and not yet committed (2.18: removed only once the requester has it). */
export interface Transfer {
  req: string;
  until: number;
}

/** A copy in the active cache: the one that serves traffic and fires timers (2.7). */
export interface ActiveEntry {
  a: Artifact;
  /** 2.22.1.1: reloaded from disk and not yet confirmed by the buddy; every access does a load request. */
  suspect: boolean;
  transfer?: Transfer;
  timer?: TimerHandle;
}

/** A copy in the replica cache, as replicated by its owner (2.7). */
export interface ReplicaEntry {
  a: Artifact;
  /** 2.22.1.2: reloaded from disk and not yet confirmed by the source; acts as absent for load requests. */
  suspect: boolean;
  transfer?: Transfer;
  /** 2.14: the reactivation timer, armed while the owner is gone. */
  timer?: TimerHandle;
  /** The owner's sequence number of the replication message that wrote it (a purge covers only earlier ones). */
  seq?: number;
}

/** A map of entries by artifact id with an index of children by parent id (tree activation, 2.4.2.5). */
export class ArtifactCache<E extends { a: Artifact }> {
  private readonly byId = new Map<string, E>();
  private readonly kids = new Map<string, Set<string>>();

  /** A cache holding these entries. */
  static of<E extends { a: Artifact }>(entries: Iterable<E>): ArtifactCache<E> {
    const cache = new ArtifactCache<E>();
    for (const e of entries) cache.set(e);
    return cache;
  }

  get size(): number {
    return this.byId.size;
  }
  get(id: string): E | undefined {
    return this.byId.get(id);
  }
  has(id: string): boolean {
    return this.byId.has(id);
  }
  values(): IterableIterator<E> {
    return this.byId.values();
  }

  set(e: E): void {
    const old = this.byId.get(e.a.id);
    if (old?.a.parentId !== undefined && old.a.parentId !== e.a.parentId) this.unindex(old.a);
    this.byId.set(e.a.id, e);
    if (e.a.parentId !== undefined) {
      let s = this.kids.get(e.a.parentId);
      if (!s) this.kids.set(e.a.parentId, (s = new Set()));
      s.add(e.a.id);
    }
  }

  delete(id: string): E | undefined {
    const e = this.byId.get(id);
    if (!e) return undefined;
    this.byId.delete(id);
    this.unindex(e.a);
    return e;
  }

  children(parentId: string): E[] {
    const s = this.kids.get(parentId);
    if (!s) return [];
    return [...s].map((id) => this.byId.get(id)).filter((e): e is E => e !== undefined);
  }

  private unindex(a: Artifact): void {
    if (a.parentId === undefined) return;
    const s = this.kids.get(a.parentId);
    s?.delete(a.id);
    if (s?.size === 0) this.kids.delete(a.parentId);
  }
}
