import { describe, expect, it } from 'vitest';
import { ManualClock } from '@esp/timers';
import { collectionsFromXml, CrawlConfigFileError, reconcile } from './collections';
import { MultinodeSchedulerMachine } from './multinode-scheduler-machine';

const xml = (body: string): string => `<CrawlerConfig><DomainSpecification name="web">${body}</DomainSpecification></CrawlerConfig>`;

describe('crawl collections from XML', () => {
  it('reads the name, the crawl configuration dict and the start URIs', () => {
    const [c] = collectionsFromXml(
      xml(`<attrib name="start_uris" type="list-string"><member> http://127.0.0.1:8080/ </member></attrib><attrib name="delay" type="real">0.5</attrib>`),
      'web.xml',
    );
    expect(c!.name).toBe('web');
    expect(c!.startUris).toEqual(['http://127.0.0.1:8080/']);
    expect(c!.dspec.getText('delay')).toBeDefined();
  });

  it('refuses bad XML, a DOCTYPE, a start URI that is not http(s), and a non-numeric delay, naming the file', () => {
    expect(() => collectionsFromXml('<CrawlerConfig>', 'a.xml')).toThrow(/^a\.xml: /);
    expect(() => collectionsFromXml('<!DOCTYPE x><CrawlerConfig/>', 'b.xml')).toThrow(/b\.xml: DOCTYPE declarations are not accepted/);
    expect(() => collectionsFromXml(xml(`<attrib name="start_uris" type="list-string"><member>ftp://x/</member></attrib>`), 'c.xml')).toThrow(
      /c\.xml: "web": start URI "ftp:\/\/x\/" is not an http\(s\) URL/,
    );
    expect(() => collectionsFromXml(xml(`<attrib name="delay" type="string">soon</attrib>`), 'd.xml')).toThrow(CrawlConfigFileError);
    expect(() => collectionsFromXml('<CrawlerConfig/>', 'e.xml')).toThrow(/no DomainSpecification/);
  });
});

describe('reconcile (SIGHUP reload)', () => {
  it('adds new collections, updates changed ones, removes missing ones, leaves equal ones alone', () => {
    const m = new MultinodeSchedulerMachine({ clock: new ManualClock(), send: () => undefined, resolve: () => undefined });
    const load = (body: string) => collectionsFromXml(`<CrawlerConfig>${body}</CrawlerConfig>`, 'x.xml');
    const ds = (name: string, delay: number) => `<DomainSpecification name="${name}"><attrib name="delay" type="integer">${delay}</attrib></DomainSpecification>`;
    expect(reconcile(m, load(ds('a', 1) + ds('b', 1)))).toEqual({ added: ['a', 'b'], updated: [], removed: [] });
    expect(reconcile(m, load(ds('a', 1) + ds('b', 2) + ds('c', 1)))).toEqual({ added: ['c'], updated: ['b'], removed: [] });
    expect(reconcile(m, load(ds('c', 1)))).toEqual({ added: [], updated: [], removed: ['a', 'b'] });
    expect([...m.collectionConfigs().keys()]).toEqual(['c']);
  });
});
