/**
 * What this node knows of the routes (collection -> site -> the node that crawls it, as CMD_UM_ADD_ROUTE told)
 * and of DNS (host -> IPs, from the routes' addrinfo and from CMD_UM_DNS_REPLY), each answer until it expires.
 */
import type { FscmtAddrinfoResult } from '@esp/codecs';
import type { Clock } from '@esp/timers';
import { hostOf, ipsOf } from './sites';

interface Route {
  nodeId: string;
  addrinfo: FscmtAddrinfoResult;
  expires: number;
}

export class RouteTable {
  /** collection -> site -> route */
  private readonly routes = new Map<string, Map<string, Route>>();
  private readonly dns = new Map<string, { ips: string[]; expires: number }>();

  constructor(private readonly clock: Clock) {}

  owner(collection: string, site: string): string | undefined {
    return this.routes.get(collection)?.get(site)?.nodeId;
  }

  /** A route told by CMD_UM_ADD_ROUTE; returns the node the site was routed to before, if any. */
  add(collection: string, r: { site: string; nodeId: string; addrinfo: FscmtAddrinfoResult; ttl: number }): string | undefined {
    const table = this.routes.get(collection) ?? new Map<string, Route>();
    this.routes.set(collection, table);
    const before = table.get(r.site)?.nodeId;
    table.set(r.site, { nodeId: r.nodeId, addrinfo: r.addrinfo, expires: this.clock.now() + r.ttl * 1000 });
    return before;
  }

  /** The addrinfo a route carries answers for the site's host while its ttl lasts. */
  learnFromRoute(site: string, addrinfo: FscmtAddrinfoResult, ttl: number): void {
    const ips = ipsOf(addrinfo);
    if (ips.length > 0 && ttl > 0) this.dns.set(hostOf(site), { ips, expires: this.clock.now() + ttl * 1000 });
  }

  /** A CMD_UM_DNS_REPLY (a ttl under a second is taken as one). */
  learnFromReply(host: string, addrinfo: FscmtAddrinfoResult, ttl: number): void {
    this.dns.set(host, { ips: ipsOf(addrinfo), expires: this.clock.now() + Math.max(1, ttl) * 1000 });
  }

  /** Whether a DNS answer for the host is held and still lives. */
  resolved(host: string): boolean {
    const dns = this.dns.get(host);
    return dns !== undefined && dns.expires > this.clock.now();
  }

  /** The first IP held for the host (even expired), if any. */
  firstIp(host: string): string | undefined {
    return this.dns.get(host)?.ips[0];
  }

  /** The collection's routes as CMD_UM_ADD_ROUTE (the answer to CMD_UM_ASK_ROUTE) carries them, in batches of 256. */
  batches(collection: string): Array<Array<{ routingAttribute: string; nodeId: string }>> {
    const table = [...(this.routes.get(collection) ?? new Map<string, Route>())];
    const out: Array<Array<{ routingAttribute: string; nodeId: string }>> = [];
    for (let i = 0; i < table.length; i += 256) out.push(table.slice(i, i + 256).map(([site, r]) => ({ routingAttribute: site, nodeId: r.nodeId })));
    return out;
  }

  forget(collection: string): void {
    this.routes.delete(collection);
  }
}
