/**
 * The duplicate server primary killed (SIGKILL) in the middle of a crawl: the node schedulers take it for dead
 * (operations waiting with no word from it), move to its replica, and the crawl finishes with one owner per
 * duplicate group. All parts are separate processes on a real nats-server.
 */
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { sleep, waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { crawlFixture } from './crawl-fixture';

const crawl = crawlFixture({ hosts: 4, pagesPerHost: 60 }, { nodes: 2, delaySeconds: 0.03, feed: true, dupReplicaDeadMs: 2000 });

describe('the duplicate server primary killed (SIGKILL) mid-crawl, node schedulers configured with its replica', () => {
  it('the replica takes over: the crawl finishes, every allowed page fetched once, one owner per duplicate group, pages searchable', async () => {
    const { sites, cluster, client } = crawl;
    const expected = sites.expectedFetches.size;
    await waitFor(() => sites.totalHits >= expected / 4, { timeoutMs: 60_000, what: `a quarter of the ${expected} pages fetched (have ${sites.totalHits})` });
    await cluster.dup.kill();
    const atKill = sites.totalHits;

    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) > 0), {
      timeoutMs: 90_000,
      what: `all ${expected} pages fetched after the primary died (have ${sites.totalHits}; ${atKill} at the kill)`,
    });
    await sleep(1500);
    // a page whose checksum was waiting on the dead primary is not fetched again: its add is sent to the replica
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(1);
    for (const u of sites.excluded) expect(sites.hits.get(u), u).toBeUndefined();
    expect(sites.totalHits).toBe(expected);

    // the nodes that had work for the duplicate server after the kill moved to the replica (a node with nothing to
    // ask it has no reason to conclude anything); at least one did, and the replica answered checksum messages
    const movedLines = cluster.nodes.flatMap((n) => n.logs.filter((l) => l['msg'] === 'duplicate server primary taken for dead: the replica serves from now on'));
    expect(movedLines.length).toBeGreaterThan(0);
    console.info(`dup takeover: fetched at kill=${atKill}, nodes moved=${movedLines.length}, operations sent again=${movedLines.reduce((n, l) => n + (l['inFlight'] as number), 0)}`);

    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    const distinctContents = sites.contentPages.size - sites.duplicateGroups.reduce((n, g) => n + g.length - 1, 0);
    await waitFor(async () => (await search.count('web')) === distinctContents, { timeoutMs: 30_000, what: `${distinctContents} documents in the index` });
    for (const group of sites.duplicateGroups) {
      const present = await Promise.all(group.map((u) => search.get('web', u)));
      expect(present.filter((d) => d !== null).length, group.join(' ')).toBe(1);
    }
    for (const url of [...sites.contentPages].filter((_, i) => i % 25 === 0)) {
      const r = await search.search('web', sites.tokenOf.get(url)!, 5, 0);
      expect(r.hits.length).toBe(1);
    }
  }, 180_000);
});
