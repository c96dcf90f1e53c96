/**
 * The duplicate server primary killed (SIGKILL) in the middle of a crawl: the node schedulers take it for dead
 * (operations waiting with no word from it), move to its replica, and the crawl finishes with one owner per
 * duplicate group. All parts are separate processes on a real nats-server.
 */
import { sleep, waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { crawlFixture, expectSearchable } from './crawl-fixture';

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

    await expectSearchable(client, sites);
  }, 180_000);
});
