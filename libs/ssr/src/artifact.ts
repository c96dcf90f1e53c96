/**
 * A replication artifact (1.2: "we will often be talking about sessions, when the proper nomenclature would be
 * (replication) artifact"). Each object of a tree (a session and its timers) is replicated on its own, not as a
 * transaction (2.7.2); a child refers to its parent by id (2.4.2.4) and shares the parent's home hash, so the whole
 * tree has one home instance.
 */
export interface Artifact {
  id: string;
  /** Incremented by every change on the active copy (2.13.1.1). */
  version: number;
  /** Member key (name:incarnation) of the instance that last replicated it: the "owner" / "source" (1.3, 2.14). */
  owner: string;
  /** Consistent-hash input that picks the home instance (1.3 data-centric policy). */
  homeHash: number;
  parentId?: string;
  /** 0 for a root, parent depth + 1 for a child: replica grace grows with it (2.14.1). */
  depth: number;
  /** Externalized slot (2.4.2.2): updated without the body, used by cleanup. */
  lastAccess: number;
  /** Externalized slot (2.14 nextFiringExpirationTime): ms epoch of the next firing, absent when no timer runs. */
  nextFire?: number;
  /** The serialized object; SSR never looks inside. */
  body: Uint8Array;
}

/** FNV-1a, 32 bits: the home hash of a key and the points of the consistent-hash ring. */
export function hashKey(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // avalanche, so that near keys ("a-1", "a-2") land far apart on the ring
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
