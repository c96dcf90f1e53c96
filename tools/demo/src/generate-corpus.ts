/**
 * Writes the demo's sample corpus to tools/demo/corpus/ (committed; run again only to change it):
 *
 *   npx tsx tools/demo/src/generate-corpus.ts [--source /usr/share/common-licenses]
 *
 * The text is that of the free-software licences Debian ships in /usr/share/common-licenses (GPL, LGPL, GFDL,
 * Apache, MPL, Artistic, BSD, CC0), whose terms allow verbatim copies: every document is a few consecutive
 * paragraphs of one licence, quoted verbatim, as a plain-text, HTML or XML file in turn. Under broken/ are a few
 * documents the pipeline must refuse (XML that is not well-formed, bytes that are not UTF-8): the demo expects
 * exactly those to fail.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

export const LICENCES = ['GPL-1', 'GPL-2', 'GPL-3', 'LGPL-2', 'LGPL-2.1', 'LGPL-3', 'GFDL-1.2', 'GFDL-1.3', 'Apache-2.0', 'MPL-1.1', 'MPL-2.0', 'Artistic', 'BSD', 'CC0-1.0'];
const PARAGRAPHS_PER_DOCUMENT = 2;

const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Paragraphs (blank-line separated) of a text, the short ones (headings, "END OF TERMS") joined to the next. */
export function paragraphs(text: string): string[] {
  const out: string[] = [];
  let carry = '';
  for (const p of text.split(/\n\s*\n/)) {
    const t = p.trim();
    if (!t) continue;
    if ((carry + t).length < 120) {
      carry = carry ? `${carry}\n\n${t}` : t;
      continue;
    }
    out.push(carry ? `${carry}\n\n${t}` : t);
    carry = '';
  }
  if (carry) out.push(carry);
  return out;
}

function render(kind: 'txt' | 'html' | 'xml', title: string, parts: string[]): string {
  if (kind === 'txt') return `${title}\n\n${parts.join('\n\n')}\n`;
  if (kind === 'html') {
    return `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${escape(title)}</title></head>\n<body>\n<h1>${escape(title)}</h1>\n${parts.map((p) => `<p>${escape(p)}</p>`).join('\n')}\n</body>\n</html>\n`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<document>\n  <title>${escape(title)}</title>\n${parts.map((p) => `  <para>${escape(p)}</para>`).join('\n')}\n</document>\n`;
}

/** The intentionally broken documents: file name → bytes. */
export function brokenDocuments(): Record<string, Uint8Array> {
  const enc = new TextEncoder();
  const latin1 = (s: string) => Uint8Array.from([...s].map((c) => c.charCodeAt(0) & 0xff));
  return {
    'unclosed-element.xml': enc.encode('<?xml version="1.0"?>\n<document><title>Unclosed</title><para>This element is never closed.\n</document>\n'),
    'two-roots.xml': enc.encode('<?xml version="1.0"?>\n<document>one</document>\n<document>two</document>\n'),
    'bad-entity.xml': enc.encode('<?xml version="1.0"?>\n<document><para>Terms &amp conditions &nosuchentity; apply.</para></document>\n'),
    // text in another character set is decoded (the charset stage finds which); text that says it is UTF-8 and is not, is refused
    'latin1-declared-utf8.html': latin1(
      '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Pas UTF-8</title></head>\n<body><p>Ce texte est encod\u00e9 en ISO-8859-1 et non en UTF-8: fran\u00e7ais, \u00e9t\u00e9, na\u00efve.</p></body></html>\n',
    ),
    'truncated-sequence.txt': Uint8Array.from([0xef, 0xbb, 0xbf, ...enc.encode('A UTF-8 byte order mark, then a UTF-8 sequence cut short: '), 0xe2, 0x82, 0x0a]),
  };
}

export function generate(source: string, out: string): { documents: number; broken: number } {
  rmSync(out, { recursive: true, force: true });
  const kinds = ['txt', 'html', 'xml'] as const;
  let n = 0;
  for (const licence of LICENCES) {
    const ps = paragraphs(readFileSync(join(source, licence), 'utf8'));
    const dir = join(out, licence.toLowerCase());
    mkdirSync(dir, { recursive: true });
    for (let i = 0, part = 1; i < ps.length; i += PARAGRAPHS_PER_DOCUMENT, part++) {
      const kind = kinds[n % kinds.length] ?? 'txt';
      const title = `${licence} licence, part ${part}`;
      writeFileSync(join(dir, `${String(part).padStart(3, '0')}.${kind}`), render(kind, title, ps.slice(i, i + PARAGRAPHS_PER_DOCUMENT)));
      n++;
    }
  }
  const broken = brokenDocuments();
  mkdirSync(join(out, 'broken'), { recursive: true });
  for (const [name, bytes] of Object.entries(broken)) writeFileSync(join(out, 'broken', name), bytes);
  return { documents: n + Object.keys(broken).length, broken: Object.keys(broken).length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { source: { type: 'string' }, out: { type: 'string' } } });
  const out = values.out ?? new URL('../corpus', import.meta.url).pathname;
  const r = generate(values.source ?? '/usr/share/common-licenses', out);
  process.stdout.write(`wrote ${r.documents} documents (${r.broken} intentionally broken) to ${out}\n`);
}
