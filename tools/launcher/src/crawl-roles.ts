/**
 * The launcher's part of the crawl roles: how many node schedulers the profile runs, and the collections file,
 * which keeps the collections a crawl made known (npm run crawl) across restarts of the stack.
 */
import { existsSync, readFileSync } from 'node:fs';

/** Processes of a profile that exist for the crawl only: without node schedulers they have nothing to do. */
export const CRAWL_PROCESSES = ['duplicate-server-replica', 'duplicate-server', 'multinode-scheduler', 'node-scheduler'];

interface ProfileShape {
  processes?: Array<{ name: string; instances?: number }>;
}

/**
 * The profile with `n` node schedulers (the entry named node-scheduler), or with no crawl role at all when `n` is 0.
 * A profile without a node-scheduler entry is left as it is.
 */
export function withCrawlNodes(profile: unknown, n: number): unknown {
  const p = profile as ProfileShape;
  if (!Array.isArray(p.processes) || !p.processes.some((x) => x.name === 'node-scheduler')) return profile;
  if (n === 0) return { ...p, processes: p.processes.filter((x) => !CRAWL_PROCESSES.includes(x.name)) };
  return { ...p, processes: p.processes.map((x) => (x.name === 'node-scheduler' ? { ...x, instances: n } : x)) };
}

export interface CollectionEntry {
  name: string;
  pipeline: string;
}

/** The collections of <home>/config/collections.json, or none when there is no readable file. */
export function readCollectionsFile(path: string): CollectionEntry[] {
  if (!existsSync(path)) return [];
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { collections?: unknown };
    if (!Array.isArray(parsed.collections)) return [];
    return parsed.collections.filter((c): c is CollectionEntry => typeof c?.name === 'string' && typeof c?.pipeline === 'string');
  } catch {
    return [];
  }
}

/** The collections asked for (pipeline "default"), then those the file held besides (a crawl added them). */
export function mergeCollections(existing: CollectionEntry[], asked: string[]): CollectionEntry[] {
  const out: CollectionEntry[] = asked.map((name) => existing.find((c) => c.name === name) ?? { name, pipeline: 'default' });
  for (const c of existing) if (!out.some((o) => o.name === c.name)) out.push(c);
  return out;
}
