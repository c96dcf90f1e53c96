/**
 * Sitemaps in a crawl of real local sites: robots.txt Sitemap lines, a sitemap index, a gzipped sitemap, the
 * default /sitemap.xml, URLs of other sites left out, and a gzip bomb that fails its sitemap only.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlSites, html, TestSite, waitIdle } from './crawl-harness';

const sites: TestSite[] = [];
afterEach(async () => {
  await Promise.all(sites.splice(0).map((s) => s.stop()));
});

const urlset = (locs: string[]): string => `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;

describe('sitemaps', () => {
  it('robots.txt Sitemap lines, an index and a gzipped sitemap: the site\'s URLs become start URIs, others are left out', async () => {
    const other = await TestSite.start((_req, res) => html(res, '<p>other</p>'));
    sites.push(other);
    const site = await TestSite.start((req, res, self) => {
      const path = req.url ?? '/';
      if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /private/\nSitemap: ${self.base}/index.xml\n`);
      if (path === '/index.xml') {
        const index = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${self.base}/a.xml</loc></sitemap><sitemap><loc>${self.base}/b.xml.gz</loc></sitemap><sitemap><loc>${self.base}/bomb.xml.gz</loc></sitemap></sitemapindex>`;
        return void res.writeHead(200, { 'content-type': 'application/xml' }).end(index);
      }
      if (path === '/a.xml') return void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset([`${self.base}/only-in-sitemap.html`, `${other.base}/elsewhere.html`, `${self.base}/private/p.html`]));
      if (path === '/b.xml.gz') return void res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(urlset([`${self.base}/from-gzip.html#frag`])));
      if (path === '/bomb.xml.gz') return void res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(Buffer.alloc(32 << 20), { level: 9 }));
      if (path === '/') return html(res, '<p>home, no links</p>');
      if (path === '/only-in-sitemap.html' || path === '/from-gzip.html') return html(res, `<p>${path}</p>`);
      res.writeHead(404).end();
    });
    sites.push(site);
    const run = crawlSites({ sites: [site], start: [`${site.base}/`], maxBodyBytes: 1 << 20 });
    await waitIdle(run);
    expect(site.pages().filter((p) => p.endsWith('.html') || p === '/').sort()).toEqual(['/', '/from-gzip.html', '/only-in-sitemap.html']);
    expect(['/index.xml', '/a.xml', '/b.xml.gz', '/bomb.xml.gz'].map((p) => site.hits(p))).toEqual([1, 1, 1, 1]);
    expect(site.hits('/sitemap.xml')).toBe(0);
    expect(other.requests).toEqual([]);
    expect([...run.fed.keys()].sort()).toEqual([`${site.base}/`, `${site.base}/from-gzip.html`, `${site.base}/only-in-sitemap.html`]);
  });

  it('without Sitemap lines /sitemap.xml is read; sitemaps = 0 turns it off', async () => {
    const site = await TestSite.start((req, res, self) => {
      if (req.url === '/sitemap.xml') return void res.writeHead(200, { 'content-type': 'text/xml' }).end(urlset([`${self.base}/listed.html`]));
      if (req.url === '/' || req.url === '/listed.html') return html(res, '<p>page</p>');
      res.writeHead(404).end();
    });
    sites.push(site);
    const run = crawlSites({ sites: [site], start: [`${site.base}/`] });
    await waitIdle(run);
    expect(site.pages().sort()).toEqual(['/', '/listed.html']);
    expect(site.hits('/sitemap.xml')).toBe(1);

    site.requests.length = 0;
    const off = crawlSites({ sites: [site], start: [`${site.base}/`], dspec: [['delay', 0], ['sitemaps', 0]] });
    await waitIdle(off);
    expect(site.requests.map((r) => r.path).sort()).toEqual(['/', '/robots.txt']);
  });
});
