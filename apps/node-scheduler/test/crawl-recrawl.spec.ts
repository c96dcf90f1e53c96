/**
 * Recrawls of a real local site: CMD_ADM_CONF_REFRESH and the `refresh` interval start a crawl round that asks for
 * every known page again conditionally (ETag, Last-Modified); unchanged pages answer 304 and are neither checked nor
 * fed, changed ones are fed again, gone ones (404, a redirect now) are deleted from the index; each page once.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FSCMT_REFRESH_BITS } from '@esp/codecs';
import { waitFor } from '@esp/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlSites, TestSite, untilIdle, waitIdle, type CrawlRun } from './crawl-harness';

const sites: TestSite[] = [];
const runs: CrawlRun[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) r.stop();
  await Promise.all(sites.splice(0).map((s) => s.stop()));
});

const LAST_MODIFIED = 'Tue, 01 Dec 2026 10:00:00 GMT';

/** A site whose pages can change or go; ETags from the content, or only Last-Modified for /c.html. */
function changingSite(): { pages: Map<string, string>; handler: (req: IncomingMessage, res: ServerResponse) => void } {
  const pages = new Map<string, string>([
    ['/', '<a href="/a.html">a</a> <a href="/b.html">b</a> <a href="/c.html">c</a> <a href="/gone.html">g</a> <a href="/moved.html">m</a> <a href="/plain.html">p</a>'],
    ['/a.html', '<p>a, first version</p>'],
    ['/b.html', '<p>b never changes</p>'],
    ['/c.html', '<p>c has a date only</p>'],
    ['/gone.html', '<p>soon gone</p>'],
    ['/moved.html', '<p>soon moved</p>'],
    ['/plain.html', '<p>no validators at all</p>'],
  ]);
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = req.url ?? '/';
    if (path === '/moved.html' && !pages.has(path)) return void res.writeHead(301, { location: '/new.html' }).end();
    const body = pages.get(path);
    if (body === undefined) return void res.writeHead(404).end();
    if (path === '/plain.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    if (path === '/c.html') {
      if (req.headers['if-modified-since'] === LAST_MODIFIED) return void res.writeHead(304).end();
      return void res.writeHead(200, { 'content-type': 'text/html', 'last-modified': LAST_MODIFIED }).end(body);
    }
    const etag = `"${createHash('md5').update(body).digest('hex')}"`;
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
    res.writeHead(200, { 'content-type': 'text/html', etag }).end(body);
  };
  return { pages, handler };
}

describe('recrawl', () => {
  it('CMD_ADM_CONF_REFRESH: each known page asked for once, conditionally; 304s cost no feed, changes are fed, gone pages deleted', async () => {
    const { pages, handler } = changingSite();
    const site = await TestSite.start(handler);
    sites.push(site);
    const run = crawlSites({ sites: [site], start: [`${site.base}/`] });
    runs.push(run);
    await untilIdle(run);
    const u = (p: string): string => `${site.base}${p}`;
    expect([...run.fed.keys()].sort()).toEqual(['/', '/a.html', '/b.html', '/c.html', '/gone.html', '/moved.html', '/plain.html'].map(u).sort());
    expect(site.requests.every((r) => r.headers['if-none-match'] === undefined && r.headers['if-modified-since'] === undefined)).toBe(true);

    pages.set('/a.html', '<p>a, second version</p> <a href="/b.html">b again</a> <a href="/fresh.html">new</a>');
    pages.set('/fresh.html', '<p>a page new in this round</p>');
    pages.set('/new.html', '<p>where moved.html went</p>');
    pages.delete('/gone.html');
    pages.delete('/moved.html');
    const firstRound = site.requests.length;
    const feedsBefore = run.feeds.length;
    run.recv({ command: 'CMD_ADM_CONF_REFRESH', dspecName: 'web', refresh: { subcollection: null, mask: FSCMT_REFRESH_BITS.REFRESH_COLLECTION } });
    await untilIdle(run);

    const round = site.requests.slice(firstRound).filter((r) => r.path !== '/robots.txt' && r.path !== '/sitemap.xml');
    // every known page once, and the pages new in this round once
    expect(round.map((r) => r.path).sort()).toEqual(['/', '/a.html', '/b.html', '/c.html', '/fresh.html', '/gone.html', '/moved.html', '/new.html', '/plain.html']);
    const sent = (p: string): IncomingMessage['headers'] => round.find((r) => r.path === p)!.headers;
    expect(sent('/b.html')['if-none-match']).toMatch(/^"[0-9a-f]{32}"$/);
    expect(sent('/c.html')['if-modified-since']).toBe(LAST_MODIFIED);
    expect(sent('/fresh.html')['if-none-match']).toBeUndefined();
    // only what changed or is new is fed again (plain.html came whole, with the checksum it was fed with)
    expect(run.feeds.slice(feedsBefore).sort()).toEqual(['/a.html', '/fresh.html', '/new.html'].map(u));
    expect(new TextDecoder().decode(run.fed.get(u('/a.html'))!.body)).toContain('second version');
    expect(run.deleted.sort()).toEqual(['/gone.html', '/moved.html'].map(u));
    expect(run.machine.stats('web')).toMatchObject({ unchanged: 4, removed: 2 });

    // a third round: the deleted pages are no longer known as pages, the changed one is unchanged now
    const secondRound = site.requests.length;
    run.recv({ command: 'CMD_ADM_CONF_REFRESH', dspecName: 'web', refresh: { subcollection: null, mask: FSCMT_REFRESH_BITS.REFRESH_COLLECTION } });
    await untilIdle(run);
    expect(run.feeds.length - feedsBefore).toBe(3);
    const third = site.requests.slice(secondRound).filter((r) => r.path.endsWith('.html') || r.path === '/');
    expect(third.map((r) => r.path).sort()).toEqual(['/', '/a.html', '/b.html', '/c.html', '/fresh.html', '/gone.html', '/moved.html', '/new.html', '/plain.html']);
    expect(run.machine.stats('web')).toMatchObject({ unchanged: 4 + 7, removed: 2 });
  });

  it('the refresh setting (minutes) starts rounds by itself; a reprocess is not conditional (the pages are fed again)', async () => {
    const { handler } = changingSite();
    const site = await TestSite.start(handler);
    sites.push(site);
    // 0.02 minutes: a round every 1.2 s
    const run = crawlSites({ sites: [site], start: [`${site.base}/`], dspec: [['delay', 0], ['refresh', 0.02]] });
    runs.push(run);
    // the machine's timers (the refresh tick among them)
    run.machine.start();
    await waitFor(() => (site.hits('/b.html') >= 2 ? true : undefined), { timeoutMs: 10_000, what: 'a second round' });
    await untilIdle(run);
    expect(site.requests.filter((r) => r.path === '/b.html')[1]!.headers['if-none-match']).toBeDefined();
    expect(run.feeds.filter((f) => f.endsWith('/b.html'))).toHaveLength(1);

    const feeds = run.feeds.length;
    run.recv({ command: 'CMD_UM_REPROCESS_SITE', dspecName: 'web', data: { site: site.host, uriPrefix: `${site.base}/b.html`, destination: null, exactMatch: true } });
    await waitFor(() => (run.feeds.length > feeds ? true : undefined), { timeoutMs: 5_000, what: 'b.html fed again' });
    expect(run.feeds.slice(feeds)).toEqual([`${site.base}/b.html`]);
    expect(site.requests.at(-1)!.headers['if-none-match']).toBeUndefined();
    await waitIdle(run);
  });
});
