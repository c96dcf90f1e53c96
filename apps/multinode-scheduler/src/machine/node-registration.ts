/**
 * CMD_UM_INIT first on a connection: anything else first, a second node id on one connection, or a node id
 * registered on another connection is refused (ignored, logged, and reported through `onRefused` so that a transport
 * can close the connection). A node that registers learns the collections and routes; the same node on the same
 * connection registering again (it lost track of us) is sent again what it has not vouched for. A node id that was
 * dropped and registers again afterwards (over NATS or a new TCP connection) is a new registration.
 */
import type { Logger } from '@esp/logging';
import type { Node, NodeRegistry } from './node-registry';
import type { SiteRouting } from './site-routing';

export interface NodeRegistrationDeps {
  nodes: NodeRegistry;
  routing: SiteRouting;
  onRefused?: (address: string, reason: string) => void;
  log?: Logger;
}

export class NodeRegistration {
  constructor(private readonly deps: NodeRegistrationDeps) {}

  /** CMD_UM_INIT from the address, where `node` is what registered on that connection before, if anything. */
  init(from: string, node: Node | undefined, nodeId: string): void {
    const { nodes, routing, log } = this.deps;
    // the same node on the same connection registering again (it lost track of us) is taken as a re-registration
    if (node && node.id !== nodeId) return this.refuse(from, `second CMD_UM_INIT on one connection (node ${node.id})`);
    if (nodes.idTakenElsewhere(nodeId, from)) return this.refuse(from, `node id ${nodeId} is already registered`);
    // its sites: the routes it holds already (restored from the store, or kept from before)
    if (!node) nodes.add(from, nodeId, routing.sitesOf(nodeId));
    log?.info({ node: nodeId, address: from, again: node !== undefined }, 'node scheduler registered');
    // registering again means it lost track of us: what it had not vouched for may be lost too
    if (node) {
      node.missed = 0;
      nodes.resendHanded(node);
    }
    routing.greet(from, nodeId);
    routing.pump();
  }

  refuse(from: string, reason: string): void {
    this.deps.log?.warn({ from, reason }, 'refused a node scheduler connection');
    this.deps.onRefused?.(from, reason);
  }
}
