/**
 * The crawl cluster's administration interface (served by the multinode scheduler).
 *
 *   import { crawlAdminInterface, CRAWL_DEFAULTS } from '@esp/interfaces';
 *   const result = await proxy.set_crawl({ collection: 'web', start_uris: ['http://example.com/'], ... });
 */
export * from './crawl-admin';
