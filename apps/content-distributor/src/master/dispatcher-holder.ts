import { ASSIGN_DISPATCHER_NONE_AVAILABLE, DISPATCHER_NAME, dispatcherNodeInterface, dispatcherNodeName, type Implementation, type ProxyOf } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { NO_PROCESSORS_LOAD } from '../node-load';

/** A dispatcher node as the master calls it: this node's own implementation, or a proxy of another node's object. */
export type DispatcherNodeRef = Implementation<typeof dispatcherNodeInterface> | ProxyOf<typeof dispatcherNodeInterface>;

export interface DispatcherHolderOptions {
  mw: Middleware;
  log: Logger;
  nodeId: number;
  /** This node's dispatcher_node, served directly. */
  local: Implementation<typeof dispatcherNodeInterface>;
  /** This node's get_load. */
  localLoad: () => number;
}

/**
 * The master's dispatcher holder and item processing component identifier holder (MS-FSDPD 3.3.1, MS-FSCDFT 3.1.1):
 * the dispatcher nodes registered with it (node id → dispatcher_node; this node is served directly) and the item
 * processors it has assigned. Kept across times as master: an entry of a node that is gone fails fast (no
 * responders) and is dropped when used.
 */
/** How long a processor registering again under a known name waits for a node to show up empty (see assign). */
const REREGISTRATION_SETTLE_MS = 2_000;

export class DispatcherHolder {
  readonly nodes = new Map<number, ProxyOf<typeof dispatcherNodeInterface>>();
  /** The item processors assigned by name, and the node each was given last (undefined: registered directly). */
  private readonly procservers = new Map<string, number | undefined>();

  constructor(readonly o: DispatcherHolderOptions) {}

  get self(): { id: number; node: DispatcherNodeRef } {
    return { id: this.o.nodeId, node: this.o.local };
  }

  async register(nodeId: number): Promise<void> {
    if (nodeId === this.o.nodeId) {
      this.nodes.delete(nodeId);
      return;
    }
    const { proxy } = await this.o.mw.names.resolveProxy(dispatcherNodeInterface, dispatcherNodeName(nodeId), { timeoutMs: 5000 });
    this.nodes.set(nodeId, proxy);
  }

  unregister(nodeId: number): void {
    this.nodes.delete(nodeId);
  }

  registerProcserver(name: string): void {
    if (!this.procservers.has(name)) this.procservers.set(name, undefined);
  }

  unregisterProcserver(name: string): void {
    this.procservers.delete(name);
  }

  /** assign_dispatcher: the node an item processor registers with. */
  async assign(name: string): Promise<number> {
    const seen = this.procservers.has(name);
    const previous = this.procservers.get(name);
    if (!seen) this.procservers.set(name, undefined);
    let { ids, empty } = await this.nodeLoads();
    // a processor registering again under a name seen before was most likely restarted after a crash, and its node
    // may not have declared its old self dead yet (that takes about a second): unless the node it had is known, give
    // the nodes that long to show up empty, or the node would be left without a processor
    if (seen && previous === undefined && !empty.length) {
      const until = Date.now() + REREGISTRATION_SETTLE_MS;
      while (!empty.length && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 200));
        ({ ids, empty } = await this.nodeLoads());
      }
    }
    const chosen = pickNode(ids, empty, previous, this.procservers.size);
    if (chosen !== ASSIGN_DISPATCHER_NONE_AVAILABLE) this.procservers.set(name, chosen);
    return chosen;
  }

  /**
   * The nodes that answer, and those without a live item processor. Every node runs a procserver_handler under its
   * node id; this master's own is always there. A node without any item processor (one that came back after a
   * failover, say) gets the next one: sessions placed on it could not be fed otherwise.
   */
  private async nodeLoads(): Promise<{ ids: number[]; empty: number[] }> {
    const known = [this.o.nodeId, ...this.nodes.keys()];
    const loads = await Promise.all(known.map((id) => (id === this.o.nodeId ? this.o.localLoad() : (this.nodes.get(id)?.get_load().catch(() => -1) ?? -1))));
    // a node that does not answer is gone: drop it rather than send an item processor there
    for (const [i, id] of known.entries()) if (loads[i] === -1) this.nodes.delete(id);
    const ids = known.filter((_, i) => loads[i] !== -1);
    return { ids, empty: ids.filter((id) => loads[known.indexOf(id)] === NO_PROCESSORS_LOAD) };
  }

  /**
   * Just after a takeover the backups have not registered yet (each registers when it notices the new master), and
   * the item processors are on their nodes. Rather than put a session on a node that has none, look up the
   * dispatcher_node bindings and take in the nodes that answer, as register_dispatcher would. Returns how many.
   */
  async discover(): Promise<number> {
    const { mw, log, nodeId } = this.o;
    const bindings = await mw.names.list(`${DISPATCHER_NAME}/`).catch(() => []);
    let added = 0;
    for (const b of bindings) {
      if (b.aor.interface_type !== dispatcherNodeInterface.type) continue;
      const id = Number(b.name.slice(DISPATCHER_NAME.length + 1));
      if (!Number.isInteger(id) || id === nodeId || this.nodes.has(id)) continue;
      const proxy = mw.proxy(dispatcherNodeInterface, b.aor, { timeoutMs: 5000 });
      const load = await proxy.get_load().catch(() => undefined);
      if (load === undefined) continue;
      this.nodes.set(id, proxy);
      added++;
      log.info({ node: id, load }, 'dispatcher node found in the name server before it registered');
    }
    return added;
  }
}

/**
 * The node for an item processor: a node without one first; else the node it had before, while that node lives (a
 * processor restarted after a crash registers again before its old self is declared dead: sent elsewhere, it would
 * leave its node, and the sessions there, without a processor); else the next in turn.
 */
export function pickNode(ids: readonly number[], empty: readonly number[], previous: number | undefined, turn: number): number {
  if (empty.length) return previous !== undefined && empty.includes(previous) ? previous : (empty[turn % empty.length] as number);
  if (previous !== undefined && ids.includes(previous)) return previous;
  return ids[turn % ids.length] ?? ASSIGN_DISPATCHER_NONE_AVAILABLE;
}
