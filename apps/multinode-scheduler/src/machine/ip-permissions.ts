/**
 * Crawl IP permissions (CMD_UM_START_CRAWL_IP / CMD_UM_STOP_CRAWL_IP): an IP is crawled by one node at a time, for
 * at most `maxSitesPerIp` sites. Each change is written through the store; a dropped node's permissions go.
 */
import type { Logger } from '@esp/logging';
import type { SchedulerStore, StoredSchedulerState } from '../scheduler-store';

export const MAX_SITES_PER_IP = 10;

export interface IpPermissionsDeps {
  store: SchedulerStore;
  maxSitesPerIp?: number;
  log?: Logger;
}

export class IpPermissions {
  /** ip -> the node crawling it and the sites it crawls there */
  private readonly ips = new Map<string, { node: string; sites: Set<string> }>();

  constructor(private readonly deps: IpPermissionsDeps) {}

  restore(rows: StoredSchedulerState['ips']): void {
    for (const r of rows) {
      const rec = this.ips.get(r.ip);
      if (rec) rec.sites.add(r.site);
      else this.ips.set(r.ip, { node: r.node, sites: new Set([r.site]) });
    }
  }

  /** Whether the node may crawl the site on the IP: refused for an IP another node crawls, or one that is full. */
  start(nodeId: string, ip: string, site: string): boolean {
    const rec = this.ips.get(ip);
    const max = this.deps.maxSitesPerIp ?? MAX_SITES_PER_IP;
    let allowed: boolean;
    if (!rec) {
      this.ips.set(ip, { node: nodeId, sites: new Set([site]) });
      this.deps.store.putIp(ip, nodeId, site);
      allowed = true;
    } else if (rec.node !== nodeId) allowed = false;
    else if (rec.sites.has(site) || rec.sites.size < max) {
      if (!rec.sites.has(site)) this.deps.store.putIp(ip, nodeId, site);
      rec.sites.add(site);
      allowed = true;
    } else allowed = false;
    if (!allowed) this.deps.log?.info({ node: nodeId, ip, site, owner: rec?.node }, 'crawl of an IP refused');
    return allowed;
  }

  stop(nodeId: string, ip: string, site: string): void {
    const rec = this.ips.get(ip);
    if (!rec || rec.node !== nodeId) return;
    rec.sites.delete(site);
    if (rec.sites.size === 0) this.ips.delete(ip);
    this.deps.store.deleteIp(ip, site);
  }

  /** A dropped node's permissions go: its IPs are free for the live nodes. */
  dropNode(nodeId: string): void {
    for (const [ip, rec] of this.ips) {
      if (rec.node !== nodeId) continue;
      this.ips.delete(ip);
      this.deps.store.deleteIp(ip);
    }
  }
}
