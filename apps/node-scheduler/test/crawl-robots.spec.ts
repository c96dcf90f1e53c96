/**
 * robots.txt as a crawl meets it, against real local sites: redirects to another origin, missing and failing
 * robots.txt, Crawl-delay, a whole site shut out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { capturingLog, crawlSites, html, TestSite, waitIdle } from './crawl-harness';

const sites: TestSite[] = [];
afterEach(async () => {
  await Promise.all(sites.splice(0).map((s) => s.stop()));
});

/** A site of three pages linked in a chain, with `robots` answering /robots.txt. */
async function chainSite(robots: (res: import('node:http').ServerResponse, n: number) => void): Promise<TestSite> {
  let robotsAsked = 0;
  const site = await TestSite.start((req, res) => {
    const path = req.url ?? '/';
    if (path.split('?')[0] === '/robots.txt') return robots(res, ++robotsAsked);
    if (path === '/') return html(res, '<a href="/a.html">a</a>');
    if (path === '/a.html') return html(res, '<a href="/b.html">b</a> <a href="/private/x.html">x</a>');
    if (path === '/b.html' || path === '/private/x.html') return html(res, '<p>end</p>');
    res.writeHead(404).end();
  });
  sites.push(site);
  return site;
}

describe('robots.txt', () => {
  it('follows a robots.txt redirect to another origin (http -> https, apex -> www) and applies its rules', async () => {
    const target = await TestSite.start((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
    });
    sites.push(target);
    const site = await chainSite((res) => res.writeHead(301, { location: `${target.base}/robots.txt` }).end());
    const { log, lines } = capturingLog();
    const run = crawlSites({ sites: [site], start: [`${site.base}/`], log });
    await waitIdle(run);
    expect(site.pages().sort()).toEqual(['/', '/a.html', '/b.html']);
    expect([...run.fed.keys()].length).toBe(3);
    expect(run.machine.stats('web')).toMatchObject({ fed: 3, excluded: 1 });
    expect(target.hits('/robots.txt')).toBe(1);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('more than five redirects: as if there were no robots.txt, with a log line', async () => {
    const site = await chainSite((res, n) => res.writeHead(302, { location: `/robots.txt?hop=${n}` }).end());
    const { log, lines } = capturingLog();
    const run = crawlSites({ sites: [site], start: [`${site.base}/`], log });
    await waitIdle(run);
    expect(site.pages().filter((p) => !p.startsWith('/robots.txt')).sort()).toEqual(['/', '/a.html', '/b.html', '/private/x.html']);
    // the first request and five redirects followed
    expect(site.requests.filter((r) => r.path.startsWith('/robots.txt')).length).toBe(6);
    expect(lines.some((l) => l.msg.startsWith('robots.txt not usable') && String(l.obj['note']).includes('more than 5 redirects'))).toBe(true);
  });

  it('a 4xx robots.txt allows everything', async () => {
    const site = await chainSite((res) => res.writeHead(403).end());
    const run = crawlSites({ sites: [site], start: [`${site.base}/`] });
    await waitIdle(run);
    expect(site.pages().sort()).toEqual(['/', '/a.html', '/b.html', '/private/x.html']);
  });

  it('a 5xx robots.txt holds the site back, logs it, and is read again later: then the site is crawled', async () => {
    const site = await chainSite((res, n) => (n <= 2 ? res.writeHead(503).end() : res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n')));
    const { log, lines } = capturingLog();
    const t0 = Date.now();
    const run = crawlSites({ sites: [site], start: [`${site.base}/`], log, robotsRetryMs: 150 });
    await waitIdle(run);
    expect(site.hits('/robots.txt')).toBe(3);
    expect(site.pages().sort()).toEqual(['/', '/a.html', '/b.html']);
    // 150 ms, then 300 ms before the third reading
    expect(site.requests.find((r) => r.path === '/')!.at - t0).toBeGreaterThanOrEqual(400);
    const warns = lines.filter((l) => l.level === 'warn' && l.msg.startsWith('robots.txt unreachable'));
    expect(warns.length).toBe(2);
    expect(warns[0]!.obj).toMatchObject({ origin: site.base, failures: 1, retryInMs: 150 });
    expect(String(warns[0]!.obj['reason'])).toContain('HTTP 503');
    expect(run.machine.stats('web')).toMatchObject({ fed: 3, excluded: 1, errors: 0 });
  });

  it('a robots.txt that never answers: the pages are given up after some attempts, with a log line', async () => {
    const site = await chainSite((res) => res.writeHead(500).end());
    const { log, lines } = capturingLog();
    const run = crawlSites({ sites: [site], start: [`${site.base}/`], log, robotsRetryMs: 20 });
    await waitIdle(run);
    expect(site.pages()).toEqual([]);
    expect(site.hits('/robots.txt')).toBe(5);
    expect(lines.some((l) => l.level === 'warn' && l.msg.includes('given up'))).toBe(true);
    expect(run.machine.stats('web')).toMatchObject({ fetched: 0, excluded: 1 });
  });

  it('a robots.txt that shuts out the whole site: nothing fetched, one log line', async () => {
    const site = await chainSite((res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /\n'));
    const { log, lines } = capturingLog();
    const run = crawlSites({ sites: [site], start: [`${site.base}/`], log });
    await waitIdle(run);
    expect(site.pages()).toEqual([]);
    expect(lines.filter((l) => l.msg.includes('disallows the whole site')).length).toBe(1);
  });

  it('Crawl-delay for our agent is the site delay when larger than the configured one', async () => {
    const site = await chainSite((res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: other\nCrawl-delay: 0\n\nUser-agent: esp-crawler\nCrawl-delay: 0.4\nDisallow: /private/\n'));
    const run = crawlSites({ sites: [site], start: [`${site.base}/`], userAgent: 'esp-crawler/2.0' });
    await waitIdle(run);
    const times = site.requests.filter((r) => r.path !== '/robots.txt' && r.path !== '/sitemap.xml').map((r) => r.at);
    expect(times.length).toBe(3);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(380);
  });
});
