import { hashKey, type Artifact } from '../artifact';
import type { ConsistentHashRouter } from '../consistent-hash';
import type { PutOptions } from './options';

/**
 * Where an artifact lives (1.3 data-centric policy, 2.4.2.4). The primary (home) of a key is the consistent-hash
 * owner of its home hash in the current view; its replica is on the home's buddy (`buddyOf`, membership.ts), the
 * next member clockwise. A whole tree shares its root's home hash, so a session and its timers have one home.
 */

/** The home hash of a new artifact: an explicit home key, else its parent's home (children live with their parent), else its id. */
export function homeHashFor(id: string, opts: PutOptions, parentHomeHash: number | undefined): number {
  if (opts.homeKey !== undefined) return hashKey(opts.homeKey);
  if (opts.parentId !== undefined) return parentHomeHash ?? hashKey(opts.parentId);
  return hashKey(id);
}

/** True when this instance is the home (primary) of the artifact in the view behind `router`. */
export function isHomeHere(router: ConsistentHashRouter, a: Pick<Artifact, 'homeHash'>, selfName: string): boolean {
  return router.home(a.homeHash) === selfName;
}
