/**
 * @esp/crawl-bus: the MS-FSCMT crawl cluster on NATS. Peers (multinode scheduler, node schedulers, duplicate
 * servers, gateway connections) each have an address subject and exchange unchanged FSCMT frames.
 *
 *   import { CrawlEndpoint, crawlAddress } from '@esp/crawl-bus';
 *   const ep = await CrawlEndpoint.start(mw.bus, { self: { cluster: 'default', role: 'ns', id: 'node1' }, onBatch });
 *   ep.send(crawlAddress({ cluster: 'default', role: 'dup', id: 'dup1' }), dict, 0);
 */
export { CRAWL_ROLES, crawlAddress, parseCrawlAddress, parsePeerSpec, type CrawlPeer, type CrawlRole } from './crawl-subjects';
export { PriorityQueue } from './priority-queue';
export { CrawlEndpoint, type CrawlEndpointOptions, type CrawlInbound } from './crawl-endpoint';
export {
  DuplicateServerClient,
  DuplicateServerError,
  DuplicateServerTimeout,
  type DuplicateServerClientOptions,
} from './duplicate-server-client';
export { KeepaliveOutbox, DEFAULT_MAX_OUTBOX } from './keepalive-outbox';
export { crawlControlSubject, decodeCrawlControl, encodeCrawlControl, type CrawlControl } from './crawl-control';
export { crawlStartUris } from './start-uris';
export { crawlAdminAor, crawlAdminSubject } from './crawl-admin';
