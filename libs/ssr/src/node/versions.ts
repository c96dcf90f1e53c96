import type { Artifact } from '../artifact';
import type { PutOptions } from './options';

/**
 * How an artifact changes on the active copy (2.13.1.1): every change is a new version owned by this instance; the
 * externalized slots (2.4.2.2) change without one.
 */

/** A put of an artifact that exists (active or just loaded): next version, this owner, the timer as asked. */
export function updatedArtifact(old: Artifact, body: Uint8Array, opts: PutOptions, owner: string, now: number): Artifact {
  const a: Artifact = { ...old, version: old.version + 1, owner, body, lastAccess: now };
  if (opts.nextFire === null) delete a.nextFire;
  else if (opts.nextFire !== undefined) a.nextFire = opts.nextFire;
  return a;
}

/** A put of an artifact that exists nowhere: version 1; a child is one level deeper than its parent (1 if unknown). */
export function createdArtifact(id: string, body: Uint8Array, opts: PutOptions, c: { owner: string; now: number; homeHash: number; parent: Artifact | undefined }): Artifact {
  const a: Artifact = {
    id,
    version: 1,
    owner: c.owner,
    homeHash: c.homeHash,
    depth: opts.parentId !== undefined ? (c.parent ? c.parent.depth + 1 : 1) : 0,
    lastAccess: c.now,
    body,
  };
  if (opts.parentId !== undefined) a.parentId = opts.parentId;
  if (typeof opts.nextFire === 'number') a.nextFire = opts.nextFire;
  return a;
}

/** A timer firing is recorded as a change (2.14): new version, slot cleared, so no replica fires it again. */
export function firedArtifact(a: Artifact, now: number): Artifact {
  const f: Artifact = { ...a, version: a.version + 1, lastAccess: now };
  delete f.nextFire;
  return f;
}

/** touch(): the slots only; null clears the timer, undefined keeps it. */
export function touchSlots(a: Artifact, now: number, nextFire: number | null | undefined): void {
  a.lastAccess = now;
  if (nextFire === null) delete a.nextFire;
  else if (nextFire !== undefined) a.nextFire = nextFire;
}

export interface SlotItem {
  id: string;
  version: number;
  lastAccess: number;
  nextFire?: number;
}

export function slotItem(a: Artifact): SlotItem {
  const item: SlotItem = { id: a.id, version: a.version, lastAccess: a.lastAccess };
  if (a.nextFire !== undefined) item.nextFire = a.nextFire;
  return item;
}
