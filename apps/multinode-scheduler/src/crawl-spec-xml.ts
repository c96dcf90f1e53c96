/**
 * A crawl created through the admin API (crawl::admin set_crawl) as the XML DomainSpecification an operator would
 * write: the file the multinode scheduler keeps in its config directory, read back like any other. Without include
 * rules the crawl stays on the start URIs' sites (a prefix rule per scheme://host[:port]/).
 *
 *   crawlSpecXml(spec)   // '<?xml version="1.0"?>\n<CrawlerConfig>\n  <DomainSpecification name="web">...'
 */
import type { CrawlSpec, UriRulesSpec } from '@esp/interfaces';

/** Thrown for a spec that cannot make a valid configuration (the admin API answers crawl_spec_invalid). */
export class CrawlSpecError extends Error {
  override readonly name = 'CrawlSpecError';
  readonly code = 'crawl_spec_invalid';
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The include rules of a spec: its own, or one prefix per site of the start URIs. */
export function includeRules(spec: Pick<CrawlSpec, 'include' | 'start_uris'>): UriRulesSpec {
  if (spec.include) return spec.include;
  const prefixes = [...new Set(spec.start_uris.map((u) => `${new URL(u).origin}/`))];
  return { prefix: prefixes, suffix: [], exact: [], regexp: [] };
}

function list(name: string, items: string[], indent: string): string {
  return `${indent}<attrib name="${name}" type="list-string">${items.map((i) => `<member>${esc(i)}</member>`).join('')}</attrib>\n`;
}

function rules(name: string, r: UriRulesSpec): string {
  for (const re of r.regexp) {
    try {
      new RegExp(re);
    } catch (err) {
      throw new CrawlSpecError(`${name}: regexp "${re}": ${(err as Error).message}`);
    }
  }
  const keys = (['prefix', 'suffix', 'exact', 'regexp'] as const).filter((k) => r[k].length > 0);
  return `    <section name="${name}">\n${keys.map((k) => list(k, r[k], '      ')).join('')}    </section>\n`;
}

export function crawlSpecXml(spec: CrawlSpec): string {
  for (const u of spec.start_uris) {
    const p = new URL(u).protocol;
    if (p !== 'http:' && p !== 'https:') throw new CrawlSpecError(`start URI "${u}" is not an http(s) URL`);
  }
  const mode = spec.max_depth === null ? 'FULL' : `DEPTH:${spec.max_depth}`;
  return (
    `<?xml version="1.0"?>\n` +
    `<!-- written by the multinode scheduler's admin API (npm run crawl); edit it and send SIGHUP to reload -->\n` +
    `<CrawlerConfig>\n` +
    `  <DomainSpecification name="${esc(spec.collection)}">\n` +
    list('start_uris', spec.start_uris, '    ') +
    `    <attrib name="delay" type="real">${spec.delay_s}</attrib>\n` +
    `    <attrib name="max_doc" type="integer">${spec.max_doc}</attrib>\n` +
    `    <attrib name="robots" type="boolean">${spec.robots ? 'yes' : 'no'}</attrib>\n` +
    `    <attrib name="sitemaps" type="boolean">${spec.sitemaps ? 'yes' : 'no'}</attrib>\n` +
    (spec.refresh_min > 0 ? `    <attrib name="refresh" type="real">${spec.refresh_min}</attrib>\n` : '') +
    `    <section name="crawlmode"><attrib name="mode" type="string">${mode}</attrib></section>\n` +
    rules('include_uris', includeRules(spec)) +
    (spec.exclude ? rules('exclude_uris', spec.exclude) : '') +
    `  </DomainSpecification>\n` +
    `</CrawlerConfig>\n`
  );
}
