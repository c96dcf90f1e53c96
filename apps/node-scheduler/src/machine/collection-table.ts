/**
 * The collections this node crawls, each with its configuration, state, per-site crawl queues and counters. A
 * configuration that does not parse is refused (logged here and to the multinode scheduler) and changes nothing.
 */
import { FSCMT_CONF_STATES, type FscmtQueueEntry, type FswcuDict } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import { crawlSettings, type CrawlSettings } from '../crawl-settings';
import { noStats, type CrawlStats } from './crawl-stats';
import type { MnsLink } from './mns-link';
import type { NodeStore } from '../store/node-store';

export type SiteState = 'new' | 'resolving' | 'asking' | 'active' | 'blocked';

export interface Site {
  site: string;
  host: string;
  port: number;
  queue: FscmtQueueEntry[];
  state: SiteState;
  ip: string | undefined;
  blockedUntil: number;
  nextAt: number;
  /** A request to the site is in flight. */
  busy: boolean;
  /** Fetched pages whose processing (duplicate check, feeding, links) has not been reported yet. */
  processing: number;
  /**
   * Pages read this round (every 2xx answer, and the unchanged ones of a recrawl): max_doc bounds them. Fetches
   * handed out and not reported yet (`pending`) count against the bound too, so that no more than max_doc are read
   * even while earlier pages are still in processing.
   */
  docs: number;
  /** Fetches handed to the crawler whose outcome is not reported yet. */
  pending: number;
  /** Why the site is held back now (robots.txt unreachable...) and until when (clock time), for the progress report. */
  held: { reason: string; until: number } | undefined;
  /** The last fetch error of the site (its reason, as the crawler gave it), and how many there were. */
  lastError: string | undefined;
  errors: number;
  /** URIs fetched and fed, for delete site / URIs. */
  fetched: Set<string>;
  /** robots.txt's Crawl-delay, when it asks for more than the configured delay (0: none) */
  crawlDelayMs: number;
}

export function newSite(where: { site: string; host: string; port: number }): Site {
  return { ...where, queue: [], state: 'new', ip: undefined, blockedUntil: 0, nextAt: 0, busy: false, processing: 0, docs: 0, pending: 0, held: undefined, lastError: undefined, errors: 0, fetched: new Set(), crawlDelayMs: 0 };
}

export interface Collection {
  name: string;
  dspec: FswcuDict;
  settings: CrawlSettings;
  epoch: number;
  state: number;
  feedingSuspended: boolean;
  sites: Map<string, Site>;
  /** Every URI queued here (each is fetched once per crawl round: a recrawl takes the known ones out again). */
  seen: Set<string>;
  /** URIs fetched here (any answer), with their crawl depth: what a recrawl round fetches again (recrawl.ts). */
  known: Map<string, number>;
  /** When the current crawl round began (the configuration's arrival, then each recrawl): `refresh` counts from it. */
  roundStartedAt: number;
  /**
   * Links handed to the multinode scheduler (each is sent once), by site, with their depth: when a site's route
   * moves to another node (its owner was dropped), they go to the new owner, for they may have died with the old one.
   */
  forwarded: Map<string, Map<string, number>>;
  quarantine: Map<string, number>;
  /** Totals since the collection was added (what this node logs). */
  stats: CrawlStats;
  /** The totals at the previous Statistics Timeout: CMD_UM_STAT carries the difference (3.1.6). */
  statsSent: CrawlStats;
  /** Per site, what the previous progress report said of it (crawl-stats.ts takeProgress). */
  progressSent?: Map<string, string>;
}

export interface CollectionTableDeps {
  mns: MnsLink;
  /** A collection was added / updated. */
  onConfig: (collection: string, dspec: FswcuDict) => void;
  /** Where what must survive a restart is written (the parts write through `store`). */
  store: NodeStore;
  /** The clock's time, for the start of the first crawl round. */
  now?: () => number;
  log?: Logger;
}

export class CollectionTable {
  private readonly byName = new Map<string, Collection>();

  constructor(private readonly deps: CollectionTableDeps) {}

  get store(): NodeStore {
    return this.deps.store;
  }

  /** Entries leave a site's queue unfetched (quarantine, preemption, a limit): not queued after a restart either. */
  dropped(c: Collection, site: string, entries: FscmtQueueEntry[]): void {
    for (const e of entries) this.deps.store.done(c.name, site, e.uri.uri, false, -1);
  }

  get(name: string): Collection | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  values(): IterableIterator<Collection> {
    return this.byName.values();
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  delete(name: string): void {
    this.byName.delete(name);
  }

  /** Applies a configuration; false when it was refused (nothing changed). */
  configure(name: string, dspec: FswcuDict, epoch: number | undefined): boolean {
    let settings: CrawlSettings;
    try {
      settings = crawlSettings(dspec);
    } catch (err) {
      this.deps.log?.error({ collection: name, err: (err as Error).message }, 'crawl configuration refused');
      this.deps.mns.send({ command: 'CMD_UM_LOG', dspecName: name, data: { logFile: 'sc', message: `configuration refused: ${(err as Error).message}` } });
      return false;
    }
    const c = this.byName.get(name);
    if (c) {
      c.dspec = dspec;
      c.settings = settings;
      c.epoch = epoch ?? c.epoch + 1;
    } else {
      this.byName.set(name, {
        name,
        dspec,
        settings,
        epoch: epoch ?? 1,
        state: FSCMT_CONF_STATES.ACTIVE,
        feedingSuspended: false,
        sites: new Map(),
        seen: new Set(),
        known: new Map(),
        roundStartedAt: this.deps.now?.() ?? 0,
        forwarded: new Map(),
        quarantine: new Map(),
        stats: noStats(),
        statsSent: noStats(),
      });
    }
    this.deps.store.putCollection({ name, dspec, epoch: (this.byName.get(name) as Collection).epoch });
    this.deps.onConfig(name, dspec);
    return true;
  }

  /** Sites with work queued or in flight, and whether any is still waiting for something. */
  get idle(): boolean {
    for (const c of this.byName.values()) for (const s of c.sites.values()) if (s.queue.length > 0 || s.busy || s.processing > 0) return false;
    return true;
  }

  /** Quarantines that have run out end. */
  endQuarantines(now: number): void {
    for (const c of this.byName.values()) {
      for (const [site, until] of c.quarantine) if (until <= now) c.quarantine.delete(site);
    }
  }
}
