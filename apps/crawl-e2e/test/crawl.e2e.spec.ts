import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { sleep, waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { crawlFixture, expectSearchable } from './crawl-fixture';

const crawl = crawlFixture({ hosts: 4, pagesPerHost: 60 }, { nodes: 2, delaySeconds: 0.01, feed: true });

describe('a two-node crawl of generated local sites, fed into the indexer', () => {
  it('fetches every allowed page exactly once, no excluded one, keeps one owner per duplicate group, and makes the pages searchable', async () => {
    const { sites, cluster, client } = crawl;
    // the crawl is done when every expected URL was fetched and nothing more came for a while
    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) > 0), {
      timeoutMs: 90_000,
      what: `all ${sites.expectedFetches.size} pages fetched (have ${sites.totalHits})`,
    });
    const doneAt = Date.now();
    await sleep(1500);
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(1);
    for (const u of sites.excluded) expect(sites.hits.get(u), u).toBeUndefined();
    expect(sites.totalHits).toBe(sites.expectedFetches.size);

    // both node schedulers crawled, and between them fetched every page (progress lines come every 2 s)
    const fetchedBy = await waitFor(
      () => {
        // an idle line of the crawled collection from after the last fetch (an idle line from before the node got
        // work says nothing; one from while pages were still being processed has not counted them all)
        const last = cluster.nodes.map((n) =>
          [...n.logs].reverse().find((l) => l['msg'] === 'crawl progress' && l['collection'] === 'web' && l['idle'] === true && Date.parse(String(l['time'])) >= doneAt),
        );
        return last.every((l) => l !== undefined) ? last.map((l) => (l!['fetched'] as number) + (l!['redirects'] as number)) : undefined;
      },
      { timeoutMs: 10_000, what: 'an idle progress line from each node scheduler' },
    );
    expect(fetchedBy.every((n) => n > 0)).toBe(true);
    expect(fetchedBy.reduce((a, b) => a + b, 0)).toBe(sites.expectedFetches.size);

    // searchable: exactly one document per content (the owner of each duplicate group), found by its token
    await expectSearchable(client, sites);
  }, 150_000);

  it('removing the collection (SIGHUP reload): CMD_UM_DELETE_OK ends it at the scheduler, the duplicate server drops it, its pages leave the index', async () => {
    const { sites, cluster, client } = crawl;
    cluster.reload('<CrawlerConfig><DomainSpecification name="spare"><attrib name="delay" type="real">1</attrib></DomainSpecification></CrawlerConfig>');
    await waitFor(() => cluster.mns.logs.find((l) => l['msg'] === 'configuration reloaded' && (l['removed'] as string[]).includes('web')));
    await waitFor(() => cluster.mns.logs.find((l) => l['msg'] === 'collection removed' && l['collection'] === 'web'), { timeoutMs: 20_000 });
    // PPDUP_CONF_REMOVE (checksums deleted), then PPDUP_CONF_REMOVE2 (collection forgotten) at the duplicate server
    await waitFor(() => cluster.dup.logs.find((l) => l['msg'] === 'collection removal started' && l['collection'] === 'web'));
    await waitFor(() => cluster.dup.logs.find((l) => l['msg'] === 'collection removed' && l['collection'] === 'web'));
    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    await waitFor(async () => (await search.count('web')) === 0, { timeoutMs: 30_000, what: 'the crawled pages removed from the index' });
    expect(sites.totalHits).toBe(sites.expectedFetches.size); // nothing was fetched again
  }, 90_000);
});
