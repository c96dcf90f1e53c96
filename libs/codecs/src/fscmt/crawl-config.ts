/**
 * The crawl configuration structure (MS-FSCMT 2.2.2.3): the XML DomainSpecification of MS-FSCCFG mapped to the
 * dict that CMD_ADM_CONF_ADD / CMD_ADM_CONF_UPDATE (PKT_DSPEC) and PPDUP_SET_CONFIG (PKT_DATA) carry.
 *
 *   const dspec = fscmtCrawlConfigFromXml(`
 *     <CrawlerConfig>
 *       <DomainSpecification name="web">
 *         <attrib name="delay" type="real"> 60.0 </attrib>
 *         <attrib name="start_uris" type="list-string"><member> http://www.contoso.com/ </member></attrib>
 *         <section name="link_extraction"><attrib name="a" type="boolean"> yes </attrib></section>
 *         <SubDomain name="news"><attrib name="delay" type="integer"> 5 </attrib></SubDomain>
 *       </DomainSpecification>
 *     </CrawlerConfig>`);
 *   // { b'web': { b'delay': 60.0, b'start_uris': [b'http://www.contoso.com/'], b'link_extraction': { 1: 1 },
 *   //             b'subdomains': { b'news': { b'delay': 5 } } } }
 *
 * Mapping: attrib -> typed value under its name; section -> dict under its name (link_extraction's attribs under
 * the integer keys of FSCMT_LINK_EXTRACTION_KEYS); SubDomain / Login / Node -> dicts under their name inside
 * "subdomains" / "logins" / "nodes". attrib types: integer -> int (long beyond int32), string -> byte string,
 * list-string -> list of byte strings (one per member), boolean -> int 1 / 0, real -> float. Text is trimmed, as
 * the crawler's own reader does. The root may be a CrawlerConfig holding DomainSpecifications, or one of them.
 *
 * The XML is parsed with saxes. A DOCTYPE is refused outright (so no entity can be declared: only the five XML
 * entities and character references exist), and the document size and element depth are capped.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { FswcuDict, FswcuFloat, fswcuBytes, type FswcuValue } from '../fswcu/fswcu-value';
import { parseFswcuFloatText } from '../fswcu/fswcu-float-text';
import { FSCMT_LINK_EXTRACTION_SECTION, fscmtLinkExtractionKey } from './crawl-config-link-extraction';
import { FscmtCrawlConfigError } from './fscmt-errors';

export interface FscmtCrawlConfigOptions {
  /** Largest document accepted, in bytes (UTF-16 code units for a string). Default 4 MiB. */
  maxBytes?: number;
  /** Deepest element nesting accepted. Default 64. */
  maxDepth?: number;
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_DEPTH = 64;

/** The child dict that collects each kind of named block, and where such blocks may appear. */
const BLOCKS: Readonly<Record<string, string>> = { SubDomain: 'subdomains', Login: 'logins', Node: 'nodes' };

