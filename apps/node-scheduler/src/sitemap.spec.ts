import { describe, expect, it } from 'vitest';
import { parseSitemap } from './sitemap';

describe('sitemap parsing', () => {
  it('reads the <loc> of a urlset and of an index, entities decoded, namespace prefixes ignored', () => {
    const urlset = `<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> http://h/a?x=1&amp;y=2 </loc><lastmod>2024-01-01</lastmod></url><url><loc>http://h/b</loc></url></urlset>`;
    expect(parseSitemap(urlset)).toEqual({ kind: 'urlset', locs: ['http://h/a?x=1&y=2', 'http://h/b'] });
    const index = '<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>http://h/s1.xml.gz</sm:loc></sm:sitemap></sm:sitemapindex>';
    expect(parseSitemap(index)).toEqual({ kind: 'index', locs: ['http://h/s1.xml.gz'] });
  });

  it('reads a text sitemap, one URL a line', () => {
    expect(parseSitemap('\uFEFFhttp://h/a\r\n\r\nnot a url\nhttps://h/b\n')).toEqual({ kind: 'urlset', locs: ['http://h/a', 'https://h/b'] });
  });
});
