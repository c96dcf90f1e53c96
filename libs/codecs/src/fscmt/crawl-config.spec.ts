import { describe, expect, it } from 'vitest';
import { encodeFswcu } from '../fswcu/fswcu-encoder';
import { fswcuToJson } from '../fswcu/fswcu-json';
import { runMarshalOracle, toHex } from '../fswcu/testing/cpython-marshal';
import { fscmtCrawlConfigFromXml } from './crawl-config';
import { FSCMT_LINK_EXTRACTION_KEYS } from './crawl-config-link-extraction';
import { FscmtCrawlConfigError } from './fscmt-errors';

const XML = `<?xml version="1.0" encoding="utf-8"?>
<!-- a crawl collection in the MS-FSCCFG format -->
<CrawlerConfig>
  <DomainSpecification name="example">
    <attrib name="delay" type="real"> 60.0 </attrib>
    <attrib name="max_doc_size" type="integer"> 5000000000 </attrib>
    <attrib name="refresh" type="integer">1440</attrib>
    <attrib name="robots" type="boolean"> yes </attrib>
    <attrib name="use_http_1_1" type="boolean">no</attrib>
    <attrib name="info" type="string"> Contoso &amp; Fabrikam </attrib>
    <attrib name="start_uris" type="list-string">
      <member> http://www.contoso.com/ </member>
      <member><![CDATA[http://www.fabrikam.com/?a=1&b=2]]></member>
    </attrib>
    <section name="include_domains">
      <attrib name="exact" type="list-string"><member>www.contoso.com</member></attrib>
      <section name="nested"><attrib name="x" type="integer">1</attrib></section>
    </section>
    <section name="link_extraction">
      <attrib name="a" type="boolean"> yes </attrib>
      <attrib name="meta_refresh" type="boolean"> yes </attrib>
      <attrib name="card" type="boolean"> no </attrib>
    </section>
    <SubDomain name="news">
      <attrib name="delay" type="real">5</attrib>
      <section name="include_uris"><attrib name="prefix" type="list-string"><member>http://www.contoso.com/news/</member></attrib></section>
    </SubDomain>
    <SubDomain name="blog"><attrib name="delay" type="integer">10</attrib></SubDomain>
    <Login name="intranet"><attrib name="preload" type="string">http://intranet/login</attrib></Login>
    <Node name="node1"><attrib name="max_sites" type="integer">128</attrib></Node>
  </DomainSpecification>
  <DomainSpecification name="second"/>
</CrawlerConfig>`;

