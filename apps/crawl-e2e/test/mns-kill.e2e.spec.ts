/**
 * Kill -9 of the multinode scheduler in the middle of a crawl (all parts separate processes on a real nats-server):
 * restarted on its data directory it takes back its collections, queued entries, routes and IP permissions, the node
 * schedulers register again and send what it may have missed, and the crawl finishes as if nothing had happened.
 */
import { sleep, waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { crawlFixture, expectSearchable } from './crawl-fixture';

const crawl = crawlFixture({ hosts: 4, pagesPerHost: 60 }, { nodes: 2, delaySeconds: 0.03, feed: true, mnsData: true, keepaliveMs: 400 });

describe('the multinode scheduler killed (SIGKILL) mid-crawl and restarted on its data directory', () => {
  it('the crawl finishes: every allowed page fetched exactly once, no excluded one, one owner per duplicate group, pages searchable', async () => {
    const { sites, cluster, client } = crawl;
    const expected = sites.expectedFetches.size;
    await waitFor(() => sites.totalHits >= expected / 4, { timeoutMs: 60_000, what: `a quarter of the ${expected} pages fetched (have ${sites.totalHits})` });
    await cluster.mns.kill();
    const atKill = sites.totalHits;
    // down for a while: the node schedulers go on crawling their sites, and the links they forward meanwhile are lost
    // on the bus (nobody listens) until they register again with the restarted scheduler
    await sleep(1500);
    const whileDown = sites.totalHits - atKill;
    await cluster.mns.restart();
    const restored = cluster.mns.logs.findLast((l) => l['msg'] === 'state restored');
    expect(restored, 'the restarted scheduler logs what it took back').toBeDefined();
    expect(restored!['collections']).toBe(2);
    expect(restored!['routes']).toBe(sites.startUris.length); // every site was routed before the kill

    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) > 0), {
      timeoutMs: 90_000,
      what: `all ${expected} pages fetched after the restart (have ${sites.totalHits}; ${atKill} at the kill, ${whileDown} while down)`,
    });
    await sleep(1500);
    // exactly once: a node scheduler's seen set drops what the restarted scheduler or a re-registering node sends again
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(1);
    for (const u of sites.excluded) expect(sites.hits.get(u), u).toBeUndefined();
    expect(sites.totalHits).toBe(expected);

    // both nodes noticed the restart (no keep-alive answer) and registered again, sending what was unconfirmed
    const again = cluster.nodes.map((n) => n.logs.filter((l) => l['msg'] === 'sent again what the multinode scheduler may have missed' && l['init'] === true));
    expect(again.every((lines) => lines.length > 0)).toBe(true);
    const resent = again.flat().reduce((n, l) => n + (l['links'] as number), 0);
    console.info(`mns kill: fetched at kill=${atKill}, while down=${whileDown}, entries restored=${restored!['entries'] as number}, links sent again=${resent}`);
    // no site was given to a second node after the restart (routes came back from the store)
    expect(cluster.mns.logs.filter((l) => l['msg'] === 'conflicting route ignored')).toEqual([]);

    await expectSearchable(client, sites);
  }, 180_000);
});