type Frame =
  | { kind: 'document' }
  | { kind: 'config' }
  | { kind: 'domain'; dict: FswcuDict }
  | { kind: 'block'; dict: FswcuDict }
  | { kind: 'section'; dict: FswcuDict; linkExtraction: boolean }
  | { kind: 'attrib'; target: FswcuDict; key: FswcuValue; type: string; text: string; members: FswcuValue[] | undefined }
  | { kind: 'member'; text: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function fscmtCrawlConfigFromXml(xml: string | Uint8Array, options: FscmtCrawlConfigOptions = {}): FswcuDict {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (xml.length > maxBytes) throw new FscmtCrawlConfigError(`crawl configuration of ${xml.length} bytes exceeds ${maxBytes}`);
  let text: string;
  try {
    text = typeof xml === 'string' ? xml : utf8.decode(xml);
  } catch (cause) {
    throw new FscmtCrawlConfigError('crawl configuration is not UTF-8', { cause });
  }

  const parser = new SaxesParser({ xmlns: false, position: true });
  const result = new FswcuDict();
  const stack: Frame[] = [{ kind: 'document' }];
  const top = (): Frame => stack[stack.length - 1] ?? { kind: 'document' };
  const fail = (message: string): never => {
    throw new FscmtCrawlConfigError(`${message} (line ${parser.line}, column ${parser.column})`);
  };

  parser.on('doctype', () => fail('DOCTYPE declarations are not accepted'));
  parser.on('text', (t) => appendText(t));
  parser.on('cdata', (t) => appendText(t));
  parser.on('opentag', (tag) => {
    if (stack.length > maxDepth) fail(`elements nested deeper than ${maxDepth}`);
    stack.push(open(top(), tag));
  });
  parser.on('closetag', () => {
    const frame = stack.pop();
    if (frame !== undefined) close(frame, top());
  });

  function appendText(t: string): void {
    const frame = top();
    if (frame.kind === 'attrib' || frame.kind === 'member') frame.text += t;
    else if (t.trim() !== '') fail(`unexpected text ${JSON.stringify(t.trim().slice(0, 40))}`);
  }

  function open(parent: Frame, tag: SaxesTagPlain): Frame {
    const name = (attr: string): string => {
      const value = tag.attributes[attr];
      return value === undefined ? fail(`<${tag.name}> needs a ${attr} attribute`) : value;
    };
    switch (parent.kind) {
      case 'document':
        if (tag.name === 'CrawlerConfig') return { kind: 'config' };
        if (tag.name === 'DomainSpecification') return openDomain(name('name'));
        break;
      case 'config':
        if (tag.name === 'DomainSpecification') return openDomain(name('name'));
        break;
      case 'domain':
      case 'block':
      case 'section': {
        if (tag.name === 'attrib') {
          const type = name('type');
          const attribName = name('name');
          let key: FswcuValue = fswcuBytes(attribName);
          if (parent.kind === 'section' && parent.linkExtraction) {
            const bit = fscmtLinkExtractionKey(attribName);
            if (bit === undefined) fail(`unknown link_extraction attrib "${attribName}"`);
            key = bit ?? 0;
          }
          const members = type === 'list-string' ? [] : undefined;
          return { kind: 'attrib', target: parent.dict, key, type, text: '', members };
        }
        if (tag.name === 'section') {
          if (parent.kind === 'section' && parent.linkExtraction) fail('link_extraction holds attribs only');
          const sectionName = name('name');
          const dict = new FswcuDict();
          parent.dict.set(fswcuBytes(sectionName), dict);
          return { kind: 'section', dict, linkExtraction: sectionName === FSCMT_LINK_EXTRACTION_SECTION };
        }
        const collection = BLOCKS[tag.name];
        if (collection !== undefined && parent.kind === 'domain') {
          const blockName = name('name');
          const key = fswcuBytes(collection);
          let blocks = parent.dict.get(key);
          if (!(blocks instanceof FswcuDict)) parent.dict.set(key, (blocks = new FswcuDict()));
          const dict = new FswcuDict();
          blocks.set(fswcuBytes(blockName), dict);
          return { kind: 'block', dict };
        }
        break;
      }
      case 'attrib':
        if (tag.name === 'member' && parent.members !== undefined) return { kind: 'member', text: '' };
        break;
      case 'member':
        break;
    }
    return fail(`unexpected <${tag.name}> in ${describe(parent)}`);
  }

  function openDomain(domainName: string): Frame {
    const dict = new FswcuDict();
    result.set(fswcuBytes(domainName), dict);
    return { kind: 'domain', dict };
  }

  function close(frame: Frame, parent: Frame): void {
    if (frame.kind === 'member' && parent.kind === 'attrib') parent.members?.push(fswcuBytes(frame.text.trim()));
    if (frame.kind === 'attrib') frame.target.set(frame.key, attribValue(frame));
  }

  function attribValue(frame: Extract<Frame, { kind: 'attrib' }>): FswcuValue {
    const raw = frame.text.trim();
    switch (frame.type) {
      case 'integer': {
        if (!/^[+-]?\d+$/.test(raw)) return fail(`integer attrib has the value ${JSON.stringify(raw)}`);
        const big = BigInt(raw);
        return big === BigInt.asIntN(32, big) ? Number(big) : big;
      }
      case 'string':
        return fswcuBytes(raw);
      case 'list-string':
        if (raw !== '') fail('list-string attrib has text outside its <member> elements');
        return frame.members ?? [];
      case 'boolean': {
        const lower = raw.toLowerCase();
        if (['yes', 'true', '1'].includes(lower)) return 1;
        if (['no', 'false', '0'].includes(lower)) return 0;
        return fail(`boolean attrib has the value ${JSON.stringify(raw)}`);
      }
      case 'real': {
        const value = parseFswcuFloatText(raw);
        if (value === undefined) return fail(`real attrib has the value ${JSON.stringify(raw)}`);
        return new FswcuFloat(value);
      }
      default:
        return fail(`unknown attrib type "${frame.type}"`);
    }
  }

  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof FscmtCrawlConfigError) throw err;
    throw new FscmtCrawlConfigError(`malformed XML: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return result;
}

function describe(frame: Frame): string {
  switch (frame.kind) {
    case 'document':
      return 'the document (expected CrawlerConfig or DomainSpecification)';
    case 'config':
      return 'CrawlerConfig';
    case 'domain':
      return 'DomainSpecification';
    case 'block':
      return 'a SubDomain / Login / Node';
    case 'section':
      return 'a section';
    case 'attrib':
      return 'an attrib';
    case 'member':
      return 'a member';
  }
}
