/**
 * The collections the multinode scheduler crawls (MS-FSCADM side): their configurations and epochs, states, crawl
 * queues, and the lifecycle that every node scheduler is told of (add, update, remove, suspend, resume). Queue
 * entries carry store keys that keep the queue's order across a restart: smaller keys are nearer the front.
 */
import {
  FSCMT_CONF_STATES,
  type FscmtNodeSchedulerMessage,
  type FscmtPriority,
  type FscmtQueueEntry,
  type FswcuDict,
} from '@esp/codecs';
import type { SchedulerStore, StoredSchedulerState } from '../scheduler-store';
import type { NodeStats } from './collection-stats';
import { startEntry } from './sites';

/** A queue entry with its store key (smaller keys are nearer the front). */
export interface Queued {
  key: number;
  entry: FscmtQueueEntry;
}

export interface Collection {
  dspec: FswcuDict;
  epoch: number;
  state: number;
  queue: Queued[];
  /** site -> node id */
  routes: Map<string, string>;
  /** Entries waiting for their site's DNS answer before they can be routed. */
  parked: Map<string, Queued[]>;
  removing: boolean;
  /** node id -> counter -> total: the sum of the deltas the node sent (3.1.6: a CMD_UM_STAT carries a delta). */
  stats: NodeStats;
  /** site -> the entry that made its route (in memory only): a dead owner's site is crawled again from there. */
  routedBy: Map<string, FscmtQueueEntry>;
  /** Nodes asked for their routes (CMD_UM_ASK_ROUTE) whose CMD_UM_LAST_ROUTE has not come: node id -> deadline. */
  awaitingRoutes: Map<string, number>;
}

export interface CollectionTableDeps {
  store: SchedulerStore;
  /** To every node scheduler registered. */
  broadcast: (message: FscmtNodeSchedulerMessage, priority: FscmtPriority) => void;
}

function newCollection(dspec: FswcuDict, epoch: number, state: number, removing: boolean): Collection {
  return { dspec, epoch, state, queue: [], routes: new Map(), parked: new Map(), removing, stats: new Map(), routedBy: new Map(), awaitingRoutes: new Map() };
}

export class CollectionTable {
  private readonly byName = new Map<string, Collection>();
  /** Next store keys for an entry put in front / at the back of a queue. */
  private frontKey = 0;
  private backKey = 1;

  constructor(private readonly deps: CollectionTableDeps) {}

  /** Collections with their epochs and states, queued entries in queue order, and routes, as a previous run stored them. */
  restore(state: StoredSchedulerState): void {
    for (const s of state.collections) this.byName.set(s.name, newCollection(s.dspec, s.epoch, s.state, s.removing));
    for (const e of state.entries) {
      this.frontKey = Math.min(this.frontKey, e.key - 1);
      this.backKey = Math.max(this.backKey, e.key + 1);
      const c = this.byName.get(e.collection);
      if (c && !c.removing) c.queue.push({ key: e.key, entry: e.entry });
      else this.deps.store.deleteEntry(e.key);
    }
    for (const r of state.routes) this.byName.get(r.collection)?.routes.set(r.site, r.node);
    for (const st of state.stats) this.byName.get(st.collection)?.stats.set(st.node, new Map(Object.entries(st.counters)));
  }

  get(name: string): Collection | undefined {
    return this.byName.get(name);
  }

  /** The collection unless it is unknown or being removed. */
  active(name: string): Collection | undefined {
    const c = this.byName.get(name);
    if (!c || c.removing) return undefined;
    return c;
  }

  entries(): IterableIterator<[string, Collection]> {
    return this.byName.entries();
  }

  values(): IterableIterator<Collection> {
    return this.byName.values();
  }

  /** Collections known and not being removed, with their configuration. */
  configs(): Map<string, FswcuDict> {
    return new Map([...this.byName].filter(([, c]) => !c.removing).map(([name, c]) => [name, c.dspec]));
  }

