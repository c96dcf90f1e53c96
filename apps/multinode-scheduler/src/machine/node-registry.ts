/**
 * The node schedulers registered (by the address of their connection), with what was handed to each: an entry
 * handed out stays in the store until the node's keep-alive answers vouch for it, and is sent again when a round
 * goes unanswered. New sites go to the least-loaded node among those that answer.
 */
import type { FscmtNodeSchedulerMessage, FscmtPriority, FscmtQueueEntry } from '@esp/codecs';
import { KeepaliveOutbox } from '@esp/crawl-bus';
import type { Logger } from '@esp/logging';
import type { SchedulerStore } from '../scheduler-store';
import type { NodeSend } from './node-send';

/** An entry handed out to a node scheduler, under its store key. */
export interface Handed {
  key: number;
  collection: string;
  entry: FscmtQueueEntry;
}

export interface Node {
  id: string;
  address: string;
  /** Keep-alive rounds without an answer. */
  missed: number;
  sites: number;
  /** Entries handed to the node that its keep-alive answers do not vouch for yet: they stay in the store meanwhile. */
  handed: KeepaliveOutbox<Handed>;
}

export interface NodeRegistryDeps {
  send: NodeSend;
  store: SchedulerStore;
  /** Retires a vouched-for entry instead of deleting it from the store at once (see the machine's options). */
  onHandedOut?: (key: number, collection: string, entry: FscmtQueueEntry) => void;
  log?: Logger;
}

export class NodeRegistry {
  private readonly byAddress = new Map<string, Node>();

  constructor(private readonly deps: NodeRegistryDeps) {}

  get size(): number {
    return this.byAddress.size;
  }

  get(address: string): Node | undefined {
    return this.byAddress.get(address);
  }

  withId(id: string): Node | undefined {
    return [...this.byAddress.values()].find((n) => n.id === id);
  }

  values(): IterableIterator<Node> {
    return this.byAddress.values();
  }

  ids(): string[] {
    return [...this.byAddress.values()].map((n) => n.id);
  }

  /** Whether another connection than `address` registered the node id. */
  idTakenElsewhere(nodeId: string, address: string): boolean {
    for (const n of this.byAddress.values()) if (n.id === nodeId && n.address !== address) return true;
    return false;
  }

  add(address: string, nodeId: string, sites: number): void {
    this.byAddress.set(address, { id: nodeId, address, missed: 0, sites, handed: new KeepaliveOutbox<Handed>() });
  }

  /** The node leaves the registry; what it was handed and did not vouch for is the caller's to take back. */
  remove(address: string): Node | undefined {
    const node = this.byAddress.get(address);
    this.byAddress.delete(address);
    return node;
  }

  broadcast(message: FscmtNodeSchedulerMessage, priority: FscmtPriority): void {
    for (const n of this.byAddress.values()) this.deps.send(n.address, message, priority);
  }

  /** Entries handed out and not yet vouched for by their node, over all nodes (what a NATS outage could have lost). */
  get unconfirmedHandedOut(): number {
    let n = 0;
    for (const node of this.byAddress.values()) n += node.handed.size;
    return n;
  }

  handOut(n: Node, h: Handed): void {
    this.deps.send(n.address, { command: 'CMD_UM_URI', dspecName: h.collection, entry: h.entry }, 0);
    const dropped = n.handed.add(h);
    // the bound of the outbox: the oldest entry counts as delivered (what it was before keep-alive confirmation)
    if (dropped) this.retire(dropped);
  }

  resendHanded(n: Node): void {
    const again = n.handed.resend();
    if (again.length === 0) return;
    for (const h of again) this.deps.send(n.address, { command: 'CMD_UM_URI', dspecName: h.collection, entry: h.entry }, 0);
    this.deps.log?.info({ node: n.id, entries: again.length }, 'sent again the entries the node has not confirmed');
  }

  /** The node answered a keep-alive: it is alive, and what it was handed a round before is vouched for. */
  acked(n: Node): void {
    n.missed = 0;
    for (const h of n.handed.ackReceived()) this.retire(h);
  }

  /**
   * The least-loaded node, among those that answered the previous keep-alive round when there are any (`missed` is 1
   * between a keep-alive and its answer): a node going quiet gets no new site while it may be dying.
   */
  pick(): Node {
    let best: Node | undefined;
    const answering = (n: Node): boolean => n.missed <= 1;
    for (const n of this.byAddress.values()) {
      if (!best || (answering(n) && !answering(best)) || (answering(n) === answering(best) && n.sites < best.sites)) best = n;
    }
    return best as Node;
  }

  /** A node vouched for the entry: it leaves the store (through the transport when it keeps a data directory). */
  private retire(h: Handed): void {
    if (this.deps.onHandedOut) this.deps.onHandedOut(h.key, h.collection, h.entry);
    else this.deps.store.deleteEntry(h.key);
  }
}
