/**
 * Kill -9 of the node schedulers at five random points of a crawl (all parts separate processes on a real
 * nats-server, pages fed into the indexer), each restarted at once with the same id and data directory: every
 * allowed page is fetched, fed and searchable, no excluded one is fetched, and a page is fetched twice only when it
 * was in flight at a kill (the restarted node names those: taken by its crawler, or fed and not acknowledged yet).
 */
import { randomInt } from 'node:crypto';
import { sleep, waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { crawlFixture, expectSearchable } from './crawl-fixture';

const KILLS = 5;
const crawl = crawlFixture({ hosts: 4, pagesPerHost: 40 }, { nodes: 2, delaySeconds: 0.1, feed: true, nodeData: true });

describe('node schedulers killed (SIGKILL) at random points and restarted on their data directories', () => {
  it('the crawl resumes each time: every allowed page fetched and searchable, fetched twice only when in flight at a kill', async () => {
    const { sites, cluster, client } = crawl;
    const expected = sites.expectedFetches.size;
    // kill points: fractions of the crawl, random each run (printed, to replay a failure), both nodes killed
    const points = Array.from({ length: KILLS }, () => 0.05 + randomInt(750) / 1000).sort((a, b) => a - b);
    const victims = [0, 1, 0, 1, randomInt(2)].sort(() => randomInt(3) - 1);
    console.info(`node restarts: kill points ${points.map((p) => p.toFixed(3)).join(' ')}, nodes ${victims.map((v) => v + 1).join(' ')}`);
    const inFlight = new Map<string, number>();
    const restoredQueued: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const at = Math.floor(points[k]! * expected);
      await waitFor(() => sites.totalHits >= at, { timeoutMs: 60_000, what: `${at} of ${expected} pages fetched (have ${sites.totalHits})` });
      await sleep(randomInt(200));
      const node = cluster.nodes[victims[k]!]!;
      await node.kill();
      const hitsAtKill = sites.totalHits;
      const seen = node.logs.length;
      await node.restart();
      const restored = await waitFor(() => node.logs.slice(seen).find((l) => l['msg'] === 'state restored'), { timeoutMs: 30_000, what: 'the restarted node restored its state' });
      for (const u of restored['inFlightUris'] as string[]) inFlight.set(u, (inFlight.get(u) ?? 0) + 1);
      restoredQueued.push(restored['queued'] as number);
      // it resumes: a node restored with entries queued handles them (its sites are not left waiting for ever)
      if ((restored['queued'] as number) > 0) {
        const OUTCOMES = ['fetched', 'redirects', 'excluded', 'errors', 'excluded_type', 'excluded_size', 'noindex'];
        const resumed = (l: Record<string, unknown>): boolean =>
          l['msg'] === 'crawl progress' && l['collection'] === 'web' && (l['idle'] === true || OUTCOMES.some((k) => (l[k] as number) > 0));
        await waitFor(() => node.logs.slice(seen).some(resumed), { timeoutMs: 15_000 }).catch((err: Error) => {
          const lines = node.logs.slice(seen).map((l) => JSON.stringify({ ...l, inFlightUris: undefined }));
          throw new Error(`node${victims[k]! + 1} did not resume after its restart (process running: ${node.running}):\n${lines.join('\n')}`, { cause: err });
        });
      }
      console.info(`kill ${k + 1}: node${victims[k]! + 1} at ${hitsAtKill}/${expected} pages, restored ${JSON.stringify({ ...restored, inFlightUris: undefined })}`);
    }

    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) > 0), {
      timeoutMs: 60_000,
      what: `all ${expected} pages fetched (have ${[...sites.expectedFetches].filter((u) => sites.hits.has(u)).length}; missing ${[...sites.expectedFetches]
        .filter((u) => !sites.hits.has(u))
        .slice(0, 5)
        .join(' ')})`,
    });
    await sleep(1500);
    for (const u of sites.excluded) expect(sites.hits.get(u), u).toBeUndefined();
    // fetched twice only when in flight at a kill, and at most once more per kill it was in flight at
    const twice = [...sites.hits].filter(([u, n]) => n > 1 && !u.endsWith('/robots.txt') && !u.endsWith('/sitemap.xml'));
    for (const [u, n] of twice) expect(n, `${u} fetched ${n} times, in flight at ${inFlight.get(u) ?? 0} kills`).toBeLessThanOrEqual(1 + (inFlight.get(u) ?? 0));
    expect(sites.totalHits).toBeLessThanOrEqual(expected + [...inFlight.values()].reduce((a, b) => a + b, 0));
    // the restarts resumed queues (a crawl killed mid-way has entries queued) rather than starting over
    expect(restoredQueued.some((q) => q > 0)).toBe(true);
    // no node was taken for dead: the sites stayed with their nodes across the restarts
    expect(cluster.mns.logs.filter((l) => l['msg'] === 'node scheduler dropped: its sites go to the live nodes')).toEqual([]);
    console.info(`node restarts: ${expected} pages, fetched ${sites.totalHits}, twice ${twice.length}, in flight at the kills ${inFlight.size}`);

    await expectSearchable(client, sites);
  }, 150_000);
});
