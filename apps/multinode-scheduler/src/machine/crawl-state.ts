/**
 * Where a collection's crawl stands at the multinode scheduler, for the admin API: its state and epoch, what waits
 * here, its routes, and whether it is done (nothing waits here, it is not suspended, and the nodes have settled).
 */
import { FSCMT_CONF_STATES } from '@esp/codecs';
import type { Collection } from './collection-table';

export interface CrawlState {
  state: number;
  epoch: number;
  /** Entries waiting here: to be routed, or for their site's DNS answer. */
  queued: number;
  /** site -> node id */
  routes: ReadonlyMap<string, string>;
  /** Nothing waits here, and every node registered reported itself idle for the settle period. */
  done: boolean;
}

/** `nodesSettled`: every registered node reported itself idle for the settle period (CrawlProgress.settled). */
export function crawlStateOf(c: Collection, nodesSettled: boolean): CrawlState {
  let queued = c.queue.length;
  for (const parked of c.parked.values()) queued += parked.length;
  const done = queued === 0 && c.awaitingRoutes.size === 0 && c.state === FSCMT_CONF_STATES.ACTIVE && nodesSettled;
  return { state: c.state, epoch: c.epoch, queued, routes: c.routes, done };
}
