/**
 * The crawl permission of a site: a site is crawled only after CMD_UM_START_CRAWL_IP allowed its IP (asked once per
 * site, with the IP from the route's addrinfo or a CMD_UM_DNS_REQUEST); a refusal blocks the site for `BLOCK_MS`,
 * its entries staying queued in front. A site released gives its IP back with CMD_UM_STOP_CRAWL_IP.
 *
 *   new -> resolving -> asking -> active | blocked -> (released) new
 */
import { FSCMT_CONF_STATES } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Clock } from '@esp/timers';
import type { Collection, CollectionTable, Site } from './collection-table';
import type { MnsLink } from './mns-link';
import type { RouteTable } from './route-table';
import { isIp } from './sites';

export const BLOCK_MS = 30 * 60_000;

export interface SitePermissionsDeps {
  clock: Clock;
  mns: MnsLink;
  routes: RouteTable;
  collections: CollectionTable;
  /** 'ip' (the spec): crawl permission per IP. 'ip-port': per IP and port, for several sites on one loopback IP. */
  ipKey?: 'ip' | 'ip-port';
  /** Work may be available (the crawler wakes up). */
  work: () => void;
  log?: Logger;
}

export class SitePermissions {
  constructor(private readonly deps: SitePermissionsDeps) {}

  /** A site with entries and no permission: its IP is looked up (unless known) and then asked for. */
  activate(c: Collection, s: Site): void {
    if (isIp(s.host)) return this.askIp(c, s, s.host);
    if (this.deps.routes.resolved(s.host)) return this.askIp(c, s);
    s.state = 'resolving';
    this.deps.mns.send({ command: 'CMD_UM_DNS_REQUEST', dspecName: c.name, site: s.host }, 1);
  }

  /** A CMD_UM_DNS_REPLY came for the host: the sites waiting for it ask for their IP. */
  resolved(host: string): void {
    for (const c of this.deps.collections.values()) {
      for (const s of c.sites.values()) if (s.state === 'resolving' && s.host === host) this.askIp(c, s);
    }
  }

  /** The answer to CMD_UM_START_CRAWL_IP for a site that asked. */
  grant(c: Collection, s: Site, allowed: boolean): void {
    if (s.state !== 'asking') return;
    if (allowed) {
      s.state = 'active';
      this.deps.work();
    } else {
      // 2.2.3.22: not allowed blocks the site for 30 minutes; its entries stay queued, in front
      s.state = 'blocked';
      s.blockedUntil = this.deps.clock.now() + BLOCK_MS;
      this.deps.log?.info({ collection: c.name, site: s.site, ip: s.ip }, 'crawl of the site refused: blocked for 30 minutes');
    }
  }

  /** The site stops being crawled: its IP goes back, and it asks again at once if it still has entries. */
  release(c: Collection, s: Site): void {
    if (s.state === 'active' && s.ip !== undefined) this.deps.mns.send({ command: 'CMD_UM_STOP_CRAWL_IP', dspecName: c.name, data: { ip: s.ip, site: s.site } });
    s.state = 'new';
    if (s.queue.length > 0 && c.state !== FSCMT_CONF_STATES.REMOVING) this.activate(c, s);
  }

  /** Sends again the DNS and permission requests still unanswered (the scheduler may have lost them); how many. */
  resendPending(): number {
    let asked = 0;
    for (const c of this.deps.collections.values()) {
      for (const s of c.sites.values()) {
        if (s.state === 'resolving') this.deps.mns.send({ command: 'CMD_UM_DNS_REQUEST', dspecName: c.name, site: s.host }, 1);
        else if (s.state === 'asking' && s.ip !== undefined) this.deps.mns.send({ command: 'CMD_UM_START_CRAWL_IP', dspecName: c.name, data: { ip: s.ip, site: s.site, storeId: 0 } }, 1);
        else continue;
        asked++;
      }
    }
    return asked;
  }

  private askIp(c: Collection, s: Site, ip?: string): void {
    const address = ip ?? this.deps.routes.firstIp(s.host);
    if (address === undefined) {
      this.deps.log?.info({ collection: c.name, site: s.site }, 'site does not resolve: its entries are dropped');
      c.stats.errors += s.queue.length;
      this.deps.collections.dropped(c, s.site, s.queue.splice(0));
      s.state = 'new';
      return;
    }
    s.ip = this.deps.ipKey === 'ip-port' ? `${address}:${s.port}` : address;
    s.state = 'asking';
    this.deps.mns.send({ command: 'CMD_UM_START_CRAWL_IP', dspecName: c.name, data: { ip: s.ip, site: s.site, storeId: 0 } }, 1);
  }
}
