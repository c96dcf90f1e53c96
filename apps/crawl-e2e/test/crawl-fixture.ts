/**
 * The setup the crawl e2e files share: generated sites, a whole crawl cluster on them (separate processes) and a
 * middleware client for searching, started before the file's tests and stopped after them.
 *
 *   const crawl = crawlFixture({ hosts: 4, pagesPerHost: 60 }, { nodes: 2, delaySeconds: 0.01, feed: true });
 *   it('...', async () => { const { sites, cluster, client } = crawl; ... });
 */
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { LocalWebSites, waitFor, type LocalWebSitesOptions } from '@esp/testing';
import { afterAll, beforeAll, expect } from 'vitest';
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

/**
 * The crawled pages are searchable in collection `web`: exactly one document per content (the owner of each
 * duplicate group), and every 25th content page found by its token.
 */
export async function expectSearchable(client: Middleware, sites: LocalWebSites): Promise<void> {
  const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
  const distinctContents = sites.contentPages.size - sites.duplicateGroups.reduce((n, g) => n + g.length - 1, 0);
  await waitFor(async () => (await search.count('web')) === distinctContents, { timeoutMs: 30_000, what: `${distinctContents} documents in the index` });
  for (const group of sites.duplicateGroups) {
    const present = await Promise.all(group.map((u) => search.get('web', u)));
    expect(present.filter((d) => d !== null).length, group.join(' ')).toBe(1);
  }
  for (const url of [...sites.contentPages].filter((_, i) => i % 25 === 0)) {
    const r = await search.search('web', sites.tokenOf.get(url) as string, 5, 0);
    expect(r.hits.length).toBe(1);
  }
}
