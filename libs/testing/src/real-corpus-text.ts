/**
 * Text of the test corpus: English-like sentences, and HTML, plain text and XML documents built block by block to a
 * target size, with the document's distinctive words at the start, the middle and the end of its text. The same
 * generator serves small documents (joined into one string) and documents of many megabytes (written chunk by chunk,
 * never held whole).
 *
 *   const doc = joinChunks(htmlChunks(rng, { title: 'Annual report', targetBytes: 7000, words: ['zorvex1q0', 'bel1q1'] }));
 */
import type { SeededRandom } from './real-corpus-random';

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they one ' +
  'you had were their all there been has when who will more if no out so said what up its about into than them can ' +
  'only other new some could time these two may then do first any like now my such make over our even most me state ' +
  'after also made many did must before back see through way where get much go well your know should down work year ' +
  'because come people just each good those take three how life own last being long between report market system ' +
  'service network customer product quarter revenue growth research policy council museum river harbour station ' +
  'library archive journal bridge valley engine signal planet garden winter summer autumn spring country village'
).split(' ');

/** A sentence of English-like words (ASCII), ending with a full stop. */
export function sentence(rng: SeededRandom, words: readonly string[] = WORDS): string {
  const n = rng.int(6, 18);
  let s = '';
  for (let i = 0; i < n; i++) s += (i ? ' ' : '') + rng.pick(words);
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}

export function paragraphText(rng: SeededRandom, words: readonly string[] = WORDS): string {
  const n = rng.int(2, 6);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(sentence(rng, words));
  return out.join(' ');
}

export interface TextDocSpec {
  readonly title: string;
  /** Approximate size of the document in characters (its bytes for ASCII text). */
  readonly targetBytes: number;
  /** Distinctive words: the first at the start, the last at the end, the others in between (the middle for three). */
  readonly words: readonly string[];
  /** The vocabulary of the filler text (default: English-like ASCII words). */
  readonly vocabulary?: readonly string[];
  /** HTML only: `<meta charset>` to declare, and the html lang attribute. */
  readonly charset?: string;
  readonly lang?: string;
  /** Extra sentences mentioned in the first paragraph (e.g. text with characters of a legacy charset). */
  readonly lead?: string;
}

/** Puts the distinctive words at the start, evenly in between, and at the end of a document's text. */
class WordPlacer {
  private placed = 0;
  constructor(private readonly spec: TextDocSpec) {}

  /** The words whose place is reached once `written` of the target are written (the last one only by `end`). */
  due(written: number, end = false): string[] {
    const words = this.spec.words;
    const out: string[] = [];
    while (this.placed < words.length) {
      const last = this.placed === words.length - 1 && words.length > 1;
      const at = last ? Infinity : words.length === 1 ? 0 : (this.spec.targetBytes * this.placed) / (words.length - 1);
      if (!end && written < at) break;
      out.push(words[this.placed] as string);
      this.placed++;
    }
    return out;
  }
}

function withWords(rng: SeededRandom, text: string, words: string[]): string {
  if (!words.length) return text;
  return `${text} ${words.map((w) => `${rng.pick(['See', 'About', 'Also', 'Note'])} ${w}.`).join(' ')}`;
}

const NAV = ['Home', 'Products', 'Services', 'News', 'Archive', 'Contact', 'About us', 'Careers', 'Support', 'Blog'];

function htmlBlock(rng: SeededRandom, vocabulary: readonly string[] | undefined, words: string[], n: number): string {
  const r = rng.next();
  if (r < 0.08) {
    let rows = '';
    const cols = rng.int(2, 5);
    for (let i = rng.int(2, 8); i > 0; i--) {
      rows += '<tr>';
      for (let c = 0; c < cols; c++) rows += `<td>${rng.pick(vocabulary ?? WORDS)} ${rng.int(1, 9999)}</td>`;
      rows += '</tr>\n';
    }
    return `<table class="data">\n<thead><tr>${Array.from({ length: cols }, (_, c) => `<th>Column ${c + 1}</th>`).join('')}</tr></thead>\n<tbody>\n${rows}</tbody>\n</table>\n${
      words.length ? `<p>${withWords(rng, paragraphText(rng, vocabulary), words)}</p>\n` : ''
    }`;
  }
  if (r < 0.14) {
    let items = '';
    for (let i = rng.int(3, 7); i > 0; i--) items += `  <li><a href="/section-${n}/item-${i}.html">${sentence(rng, vocabulary)}</a></li>\n`;
    return `<ul class="links">\n${items}</ul>\n${words.length ? `<p>${withWords(rng, paragraphText(rng, vocabulary), words)}</p>\n` : ''}`;
  }
  if (r < 0.2) return `<h2 id="s${n}">${sentence(rng, vocabulary).slice(0, -1)}</h2>\n<p>${withWords(rng, paragraphText(rng, vocabulary), words)}</p>\n`;
  if (r < 0.23) return `<script>window.dataLayer = window.dataLayer || []; dataLayer.push({ section: ${n}, ts: ${rng.int(1e6, 9e6)} });</script>\n<p>${withWords(rng, paragraphText(rng, vocabulary), words)}</p>\n`;
  return `<p>${withWords(rng, paragraphText(rng, vocabulary), words)}</p>\n`;
}

