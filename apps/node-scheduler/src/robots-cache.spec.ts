import { describe, expect, it } from 'vitest';
import type { HttpGetResult } from './http-get';
import { parseRobots, productToken, robotsAllows } from './robots';
import { RobotsCache } from './robots-cache';

const answer = (status: number, body = '', location?: string): HttpGetResult => ({
  status,
  location,
  contentType: 'text/plain',
  contentTypeHeader: 'text/plain',
  body: new TextEncoder().encode(body),
});

describe('robots.txt parsing (RFC 9309)', () => {
  it('matches the product token exactly, case-insensitively: not a prefix or substring of another agent', () => {
    const text = 'User-agent: esp\nDisallow: /esp-only/\n\nUser-agent: *\nDisallow: /all/\n';
    expect(productToken('ESP-Crawler/1.0 (+http://x)')).toBe('esp-crawler');
    const rules = parseRobots(text, 'esp-crawler/1.0');
    expect(robotsAllows(rules, '/esp-only/x')).toBe(true);
    expect(robotsAllows(rules, '/all/x')).toBe(false);
    expect(robotsAllows(parseRobots(text, 'ESP/3'), '/esp-only/x')).toBe(false);
  });

  it('reads Crawl-delay of the chosen group and Sitemap lines from anywhere', () => {
    const r = parseRobots('\uFEFFSitemap: http://h/s1.xml\nUser-agent: a\nCrawl-delay: 9\n\nUser-agent: *\nCrawl-delay: 2.5\nSitemap: http://h/s2.xml.gz\nDisallow:\n', 'esp-crawler');
    expect(r.crawlDelayMs).toBe(2500);
    expect(r.sitemaps).toEqual(['http://h/s1.xml', 'http://h/s2.xml.gz']);
    expect(parseRobots('User-agent: *\nCrawl-delay: soon\n', 'x').crawlDelayMs).toBeUndefined();
  });

  it('non-ASCII patterns match the percent-encoded path', () => {
    const rules = parseRobots('User-agent: *\nDisallow: /café/\n', 'x');
    expect(robotsAllows(rules, new URL('http://h/café/menu').pathname)).toBe(false);
    expect(robotsAllows(rules, '/cafe/menu')).toBe(true);
  });
});

describe('RobotsCache', () => {
  it('rules saved before a restart are used until they expire, without reading robots.txt; rules read are reported', async () => {
    let now = 1_000;
    const gets: string[] = [];
    const saved: Array<{ origin: string; expiresAt: number }> = [];
    const cache = new RobotsCache({
      get: async (url) => {
        gets.push(url.href);
        return answer(200, 'User-agent: *\nDisallow: /fresh/\n');
      },
      userAgent: 'esp-crawler',
      now: () => now,
      ttlMs: 500,
      saved: [
        { origin: 'http://a', rules: parseRobots('User-agent: *\nDisallow: /kept/\n', 'esp-crawler'), expiresAt: 2_000 },
        { origin: 'http://b', rules: parseRobots('User-agent: *\nDisallow: /old/\n', 'esp-crawler'), expiresAt: 500 },
      ],
      onRules: (origin, _rules, expiresAt) => saved.push({ origin, expiresAt }),
    });
    const a = await cache.decide(new URL('http://a/x'));
    expect(a.kind === 'rules' && robotsAllows(a.rules, '/kept/1')).toBe(false);
    // b's saved rules had expired: read again, and reported for saving
    const b = await cache.decide(new URL('http://b/x'));
    expect(b.kind === 'rules' && robotsAllows(b.rules, '/fresh/1')).toBe(false);
    expect(gets).toEqual(['http://b/robots.txt']);
    expect(saved).toEqual([{ origin: 'http://b', expiresAt: 1_500 }]);
    now = 2_500;
    await cache.decide(new URL('http://a/x'));
    expect(gets).toEqual(['http://b/robots.txt', 'http://a/robots.txt']);
  });

  it('keeps rules for the TTL, then reads again; an unreachable robots.txt is retried with a doubling wait', async () => {
    let now = 0;
    const answers = [answer(200, 'User-agent: *\nDisallow: /x\n'), answer(503), answer(503), answer(200, '')];
    const asked: string[] = [];
    const cache = new RobotsCache({
      get: (url) => (asked.push(url.href), Promise.resolve(answers.shift()!)),
      userAgent: 'esp-crawler',
      now: () => now,
      ttlMs: 1000,
      retryMs: 100,
    });
    const u = new URL('http://h:8/a');
    const first = await cache.decide(u);
    expect(first.kind === 'rules' && robotsAllows(first.rules, '/x')).toBe(false);
    now = 999;
    expect((await cache.decide(u)).kind).toBe('rules');
    expect(asked).toEqual(['http://h:8/robots.txt']);
    now = 1000;
    expect(await cache.decide(u)).toMatchObject({ kind: 'unreachable', retryInMs: 100 });
    now = 1050;
    expect(await cache.decide(u)).toMatchObject({ kind: 'unreachable', retryInMs: 50 });
    now = 1100;
    expect(await cache.decide(u)).toMatchObject({ kind: 'unreachable', retryInMs: 200 });
    now = 1300;
    const back = await cache.decide(u);
    expect(back.kind === 'rules' && robotsAllows(back.rules, '/x')).toBe(true);
    expect(asked.length).toBe(4);
  });

  it('one reading for concurrent questions about one origin', async () => {
    let n = 0;
    const cache = new RobotsCache({ get: () => (n++, new Promise((r) => setTimeout(() => r(answer(404)), 10))), userAgent: 'x' });
    await Promise.all([1, 2, 3].map((i) => cache.decide(new URL(`http://h/${i}`))));
    expect(n).toBe(1);
  });
});
