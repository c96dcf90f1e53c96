/**
 * What each node scheduler has queued and in flight per collection, from the progress its CMD_UM_STAT carries
 * beside the counters (absolute values, the node's `progress` entry), and per site the pages fetched and queued, its
 * fetch errors (the last one's reason) and why it is held back and until when.
 * From them: is the crawl done? A node counts as settled for a collection once it reported nothing queued and
 * nothing in flight at least twice in a row over at least the settle period, with no entry handed to it since the
 * first of those reports (an entry resets its streak: a report may have left the node before the entry reached it).
 */
import { FswcuDict, type FswcuValue } from '@esp/codecs';
import type { Clock } from '@esp/timers';

/** How long every node must stay idle before a crawl counts as done (unless configured). */
export const DEFAULT_SETTLE_MS = 3000;

export interface NodeProgress {
  queued: number;
  inFlight: number;
  reportedAt: number;
  /** When the current run of idle reports began (undefined: the last report was not idle, or none since a reset). */
  idleSince: number | undefined;
  idleReports: number;
}

export interface SiteProgress {
  fetched: number;
  queued: number;
  /** Fetch errors of the site, and the last one's reason (the node's words). */
  errors: number;
  lastError: string | undefined;
  /** Why the node holds the site back (robots.txt unreachable...), and until when (this clock's time). */
  held: { reason: string; until: number } | undefined;
}

const text = (v: FswcuValue): string | undefined => (v instanceof Uint8Array ? new TextDecoder().decode(v) : typeof v === 'string' ? v : undefined);
const num = (v: FswcuValue | undefined): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0);

export class CrawlProgress {
  /** collection -> node id -> progress */
  private readonly nodes = new Map<string, Map<string, NodeProgress>>();
  /** collection -> site -> progress */
  private readonly sites = new Map<string, Map<string, SiteProgress>>();

  constructor(
    private readonly clock: Clock,
    readonly settleMs = DEFAULT_SETTLE_MS,
  ) {}

  /** The progress part of a CMD_UM_STAT (ignored when the node sent none). */
  report(collection: string, nodeId: string, stats: FswcuDict): void {
    const progress = stats.getText('progress');
    if (!(progress instanceof FswcuDict)) return;
    const now = this.clock.now();
    const byNode = this.nodes.get(collection) ?? new Map<string, NodeProgress>();
    this.nodes.set(collection, byNode);
    const p = byNode.get(nodeId) ?? { queued: 0, inFlight: 0, reportedAt: now, idleSince: undefined, idleReports: 0 };
    byNode.set(nodeId, p);
    p.queued = num(progress.getText('queued'));
    p.inFlight = num(progress.getText('in_flight'));
    p.reportedAt = now;
    if (p.queued === 0 && p.inFlight === 0) {
      p.idleSince ??= now;
      p.idleReports++;
    } else {
      p.idleSince = undefined;
      p.idleReports = 0;
    }
    const sites = progress.getText('sites');
    if (!(sites instanceof FswcuDict)) return;
    const bySite = this.sites.get(collection) ?? new Map<string, SiteProgress>();
    this.sites.set(collection, bySite);
    for (const [k, v] of sites.entries) {
      const site = text(k);
      if (site === undefined || !(v instanceof FswcuDict)) continue;
      const held = text(v.getText('held') ?? 0);
      bySite.set(site, {
        fetched: num(v.getText('fetched')),
        queued: num(v.getText('queued')),
        errors: num(v.getText('errors')),
        lastError: text(v.getText('last_error') ?? 0),
        held: held === undefined ? undefined : { reason: held, until: now + num(v.getText('held_ms')) },
      });
    }
  }

  /** An entry of the collection was handed to the node: its idle streak starts again. */
  handedOut(collection: string, nodeId: string): void {
    const p = this.nodes.get(collection)?.get(nodeId);
    if (p) {
      p.idleSince = undefined;
      p.idleReports = 0;
    }
  }

  /** The collection's crawl changed (created, updated, resumed): every node must report idle anew. */
  reset(collection: string): void {
    for (const p of this.nodes.get(collection)?.values() ?? []) {
      p.idleSince = undefined;
      p.idleReports = 0;
    }
  }

  forget(collection: string): void {
    this.nodes.delete(collection);
    this.sites.delete(collection);
  }

  of(collection: string, nodeId: string): NodeProgress | undefined {
    return this.nodes.get(collection)?.get(nodeId);
  }

  sitesOf(collection: string): Map<string, SiteProgress> {
    return this.sites.get(collection) ?? new Map();
  }

  /** Every one of these nodes reported itself idle for the collection, twice at least, over the settle period. */
  settled(collection: string, nodeIds: string[]): boolean {
    if (nodeIds.length === 0) return false;
    const now = this.clock.now();
    return nodeIds.every((id) => {
      const p = this.of(collection, id);
      return p !== undefined && p.idleSince !== undefined && p.idleReports >= 2 && now - p.idleSince >= this.settleMs;
    });
  }
}
