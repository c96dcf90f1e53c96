import type { ActiveEntry } from '../caches';

/**
 * Tree activation rules (2.4.2.5, 2.14.1): a root brings its children along; no child outlives its parent.
 */

/** A child loaded with its parent: activated, or (already active here, its replica taken by the load) replicated again. */
export function childLoadStep(mine: ActiveEntry | undefined, loadedVersion: number): 'activate' | 'replicate-again' {
  return !mine || mine.suspect || mine.a.version < loadedVersion ? 'activate' : 'replicate-again';
}

/**
 * A child activated without its parent here looks for it. Found: kept. Not found the first time: looked for again a
 * grace period later (a parent may be in transfer, or on an instance this view does not show yet). Not found twice:
 * the orphan is removed.
 */
export function orphanStep(parentFound: boolean, second: boolean): 'keep' | 'check-again' | 'remove' {
  if (parentFound) return 'keep';
  return second ? 'remove' : 'check-again';
}
