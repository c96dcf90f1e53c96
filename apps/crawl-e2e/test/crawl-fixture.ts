/**
 * The setup the crawl e2e files share: generated sites, a whole crawl cluster on them (separate processes) and a
 * middleware client for searching, started before the file's tests and stopped after them.
 *
 *   const crawl = crawlFixture({ hosts: 4, pagesPerHost: 60 }, { nodes: 2, delaySeconds: 0.01, feed: true });
 *   it('...', async () => { const { sites, cluster, client } = crawl; ... });
 */
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { LocalWebSites, type LocalWebSitesOptions } from '@esp/testing';
import { afterAll, beforeAll } from 'vitest';
import { CrawlCluster, type CrawlClusterOptions } from './crawl-cluster';

export interface CrawlFixture {
  readonly sites: LocalWebSites;
  readonly cluster: CrawlCluster;
  readonly client: Middleware;
}

export function crawlFixture(siteOpts: LocalWebSitesOptions, clusterOpts: Omit<CrawlClusterOptions, 'startUris'>): CrawlFixture {
  const f: { sites?: LocalWebSites; cluster?: CrawlCluster; client?: Middleware } = {};
  beforeAll(async () => {
    f.sites = await LocalWebSites.start(siteOpts);
    f.cluster = await CrawlCluster.start({ ...clusterOpts, startUris: f.sites.startUris });
    f.client = await Middleware.connect({ name: 'crawl-e2e', servers: f.cluster.ns.url, logger: createLogger('crawl-e2e', {}, { level: 'warn' }) });
  }, 120_000);
  afterAll(async () => {
    await f.client?.close();
    await f.cluster?.stop();
    await f.sites?.stop();
  });
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the crawl fixture is not started (use it inside a test)');
    return v;
  };
  return {
    get sites() {
      return started(f.sites);
    },
    get cluster() {
      return started(f.cluster);
    },
    get client() {
      return started(f.client);
    },
  };
}