describe('crawl configuration from the XML DomainSpecification', () => {
  it('maps attrib types, sections, link_extraction keys and SubDomain / Login / Node blocks (2.2.2.3)', () => {
    expect(fswcuToJson(fscmtCrawlConfigFromXml(XML))).toEqual({
      dict: [
        [
          'example',
          {
            dict: [
              ['delay', { float: '60' }],
              ['max_doc_size', { long: '5000000000' }],
              ['refresh', 1440],
              ['robots', 1],
              ['use_http_1_1', 0],
              ['info', 'Contoso & Fabrikam'],
              ['start_uris', ['http://www.contoso.com/', 'http://www.fabrikam.com/?a=1&b=2']],
              ['include_domains', { dict: [['exact', ['www.contoso.com']], ['nested', { dict: [['x', 1]] }]] }],
              [
                'link_extraction',
                {
                  dict: [
                    [FSCMT_LINK_EXTRACTION_KEYS.a, 1],
                    [FSCMT_LINK_EXTRACTION_KEYS.meta_refresh, 1],
                    [FSCMT_LINK_EXTRACTION_KEYS.card, 0],
                  ],
                },
              ],
              [
                'subdomains',
                {
                  dict: [
                    ['news', { dict: [['delay', { float: '5' }], ['include_uris', { dict: [['prefix', ['http://www.contoso.com/news/']]] }]] }],
                    ['blog', { dict: [['delay', 10]] }],
                  ],
                },
              ],
              ['logins', { dict: [['intranet', { dict: [['preload', 'http://intranet/login']] }]] }],
              ['nodes', { dict: [['node1', { dict: [['max_sites', 128]] }]] }],
            ],
          },
        ],
        ['second', { dict: [] }],
      ],
    });
  });

  it('the link_extraction key table matches the spec', () => {
    expect(FSCMT_LINK_EXTRACTION_KEYS).toEqual({
      a: 0x1,
      action: 0x2,
      area: 0x4,
      comment: 0x10,
      frame: 0x20,
      go: 0x40,
      img: 0x80,
      layer: 0x100,
      link: 0x200,
      meta: 0x400,
      script: 0x800,
      script_java: 0x1000,
      style: 0x2000,
      object: 0x4000,
      meta_refresh: 0x8000,
      embed: 0x100000,
      card: 0x400000,
    });
  });

  it('a bare DomainSpecification root works too, and the result is what CPython reads', () => {
    const config = fscmtCrawlConfigFromXml(
      '<DomainSpecification name="web"><attrib name="delay" type="real">0.1</attrib></DomainSpecification>',
    );
    const [loaded] = runMarshalOracle('loads', [toHex(encodeFswcu(config))]);
    expect(loaded).toEqual({ dict: [[{ hex: '776562' }, { dict: [[{ hex: '64656c6179' }, { double: '0.1' }]] }]] });
  });

  it('refuses DTDs, so no entity can be declared (billion laughs, external entities)', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>
      <DomainSpecification name="x"><attrib name="s" type="string">&lol2;</attrib></DomainSpecification>`;
    expect(() => fscmtCrawlConfigFromXml(laughs)).toThrow(/DOCTYPE/);
    const external = `<!DOCTYPE x SYSTEM "file:///etc/passwd"><DomainSpecification name="x"/>`;
    expect(() => fscmtCrawlConfigFromXml(external)).toThrow(FscmtCrawlConfigError);
    expect(() => fscmtCrawlConfigFromXml('<DomainSpecification name="x"><attrib name="s" type="string">&nope;</attrib></DomainSpecification>')).toThrow(
      FscmtCrawlConfigError,
    );
  });

  it('enforces the size and depth limits', () => {
    expect(() => fscmtCrawlConfigFromXml(XML, { maxBytes: 100 })).toThrow(/exceeds 100/);
    const deep = `<DomainSpecification name="x">${'<section name="s">'.repeat(100)}${'</section>'.repeat(100)}</DomainSpecification>`;
    expect(() => fscmtCrawlConfigFromXml(deep)).toThrow(/deeper than 64/);
  });

  it('bad documents are FscmtCrawlConfigErrors that say where', () => {
    const bad: Array<[string, RegExp]> = [
      ['<DomainSpecification name="x"><attrib name="n" type="integer">1.5</attrib></DomainSpecification>', /integer attrib/],
      ['<DomainSpecification name="x"><attrib name="n" type="boolean">maybe</attrib></DomainSpecification>', /boolean attrib/],
      ['<DomainSpecification name="x"><attrib name="n" type="real">fast</attrib></DomainSpecification>', /real attrib/],
      ['<DomainSpecification name="x"><attrib name="n" type="date">1</attrib></DomainSpecification>', /unknown attrib type/],
      ['<DomainSpecification name="x"><attrib type="string">1</attrib></DomainSpecification>', /needs a name/],
      ['<DomainSpecification><attrib name="n" type="string">1</attrib></DomainSpecification>', /needs a name/],
      ['<DomainSpecification name="x"><section name="link_extraction"><attrib name="blink" type="boolean">yes</attrib></section></DomainSpecification>', /unknown link_extraction attrib "blink"/],
      ['<DomainSpecification name="x"><Frobnicate/></DomainSpecification>', /unexpected <Frobnicate>/],
      ['<DomainSpecification name="x"><section name="s"><SubDomain name="n"/></section></DomainSpecification>', /unexpected <SubDomain>/],
      ['<DomainSpecification name="x">stray text</DomainSpecification>', /unexpected text/],
      ['<DomainSpecification name="x"><attrib name="l" type="list-string">loose<member>a</member></attrib></DomainSpecification>', /outside its <member>/],
      ['<DomainSpecification name="x"><attrib name="s" type="string">unclosed</DomainSpecification>', /malformed XML/],
      ['<html/>', /unexpected <html>/],
    ];
    for (const [xml, message] of bad) {
      let caught: unknown;
      try {
        fscmtCrawlConfigFromXml(xml);
      } catch (err) {
        caught = err;
      }
      expect(caught, xml).toBeInstanceOf(FscmtCrawlConfigError);
      expect((caught as Error).message, xml).toMatch(message);
    }
    expect(() => fscmtCrawlConfigFromXml('<DomainSpecification name="x"><Frobnicate/></DomainSpecification>')).toThrow(/line 1, column/);
  });

  it('accepts UTF-8 bytes and refuses bytes that are not UTF-8', () => {
    const bytes = new TextEncoder().encode('<DomainSpecification name="blåbær"/>');
    expect(fswcuToJson(fscmtCrawlConfigFromXml(bytes))).toEqual({ dict: [['blåbær', { dict: [] }]] });
    expect(() => fscmtCrawlConfigFromXml(Uint8Array.from([0x3c, 0xff]))).toThrow(/not UTF-8/);
  });
});
