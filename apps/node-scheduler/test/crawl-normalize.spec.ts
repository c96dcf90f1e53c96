/**
 * URL normalisation in a crawl of a real local site: one page linked in many spellings is fetched once, and the
 * query parameters the configuration names are removed before the seen check.
 */
import { FswcuDict, fswcuBytes } from '@esp/codecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlSettings, CrawlSettingsError } from '../src/crawl-settings';
import { crawlSites, html, TestSite, waitIdle } from './crawl-harness';

let site: TestSite;
beforeAll(async () => {
  site = await TestSite.start((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(404).end();
    if (path === '/') {
      const port = new URL(site.base).port;
      const spellings = [
        '/a/page.html',
        '/a/./page.html',
        '/a/b/../page.html',
        '/a/page.html#part',
        `HTTP://127.0.0.1:${port}/a/page.html`,
        '/a/page.html?utm_source=news&utm_medium=mail',
        '/a/page.html?',
        '/list?id=1&sessionid=abc',
        '/list?id=1&SESSIONID=def',
        '/list?id=%31',
        '/%7euser/',
        '/~user/',
      ];
      return html(res, spellings.map((s) => `<a href="${s}">x</a>`).join(' '));
    }
    return html(res, `<p>${path}</p>`);
  });
});
afterAll(() => site.stop());

describe('URL normalisation in a crawl', () => {
  it('fetches each page once however it is spelled, without the configured query parameters', async () => {
    const run = crawlSites({ sites: [site], start: [`${site.base}/#start`], dspec: [['delay', 0], ['strip_query_params', [fswcuBytes('utm_*'), fswcuBytes('sessionid')]]] });
    await waitIdle(run);
    // "%31" encodes "1", an unreserved character: the same page as "/list?id=1"
    expect(site.pages().sort()).toEqual(['/', '/a/page.html', '/list?id=1', '/~user/']);
    expect([...run.fed.keys()].sort()).toEqual([`${site.base}/`, `${site.base}/a/page.html`, `${site.base}/list?id=1`, `${site.base}/~user/`]);
  });

  it('without strip_query_params the parameters stay', async () => {
    site.requests.length = 0;
    const run = crawlSites({ sites: [site], start: [`${site.base}/`] });
    await waitIdle(run);
    expect(site.pages()).toContain('/a/page.html?utm_source=news&utm_medium=mail');
    expect(site.hits('/a/page.html')).toBe(1);
  });

  it('strip_query_params must be a list-string', () => {
    expect(() => crawlSettings(new FswcuDict([[fswcuBytes('strip_query_params'), fswcuBytes('utm_*')]]))).toThrow(new CrawlSettingsError('strip_query_params must be a list-string'));
  });
});
