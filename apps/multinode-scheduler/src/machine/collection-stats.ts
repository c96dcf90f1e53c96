/**
 * The counters node schedulers report per collection: each CMD_UM_STAT carries a delta (3.1.6), kept here as
 * per-node sums, and the collection's totals over every node that ever reported (a dropped node's counts stay).
 */
import type { FswcuDict } from '@esp/codecs';

/** node id -> counter -> total */
export type NodeStats = Map<string, Map<string, number>>;

/** Adds a CMD_UM_STAT delta to the node's totals (numbers only; anything else in the dict is not a counter). */
export function addStats(stats: NodeStats, nodeId: string, delta: FswcuDict): void {
  const totals = stats.get(nodeId) ?? new Map<string, number>();
  stats.set(nodeId, totals);
  for (const [k, v] of delta.entries) {
    const key = k instanceof Uint8Array ? new TextDecoder().decode(k) : typeof k === 'string' ? k : undefined;
    const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined;
    if (key === undefined || n === undefined) continue;
    totals.set(key, (totals.get(key) ?? 0) + n);
  }
}

/** The sums of every node's counters. */
export function totalStats(stats: NodeStats | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const byNode of stats?.values() ?? []) {
    for (const [k, v] of byNode) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}
