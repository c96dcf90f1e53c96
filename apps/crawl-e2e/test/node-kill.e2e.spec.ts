/**
 * Kill -9 of one of two node schedulers in the middle of a crawl (all parts separate processes on a real
 * nats-server): the multinode scheduler sees its keep-alives go unanswered, drops it and routes its sites to the
 * other node, which crawls them anew from their start URIs, the entries they were first routed with, and the links
 * it had forwarded to them. Every allowed page of the dead node's sites is fetched in the end; restarted with the same
 * id, the node is taken back.
 */
import { sleep, waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { crawlFixture } from './crawl-fixture';

const crawl = crawlFixture({ hosts: 4, pagesPerHost: 60 }, { nodes: 2, delaySeconds: 0.03, feed: false, keepaliveMs: 400 });

describe('a node scheduler killed (SIGKILL) mid-crawl', () => {
  it('the other node takes its sites over: every allowed page fetched, no excluded one', async () => {
    const { sites, cluster } = crawl;
    const expected = sites.expectedFetches.size;
    await waitFor(() => sites.totalHits >= expected / 4, { timeoutMs: 60_000, what: `a quarter of the ${expected} pages fetched (have ${sites.totalHits})` });
    const [dead, live] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    await dead.kill();
    const atKill = sites.totalHits;
    const killedAt = Date.now();

    await waitFor(() => cluster.mns.logs.some((l) => l['msg'] === 'node scheduler dropped: its sites go to the live nodes' && l['node'] === 'node1'), {
      timeoutMs: 15_000,
      what: 'node1 dropped by the multinode scheduler',
    });
    const dropped = cluster.mns.logs.find((l) => l['msg'] === 'node scheduler dropped: its sites go to the live nodes')!;
    expect(String(dropped['reason'])).toMatch(/keep-alives unanswered/);
    expect(dropped['sites']).toBeGreaterThan(0);
    const droppedAfterMs = Date.now() - killedAt;

    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) > 0), {
      timeoutMs: 90_000,
      what: `all ${expected} pages fetched after the kill (have ${[...sites.expectedFetches].filter((u) => (sites.hits.get(u) ?? 0) > 0).length}; missing ${[...sites.expectedFetches]
        .filter((u) => !sites.hits.get(u))
        .slice(0, 5)
        .join(' ')})`,
    });
    await sleep(1000);
    for (const u of sites.excluded) expect(sites.hits.get(u), u).toBeUndefined();
    // the live node took the sites: it logged the routes that moved to it
    expect(live.logs.some((l) => l['msg'] === 'a site moved to another node: its links follow it' && l['to'] === 'node2')).toBe(true);
    const refetched = [...sites.expectedFetches].filter((u) => (sites.hits.get(u) ?? 0) > 1).length;
    console.info(
      `node kill: ${expected} pages, fetched at kill=${atKill}, dropped after ~${droppedAfterMs} ms, sites moved=${dropped['sites'] as number}, entries requeued=${dropped['requeued'] as number}, pages fetched twice=${refetched}`,
    );

    // the dead node restarted with the same id over NATS: taken back as a new node (no refusal)
    await dead.restart();
    await waitFor(() => cluster.mns.logs.filter((l) => l['msg'] === 'node scheduler registered' && l['node'] === 'node1').length >= 2, {
      timeoutMs: 30_000,
      what: 'node1 registered again after its restart',
    });
    expect(cluster.mns.logs.filter((l) => l['msg'] === 'refused a node scheduler connection')).toEqual([]);
  }, 180_000);
});
