import { describe, expect, it } from 'vitest';
import { DEFAULT_LINK_TAGS } from './crawl-settings';
import { extractLinks } from './link-extractor';
import { headerRobotsDirectives, robotsDirectives } from './robots-directives';

describe('robots directives', () => {
  it('reads noindex, nofollow and none, case and spacing aside', () => {
    expect(robotsDirectives('NOINDEX, follow')).toEqual({ noindex: true, nofollow: false });
    expect(robotsDirectives('index,nofollow')).toEqual({ noindex: false, nofollow: true });
    expect(robotsDirectives('none')).toEqual({ noindex: true, nofollow: true });
    expect(robotsDirectives('noarchive max-snippet:20')).toEqual({ noindex: false, nofollow: false });
  });

  it('X-Robots-Tag: untargeted values and ours apply, another agent\'s do not', () => {
    expect(headerRobotsDirectives('noindex', 'esp-crawler')).toEqual({ noindex: true, nofollow: false });
    expect(headerRobotsDirectives('otherbot: noindex, nofollow', 'esp-crawler')).toEqual({ noindex: false, nofollow: false });
    expect(headerRobotsDirectives('otherbot: noindex, esp-crawler: nofollow', 'esp-crawler')).toEqual({ noindex: false, nofollow: true });
    expect(headerRobotsDirectives('max-snippet: 20, noindex', 'esp-crawler')).toEqual({ noindex: true, nofollow: false });
    expect(headerRobotsDirectives(undefined, 'esp-crawler')).toEqual({ noindex: false, nofollow: false });
  });
});

describe('link extraction and robots', () => {
  const page = (head: string, body = ''): string => `<html><head>${head}</head><body><a href="/a">a</a><a rel="external NoFollow" href="/b">b</a>${body}</body></html>`;

  it('drops rel=nofollow links and keeps the others', () => {
    const r = extractLinks(page(''), 'http://h/', DEFAULT_LINK_TAGS);
    expect(r.links).toEqual(['http://h/a']);
    expect(r.robots).toEqual({ noindex: false, nofollow: false });
  });

  it('meta robots nofollow drops every link but a refresh target; noindex is reported', () => {
    const r = extractLinks(page('<meta name="Robots" content="noindex, nofollow"><meta http-equiv="refresh" content="0; url=/next">'), 'http://h/', DEFAULT_LINK_TAGS);
    expect(r.links).toEqual(['http://h/next']);
    expect(r.robots).toEqual({ noindex: true, nofollow: true });
  });

  it('a meta named after our agent counts, one named after another agent does not', () => {
    expect(extractLinks(page('<meta name="esp-crawler" content="nofollow">'), 'http://h/', DEFAULT_LINK_TAGS, { agent: 'esp-crawler' }).links).toEqual([]);
    expect(extractLinks(page('<meta name="otherbot" content="nofollow">'), 'http://h/', DEFAULT_LINK_TAGS, { agent: 'esp-crawler' }).links).toEqual(['http://h/a']);
  });
});