/** An HTML page: head (meta, title, style, script), nav, then blocks to about `targetBytes`, then a footer. */
export function* htmlChunks(rng: SeededRandom, spec: TextDocSpec): Generator<string> {
  const place = new WordPlacer(spec);
  const voc = spec.vocabulary;
  const head =
    `<!DOCTYPE html>\n<html lang="${spec.lang ?? 'en'}">\n<head>\n` +
    (spec.charset ? `<meta charset="${spec.charset}">\n` : '') +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${spec.title}</title>\n` +
    `<style>body { font-family: sans-serif; margin: 0 auto; max-width: 60em; } nav a { padding: 0 .5em; } table.data td { border: 1px solid #ccc; }</style>\n` +
    `<script src="/static/site.js" defer></script>\n</head>\n<body>\n<header><h1>${spec.title}</h1></header>\n` +
    `<nav>${NAV.map((t, i) => `<a href="/${i === 0 ? '' : t.toLowerCase().replace(' ', '-') + '/'}">${t}</a>`).join(' ')}</nav>\n<main>\n` +
    `<p>${withWords(rng, (spec.lead ? spec.lead + ' ' : '') + paragraphText(rng, voc), place.due(0))}</p>\n`;
  const tail = () => `<p>${withWords(rng, paragraphText(rng, voc), place.due(Infinity, true))}</p>\n</main>\n<footer><p>Copyright ${rng.int(1998, 2025)} Example Corp. <a href="/privacy/">Privacy</a></p></footer>\n</body>\n</html>\n`;
  yield* blocks(head, spec.targetBytes - 400, (written, n) => htmlBlock(rng, voc, place.due(written), n), tail);
}

/** Plain text: a title line, then paragraphs separated by blank lines. */
export function* textChunks(rng: SeededRandom, spec: TextDocSpec): Generator<string> {
  const place = new WordPlacer(spec);
  const voc = spec.vocabulary;
  const head = `${spec.title}\n${'='.repeat(spec.title.length)}\n\n${withWords(rng, (spec.lead ? spec.lead + ' ' : '') + paragraphText(rng, voc), place.due(0))}\n\n`;
  yield* blocks(head, spec.targetBytes - 200, (written) => `${withWords(rng, paragraphText(rng, voc), place.due(written))}\n\n`, () => `${withWords(rng, paragraphText(rng, voc), place.due(Infinity, true))}\n`);
}

/** XML: a feed of items with titles and descriptions (no namespaces, nothing to escape). */
export function* xmlChunks(rng: SeededRandom, spec: TextDocSpec): Generator<string> {
  const place = new WordPlacer(spec);
  const voc = spec.vocabulary;
  const item = (n: number, words: string[]) =>
    `  <item id="${n}">\n    <title>${sentence(rng, voc).slice(0, -1)}</title>\n    <published>20${String(rng.int(10, 25))}-0${rng.int(1, 9)}-1${rng.int(0, 9)}</published>\n    <description>${withWords(rng, paragraphText(rng, voc), words)}</description>\n  </item>\n`;
  const head = `<?xml version="1.0" encoding="UTF-8"?>\n<catalog>\n  <title>${spec.title}</title>\n${item(0, place.due(0))}`;
  yield* blocks(head, spec.targetBytes - 300, (written, n) => item(n, place.due(written)), () => `${item(1e6, place.due(Infinity, true))}</catalog>\n`);
}

/**
 * The head, blocks until `target` characters, then the tail, in chunks of about 64 KiB (a large document is written
 * without ever being held whole).
 */
function* blocks(head: string, target: number, block: (written: number, n: number) => string, tail: () => string): Generator<string> {
  let chunk = head;
  let written = head.length;
  for (let n = 1; written < target; n++) {
    const b = block(written, n);
    chunk += b;
    written += b.length;
    if (chunk.length >= 65536) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + tail();
}

export function joinChunks(chunks: Iterable<string>): string {
  let s = '';
  for (const c of chunks) s += c;
  return s;
}
