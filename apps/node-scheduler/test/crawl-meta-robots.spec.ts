/**
 * Page-level robots directives in a crawl of a real local site: noindex pages are fetched and their links followed
 * but not fed, nofollow pages' links and rel=nofollow links are not followed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlSites, html, TestSite, waitIdle } from './crawl-harness';

let site: TestSite;
beforeAll(async () => {
  site = await TestSite.start((req, res) => {
    const pages: Record<string, string> = {
      '/': '<a href="/noindex.html">1</a> <a href="/nofollow.html">2</a> <a rel="nofollow" href="/sponsored.html">3</a> <a href="/header-noindex.html">4</a>',
      '/noindex.html': '<html><head><meta name="robots" content="noindex"></head><body><a href="/via-noindex.html">x</a></body></html>',
      '/nofollow.html': '<html><head><meta name="robots" content="nofollow"></head><body><a href="/via-nofollow.html">x</a></body></html>',
      '/via-noindex.html': '<p>reached through a noindex page</p>',
      '/via-nofollow.html': '<p>must not be reached</p>',
      '/sponsored.html': '<p>must not be reached</p>',
      '/header-noindex.html': '<p>noindex by header</p> <a href="/via-header.html">x</a>',
      '/via-header.html': '<p>reached</p>',
    };
    const body = pages[req.url ?? ''];
    if (req.url === '/header-noindex.html') res.setHeader('x-robots-tag', 'noindex');
    if (body === undefined) res.writeHead(404).end();
    else html(res, body);
  });
});
afterAll(() => site.stop());

describe('meta robots and rel=nofollow', () => {
  it('noindex: fetched, links followed, not fed; nofollow and rel=nofollow links not followed', async () => {
    const run = crawlSites({ sites: [site], start: [`${site.base}/`] });
    await waitIdle(run);
    expect(site.pages().sort()).toEqual(['/', '/header-noindex.html', '/nofollow.html', '/noindex.html', '/via-header.html', '/via-noindex.html']);
    expect([...run.fed.keys()].map((u) => u.slice(site.base.length)).sort()).toEqual(['/', '/nofollow.html', '/via-header.html', '/via-noindex.html']);
    expect(run.machine.stats('web')).toMatchObject({ fetched: 6, fed: 4, noindex: 2 });
  });
});
