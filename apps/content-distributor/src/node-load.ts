import type { ProcessorPool } from './dispatch/processor-pool';

/** get_load of a node without a live item processor: the highest long, so no session is placed there while another can feed. */
export const NO_PROCESSORS_LOAD = 2 ** 31 - 1;

/**
 * The load state of a node (MS-FSCDFT 3.5.1): sessions plus batches in flight. A node with no live item processor
 * can feed nothing, so it reports the highest load and gets a session only when no node has processors (yet).
 */
export function nodeLoad(sessions: number, pool: ProcessorPool): number {
  if (pool.all().every((p) => p.dead || p.terminating)) return NO_PROCESSORS_LOAD;
  return sessions + pool.inFlightBatches;
}