  /** True when the collection was created (its start URIs queued), false when an existing one was updated. */
  add(name: string, dspec: FswcuDict, startUris: string[] = []): boolean {
    const existing = this.byName.get(name);
    if (existing && !existing.removing) {
      this.update(name, dspec);
      return false;
    }
    const c = newCollection(dspec, 1, FSCMT_CONF_STATES.ACTIVE, false);
    this.byName.set(name, c);
    this.save(name, c);
    this.deps.broadcast({ command: 'CMD_ADM_CONF_ADD', dspecName: name, dspec, epoch: c.epoch }, 1);
    for (const uri of startUris) this.enqueue(name, c, startEntry(uri), false);
    return true;
  }

  /** True when the collection was unknown and so created (see `add`). */
  update(name: string, dspec: FswcuDict): boolean {
    const c = this.byName.get(name);
    if (!c) return this.add(name, dspec);
    c.dspec = dspec;
    c.epoch++;
    this.save(name, c);
    this.deps.broadcast({ command: 'CMD_ADM_CONF_UPDATE', dspecName: name, dspec, epoch: c.epoch }, 1);
    return false;
  }

  /** CMD_ADM_CONF_REMOVE to every node; the state goes when a node answers CMD_UM_DELETE_OK (3.2.5.14). */
  remove(name: string): void {
    const c = this.byName.get(name);
    if (!c) return;
    c.removing = true;
    c.state = FSCMT_CONF_STATES.REMOVING;
    c.queue.length = 0;
    c.parked.clear();
    this.save(name, c);
    this.deps.store.deleteEntries(name);
    this.deps.broadcast({ command: 'CMD_ADM_CONF_REMOVE', dspecName: name }, 1);
  }

  /** A node answered CMD_UM_DELETE_OK: true when that ended the removal of the collection. */
  deleted(name: string): boolean {
    if (!this.byName.get(name)?.removing) return false;
    this.byName.delete(name);
    this.deps.store.deleteCollection(name);
    return true;
  }

  suspend(name: string, state: number): void {
    const c = this.byName.get(name);
    if (!c) return;
    c.state = state;
    this.save(name, c);
    this.deps.broadcast({ command: 'CMD_ADM_CONF_SUSPEND', dspecName: name, state }, 1);
  }

  /** False when the collection is unknown. */
  resume(name: string): boolean {
    const c = this.byName.get(name);
    if (!c) return false;
    c.state = FSCMT_CONF_STATES.ACTIVE;
    this.save(name, c);
    this.deps.broadcast({ command: 'CMD_ADM_CONF_RESUME', dspecName: name }, 1);
    return true;
  }

  /** The state a node asks for with CMD_UM_CONF_STATE (an unknown collection is being removed). */
  stateOf(name: string): number {
    return this.byName.get(name)?.state ?? FSCMT_CONF_STATES.REMOVING;
  }

  /** A new entry, stored under a fresh key at the front or the back of the queue. */
  enqueue(name: string, c: Collection, entry: FscmtQueueEntry, front: boolean): void {
    const queued = { key: front ? this.frontKey-- : this.backKey++, entry };
    if (front) c.queue.unshift(queued);
    else c.queue.push(queued);
    this.deps.store.putEntry({ key: queued.key, collection: name, entry });
  }

  /** Stored entries back to the front of their queues under their keys (those of a collection gone leave the store). */
  requeue(items: Array<{ key: number; collection: string; entry: FscmtQueueEntry }>): void {
    for (const it of [...items].reverse()) {
      const c = this.active(it.collection);
      if (c) c.queue.unshift({ key: it.key, entry: it.entry });
      else this.deps.store.deleteEntry(it.key);
    }
  }

  /** The host resolved: the entries parked for it go back to the front of their queues. */
  unpark(host: string): void {
    for (const c of this.byName.values()) {
      const parked = c.parked.get(host);
      if (!parked) continue;
      c.parked.delete(host);
      c.queue.unshift(...parked);
    }
  }

  private save(name: string, c: Collection): void {
    this.deps.store.putCollection({ name, dspec: c.dspec, epoch: c.epoch, state: c.state, removing: c.removing });
  }
}
