import type { Logger } from '@esp/logging';
import { ObjectNotExist } from '@esp/middleware';
import { NO_PROCESSORS_LOAD } from '../node-load';
import type { DispatcherHolder, DispatcherNodeRef } from './dispatcher-holder';

type Placed = { id: number; node: DispatcherNodeRef };

export interface SessionPlacementOptions {
  log: Logger;
  holder: DispatcherHolder;
  /** This node holds session `id`. */
  holdsHere: (id: number) => boolean;
  /** This node's get_load. */
  localLoad: () => number;
  /** With session replication: the node id of the session's SSR home (consistent hash over the live distributors). */
  ssrHome: ((id: number) => number | undefined) | undefined;
}

/**
 * Where the master sends a session call (MS-FSCDFT 3.3.4 / 3.6): to the node that holds the session, else its SSR
 * home, else the least loaded node; a node that is gone (object_not_exist) is dropped from the dispatcher node state
 * and the call goes elsewhere.
 */
export class SessionPlacement {
  private readonly homes = new Map<number, number>();

  constructor(private readonly o: SessionPlacementOptions) {}

  async forward<T>(id: number, call: (n: DispatcherNodeRef) => T | Promise<T>): Promise<T> {
    const { holder, log } = this.o;
    for (let attempt = 0; ; attempt++) {
      const target = (await this.homeOf(id)) ?? (await this.ssrHomeNode(id)) ?? (await this.leastLoadedNode());
      try {
        const r = await call(target.node);
        this.homes.set(id, target.id);
        return r;
      } catch (err) {
        if (!(err instanceof ObjectNotExist) || target.id === holder.self.id || attempt >= 3) throw err;
        log.warn({ node: target.id, session: id }, 'dispatcher node is gone; dropping it');
        holder.unregister(target.id);
        this.homes.delete(id);
      }
    }
  }

  forget(id: number): void {
    this.homes.delete(id);
  }

  /**
   * Where session `id` lives: the node recorded for it, else the node whose get_sessions lists it (a session created
   * under a previous master), else none.
   */
  async homeOf(id: number): Promise<Placed | undefined> {
    const { holder } = this.o;
    const home = this.homes.get(id);
    if (home === holder.self.id || this.o.holdsHere(id)) return holder.self;
    const known = home === undefined ? undefined : holder.nodes.get(home);
    if (home !== undefined && known) return { id: home, node: known };
    for (const [nid, proxy] of holder.nodes) {
      const ids = await proxy.get_sessions().catch(() => [] as number[]);
      if (ids.includes(id)) return { id: nid, node: proxy };
    }
    return undefined;
  }

  /**
   * With session replication, a session that no live node holds goes to its SSR home: where a new session's artifact
   * will live, and where the replica timer of a dead distributor's session reactivates it. Not to a home that has no
   * item processor to feed it (processors stay with the node that got them); then the least loaded node takes it
   * (any SSR instance can load an artifact).
   */
  private async ssrHomeNode(id: number): Promise<Placed | undefined> {
    const { holder } = this.o;
    const nid = this.o.ssrHome?.(id);
    if (nid === undefined) return undefined;
    if (nid === holder.self.id) return this.o.localLoad() < NO_PROCESSORS_LOAD ? holder.self : undefined;
    if (!holder.nodes.has(nid)) await holder.discover();
    const proxy = holder.nodes.get(nid);
    if (!proxy) return undefined;
    const load = await proxy.get_load().catch(() => NO_PROCESSORS_LOAD);
    return load < NO_PROCESSORS_LOAD ? { id: nid, node: proxy } : undefined;
  }

  /** The dispatcher_node with the lowest get_load (MS-FSCDFT 3.3.4); this node when it is the least loaded. */
  private async leastLoadedNode(): Promise<Placed> {
    const { holder } = this.o;
    let best = { ...holder.self, load: this.o.localLoad() };
    for (const [id, proxy] of holder.nodes) {
      const load = await proxy.get_load().catch(() => Number.POSITIVE_INFINITY);
      if (load < best.load) best = { id, load, node: proxy };
    }
    if (best.load >= NO_PROCESSORS_LOAD && (await holder.discover()) > 0) return this.leastLoadedNode();
    return best;
  }
}
