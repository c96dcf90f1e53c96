import { FswcuDict, fswcuBytes, FSCMT_LINK_EXTRACTION_KEYS as K } from '@esp/codecs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crawlSettings, CrawlSettingsError, uriAllowed } from './crawl-settings';
import { DEFAULT_LINK_TAGS } from './crawl-settings';
import { extractLinks } from './link-extractor';
import { parseRobots, robotsAllows, robotsPathRule } from './robots';

describe('robots.txt', () => {
  it('uses our group, else *; the longest match wins; Allow wins a tie; * and $ work', () => {
    const rules = parseRobots('User-agent: other\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\nAllow: /private/open\nDisallow: /*.pdf$\n', 'esp-crawler');
    expect(robotsAllows(rules, '/')).toBe(true);
    expect(robotsAllows(rules, '/private/x')).toBe(false);
    expect(robotsAllows(rules, '/private/open/1')).toBe(true);
    expect(robotsAllows(rules, '/a/b.pdf')).toBe(false);
    expect(robotsAllows(rules, '/a/b.pdf?x')).toBe(true);
    expect(robotsAllows(parseRobots('User-agent: esp-crawler\nDisallow: /\n', 'esp-crawler'), '/x')).toBe(false);
  });

  it('a rule compiled once matches as the pattern read as a regular expression each time does', () => {
    // the reading of RFC 9309 the rules had before they were compiled: "*" any run of characters, "$" the end
    const reference = (pattern: string, path: string): number => {
      const anchored = pattern.endsWith('$');
      const body = anchored ? pattern.slice(0, -1) : pattern;
      const re = new RegExp('^' + body.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + (anchored ? '$' : ''));
      return re.test(path) ? body.length : -1;
    };
    const piece = fc.constantFrom('/', 'a', 'b', '.', '*', '$', '?', 'x=1', '(', '[', '\\');
    const text = fc.array(piece, { maxLength: 8 }).map((xs) => '/' + xs.join(''));
    fc.assert(
      fc.property(text, text, (pattern, path) => {
        const rule = robotsPathRule(pattern);
        const hit = rule.re ? rule.re.test(path) : path.startsWith(rule.pattern);
        expect(hit ? rule.length : -1).toBe(reference(pattern, path));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('link extraction', () => {
  const html = `<html><head><title> A  page </title><base href="http://h/dir/"><meta http-equiv="refresh" content="0; url=/moved"></head>
    <body><a href="x.html#frag">x</a><a href="mailto:a@b">m</a><img src="i.png"><frame src="f.html"><script>var a = '<a href="no">';</script>
    <p>Text &amp; more</p></body></html>`;
  it('follows only the configured tags, resolves against <base>, drops fragments and non-http links', () => {
    const r = extractLinks(html, 'http://h/page', DEFAULT_LINK_TAGS);
    expect(r.links.sort()).toEqual(['http://h/dir/f.html', 'http://h/dir/x.html', 'http://h/moved']);
    expect(r.title).toBe('A page');
    expect(r.refresh).toBe('http://h/moved');
    expect(extractLinks(html, 'http://h/page', K.a | K.img).links.sort()).toEqual(['http://h/dir/i.png', 'http://h/dir/x.html']);
  });
});

describe('crawl settings', () => {
  it('maps delay, max_doc, crawlmode, include/exclude and link_extraction; refuses bad values with the setting named', () => {
    const s = crawlSettings(
      new FswcuDict([
        [fswcuBytes('delay'), 3],
        [fswcuBytes('max_doc'), 10],
        [fswcuBytes('crawlmode'), new FswcuDict([[fswcuBytes('mode'), fswcuBytes('DEPTH:2')]])],
        [fswcuBytes('include_uris'), new FswcuDict([[fswcuBytes('prefix'), [fswcuBytes('http://a/')]]])],
        [fswcuBytes('exclude_uris'), new FswcuDict([[fswcuBytes('regexp'), [fswcuBytes('\\.pdf$')]]])],
        [fswcuBytes('link_extraction'), new FswcuDict([[K.a, 1], [K.img, 0]])],
      ]),
    );
    expect(s).toMatchObject({ delayMs: 3000, maxDocsPerSite: 10, maxDepth: 2, robots: true, linkTags: K.a });
    expect(uriAllowed(s, 'http://a/x.html')).toBe(true);
    expect(uriAllowed(s, 'http://a/x.pdf')).toBe(false);
    expect(uriAllowed(s, 'http://b/x.html')).toBe(false);
    expect(() => crawlSettings(new FswcuDict([[fswcuBytes('delay'), fswcuBytes('soon')]]))).toThrow(new CrawlSettingsError('delay must be a number'));
    expect(() => crawlSettings(new FswcuDict([[fswcuBytes('crawlmode'), new FswcuDict([[fswcuBytes('mode'), fswcuBytes('WIDE')]])]]))).toThrow(/crawlmode\.mode/);
    expect(() => crawlSettings(new FswcuDict([[fswcuBytes('exclude_uris'), new FswcuDict([[fswcuBytes('regexp'), [fswcuBytes('(')]]])]]))).toThrow(/exclude_uris\.regexp/);
  });
});
