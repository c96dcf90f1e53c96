/**
 * A crawl of generated sites with what real sites have (LocalWebSites `extras` and `resources`): robots.txt behind a
 * redirect with a Crawl-delay, a sitemap index and a gzipped sitemap, nofollow links and pages, a noindex page,
 * Latin-1 and gzip-encoded pages, a 3 MB page, a stylesheet and images; then a refresh (CMD_ADM_CONF_REFRESH) after
 * some pages changed or went: the known pages are asked for with their ETags, only the changed ones are fed again,
 * the gone ones leave the index. Separate processes, real nats-server, into the indexer; the node archives WARC.
 */
import { readdirSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import { FSCMT_REFRESH_BITS } from '@esp/codecs';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { EXTRAS_CRAWL_DELAY_SECONDS, sleep, waitFor } from '@esp/testing';
import { WARCParser } from 'warcio';
import { describe, expect, it } from 'vitest';
import type { CrawlCluster } from './crawl-cluster';
import { crawlFixture } from './crawl-fixture';

const crawl = crawlFixture({ hosts: 2, pagesPerHost: 12, resources: true, extras: true }, { nodes: 1, delaySeconds: 0.005, feed: true, warc: true });

/** The node's newest "crawl progress" line logged idle after `since`. */
async function idleLine(cluster: CrawlCluster, since: number): Promise<Record<string, number>> {
  const line = await waitFor(
    () => [...cluster.nodes[0]!.logs].reverse().find((l) => l['msg'] === 'crawl progress' && l['collection'] === 'web' && l['idle'] === true && Date.parse(String(l['time'])) >= since),
    { timeoutMs: 15_000, what: 'an idle progress line' },
  );
  return line as unknown as Record<string, number>;
}

describe('a crawl of generated sites with sitemaps, robots rules, encodings, a 3 MB page, then a refresh', () => {
  it('crawls each allowed page once and nothing excluded; indexes what it should; a refresh re-feeds only what changed and removes what went', async () => {
    const { sites, cluster, client } = crawl;
    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) > 0), {
      timeoutMs: 90_000,
      what: `all ${sites.expectedFetches.size} URLs fetched (have ${sites.totalHits})`,
    });
    const first = await idleLine(cluster, Date.now());
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(1);
    // robots.txt (Disallow, meta/rel nofollow, a private page a sitemap lists): never fetched
    for (const u of sites.excluded) expect(sites.hits.get(u), u).toBeUndefined();
    const [home0, home1] = sites.startUris;
    for (const home of [home0!, home1!]) {
      // robots.txt behind its redirect, the sitemap index and both sitemaps: once each
      for (const p of ['robots.txt', 'robots-real.txt', 'sitemap-index.xml', 'sitemap-a.xml', 'sitemap-b.xml.gz']) expect(sites.hits.get(home + p), home + p).toBe(1);
      // Crawl-delay: the pages of a site came at least that far apart
      const times = sites.requestLog.filter((r) => r.url.startsWith(home) && !/\/(robots|sitemap)[^/]*$/.test(r.url)).map((r) => r.at);
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      expect(Math.min(...gaps), home).toBeGreaterThanOrEqual(EXTRAS_CRAWL_DELAY_SECONDS * 1000 - 20);
    }

    // the index: one document per distinct content; the 3 MB page, the Latin-1 page, the sitemap-only pages and the
    // gzip-encoded one found by their tokens; the noindex page, the stylesheet and the images not there
    const distinct = sites.contentPages.size - sites.duplicateGroups.reduce((n, g) => n + g.length - 1, 0);
    await waitFor(async () => (await search.count('web')) === distinct, { timeoutMs: 30_000, what: `${distinct} documents in the index` });
    for (const [url, token] of sites.tokenOf) {
      if (!sites.contentPages.has(url) || sites.duplicateGroups.some((g) => g.includes(url))) continue;
      expect((await search.search('web', token, 5, 0)).hits.map((h) => h.id), token).toEqual([url]);
    }
    const latin = await search.get('web', `${home0}latin1.html`);
    expect(JSON.stringify(latin)).toContain('caf\u00e9 cr\u00e8me d\u00e9j\u00e0 vu');
    for (const url of [...sites.notIndexable, ...sites.noindexPages]) expect(await search.get('web', url), url).toBeNull();
    expect((await search.search('web', 'toknoindexq', 5, 0)).hits).toEqual([]);
    expect((await search.search('web', 'tok0cssq', 5, 0)).hits).toEqual([]);
    expect(first).toMatchObject({ excluded_type: sites.notIndexable.size, noindex: sites.noindexPages.size, excluded_size: 0, unfed: 0, feed_failed: 0, unchanged: 0, removed: 0 });

    // the WARC archive holds a response (and its request) for every page read whole
    const warcDir = cluster.warcDir('node1');
    const responses = new Set<string>();
    let requests = 0;
    for (const f of readdirSync(warcDir)) {
      for await (const r of new WARCParser(createReadStream(join(warcDir, f)))) {
        if (r.warcType === 'response') responses.add(r.warcTargetURI ?? '');
        if (r.warcType === 'request') requests++;
      }
    }
    expect(responses.has(`${home0}big.html`)).toBe(true);
    expect(responses.has(`${home1}res/gzip.html`)).toBe(true);
    expect(requests).toBe(responses.size);

    // some pages change, some go; a refresh: every known page asked for once more
    const { changed, removed } = sites.change();
    await cluster.toNodes(client, { command: 'CMD_ADM_CONF_REFRESH', dspecName: 'web', refresh: { subcollection: null, mask: FSCMT_REFRESH_BITS.REFRESH_COLLECTION } });
    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) >= 2), { timeoutMs: 90_000, what: 'every page fetched a second time' });
    await sleep(300);
    const second = await idleLine(cluster, Date.now());
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(2);
    for (const u of sites.excluded) expect(sites.hits.get(u), u).toBeUndefined();
    // HTML pages with an ETag answered 304, but the changed and the removed ones
    for (const u of sites.expectedFetches) {
      const etagged = (sites.contentPages.has(u) || sites.noindexPages.has(u)) && !u.endsWith('/res/gzip.html');
      expect(sites.notModified.get(u) ?? 0, u).toBe(etagged && !changed.includes(u) ? 1 : 0);
    }
    // only the changed pages were fed again; the removed ones were deleted
    expect(second['fed']! - first['fed']!).toBe(changed.length);
    expect(second['removed']).toBe(removed.length);
    expect(second['unchanged']! - first['unchanged']!).toBeGreaterThan(0);
    await waitFor(async () => (await search.count('web')) === distinct - removed.length, { timeoutMs: 30_000, what: 'the removed pages out of the index' });
    for (const u of removed) expect(await search.get('web', u), u).toBeNull();
    for (const u of changed) {
      expect((await search.search('web', sites.tokenOf.get(u)!, 5, 0)).hits.map((h) => h.id)).toEqual([u]);
      expect(JSON.stringify(await search.get('web', u))).toContain('version 1');
    }
    expect((await search.search('web', 'tok0changing0q', 5, 0)).hits).toEqual([]);
  }, 300_000);
});
