/**
 * Where a crawl cluster's administration answers: a middleware server object (crawl::admin, @esp/interfaces)
 * activated by the multinode scheduler on a subject beside its crawl address, so that a client finds it with the
 * cluster name and the scheduler's id alone, without a name server.
 *
 *   const obj = await mw.activateAt(crawlAdminSubject(peer), crawlAdminInterface, impl, crawlAdminAor(peer, host));
 *   const admin = mw.proxyAt(crawlAdminSubject(peer), crawlAdminInterface, crawlAdminAor(peer, 'any'));
 */
import { crawlAdminInterface, type Aor } from '@esp/interfaces';
import { crawlAddress, type CrawlPeer } from './crawl-subjects';

export function crawlAdminSubject(mns: Omit<CrawlPeer, 'role'>): string {
  return `${crawlAddress({ ...mns, role: 'mns' })}.admin`;
}

/** The AOR of a crawl cluster's administration object (the host is informational: the subject addresses it). */
export function crawlAdminAor(mns: Omit<CrawlPeer, 'role'>, host: string): Aor {
  return {
    name: `crawl/${mns.cluster}/admin`,
    object_id: `crawl_admin/${mns.id}`,
    host,
    port: 0,
    interface_type: crawlAdminInterface.type,
    interface_version: crawlAdminInterface.version,
  };
}
