import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { sleep, waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { crawlFixture, expectSearchable } from './crawl-fixture';

const crawl = crawlFixture({ hosts: 2, pagesPerHost: 15, resources: true }, { nodes: 1, delaySeconds: 0.005, feed: true });

describe('a crawl of sites with stylesheets, images and gzip-compressed pages, fed into the indexer', () => {
  it('fetches each once; indexes the pages (the compressed one decompressed), never the CSS or the PNGs; the stats say so', async () => {
    const { sites, cluster, client } = crawl;
    expect(sites.notIndexable.size).toBe(2 * 3);
    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) > 0), {
      timeoutMs: 60_000,
      what: `all ${sites.expectedFetches.size} URLs fetched (have ${sites.totalHits})`,
    });
    const doneAt = Date.now();
    await sleep(500);
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(1);

    // the pages, the gzip-compressed ones among them, are searchable by their tokens; nothing else is in the index
    await expectSearchable(client, sites);
    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    for (const url of [...sites.contentPages].filter((u) => u.endsWith('/res/gzip.html'))) {
      const r = await search.search('web', sites.tokenOf.get(url)!, 5, 0);
      expect(r.hits.map((h) => h.id), url).toEqual([url]);
    }
    for (const url of sites.notIndexable) expect(await search.get('web', url), url).toBeNull();
    expect((await search.search('web', 'tok0cssq', 5, 0)).hits).toEqual([]);

    // the node scheduler's statistics account for them: fetched, excluded by type, not fed
    const line = await waitFor(
      () =>
        [...cluster.nodes[0]!.logs]
          .reverse()
          .find((l) => l['msg'] === 'crawl progress' && l['collection'] === 'web' && l['idle'] === true && Date.parse(String(l['time'])) >= doneAt),
      { timeoutMs: 10_000, what: 'an idle progress line' },
    );
    expect(line).toMatchObject({ excluded_type: sites.notIndexable.size, excluded_size: 0, unfed: 0, feed_failed: 0 });
    expect((line['fed'] as number) + (line['duplicates'] as number)).toBe(sites.contentPages.size);
  }, 150_000);
});
