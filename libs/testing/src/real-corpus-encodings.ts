/**
 * HTML in legacy character sets (ISO-8859-1, Windows-1252, Shift_JIS), encoded with iconv-lite, with or without a
 * `<meta charset>`. Each holds distinctive words made of characters of its charset, so that finding them proves the
 * bytes were decoded with the right charset:
 *
 * - ISO-8859-1: a pseudo-word with ü and é; decoded as UTF-8 it breaks into pieces and is found no more.
 * - Windows-1252: a pseudo-word with œ and š, which only 1252 has (bytes 0x9C and 0x9A, C1 controls in ISO-8859-1, so
 *   a Latin-1 decoding splits the word); the text also holds “smart quotes”, € and —.
 * - Shift_JIS: a run of Japanese characters and digits between spaces. The FTS5 unicode61 tokenizer splits on
 *   characters that are not letters or digits only, so the run is ONE token and is searched whole.
 *
 *   const doc = legacyHtml(rng, 'shift_jis', { doc: 3, withMeta: false, asciiWord: 'zorvex3q0' });
 *   doc.bytes   // Shift_JIS bytes; doc.words = ['zorvex3q0', '日本語の検索3号'] (FTS5 folds the diacritics of the others)
 */
import iconv from 'iconv-lite';
import type { SeededRandom } from './real-corpus-random';
import { htmlChunks, joinChunks } from './real-corpus-text';

export type LegacyCharset = 'iso-8859-1' | 'windows-1252' | 'shift_jis';

/** The name written in `<meta charset>` (and the manifest's `charset`). */
export const CHARSET_LABEL: Record<LegacyCharset, string> = { 'iso-8859-1': 'ISO-8859-1', 'windows-1252': 'windows-1252', shift_jis: 'Shift_JIS' };

const GERMAN_FRENCH = (
  'der die das und über für schön Straße Zürichsee Grüße Bäcker Käse Müller größer Öffnung fröhlich ' +
  'la le les et crème brûlée café déjà élève être français garçon hôtel naïve où très château forêt Noël ' +
  'année façade théâtre réservé fenêtre à côté près Genève Köln München Österreich Märchen Übersicht'
).split(' ');

const WIN1252 = (
  'the price of the œuvre rose — “quite sharply” — to 40 € per copy; Škoda Žilina Œuvres Ÿvette naïve ' +
  'café ‘quoted’ dealer’s catalogue … and the manœuvre of the bureau • tariff ™ edition ‰ crème'
).split(' ');

const JAPANESE = (
  '日本語 東京 大阪 検索 文書 情報 システム 会社 ニュース 天気 今日 明日 新しい 技術 開発 研究 資料 ' +
  'について です ます ありがとう ございます 図書館 駅 電車 桜 春 夏 秋 冬 山 川 海 京都 価格 報告'
).split(' ');

function japaneseParagraph(rng: SeededRandom): string {
  let s = '';
  for (let i = rng.int(8, 20); i > 0; i--) s += rng.pick(JAPANESE) + (rng.chance(0.3) ? '、' : ' ');
  return s.trim() + '。';
}

export interface LegacyDoc {
  readonly bytes: Buffer;
  readonly words: string[];
  /** The query that finds the non-ASCII word (as the search service takes it). */
  readonly queries: string[];
}

/** An HTML page of about `targetBytes` in a legacy charset; `asciiWord` is its ASCII distinctive word. */
export function legacyHtml(
  rng: SeededRandom,
  charset: LegacyCharset,
  opts: { doc: number; withMeta: boolean; asciiWord: string; targetBytes?: number },
): LegacyDoc {
  const { doc, withMeta, asciiWord } = opts;
  const targetBytes = opts.targetBytes ?? rng.int(4000, 12000);
  let word: string;
  let vocabulary: readonly string[];
  let lead: string;
  let title: string;
  let lang: string;
  if (charset === 'iso-8859-1') {
    word = `zürvexé${doc}q1`;
    vocabulary = GERMAN_FRENCH;
    lead = 'Grüße vom Zürichsee: crème brûlée im Café am Genfer See, très naïve.';
    title = `Übersicht der Straßen ${doc}`;
    lang = 'de';
  } else if (charset === 'windows-1252') {
    word = `manœuvrešk${doc}q1`;
    vocabulary = WIN1252;
    lead = 'The “quoted” price — 40 € — of the Œuvres; it’s the dealer’s manœuvre.';
    title = `The “œuvre” catalogue ${doc} — prices in €`;
    lang = 'en';
  } else {
    word = `日本語の検索${doc}号`;
    vocabulary = JAPANESE;
    lead = `${japaneseParagraph(rng)} ${japaneseParagraph(rng)}`;
    title = `日本語の文書 ${doc}`;
    lang = 'ja';
  }
  const html = joinChunks(
    htmlChunks(rng, { title, targetBytes, words: [asciiWord, word], vocabulary, lead, lang, ...(withMeta ? { charset: CHARSET_LABEL[charset] } : {}) }),
  );
  const bytes = iconv.encode(html, charset);
  if (iconv.decode(bytes, charset) !== html) throw new Error(`corpus: the ${charset} document ${doc} holds characters its charset lacks`);
  return { bytes, words: [asciiWord, word], queries: [asciiWord, word] };
}

/** HTML that declares UTF-8 but holds ISO-8859-1 bytes (a decoder must refuse it: utf8_error). */
export function mislabelledUtf8Html(rng: SeededRandom, asciiWord: string): Buffer {
  const html = joinChunks(htmlChunks(rng, { title: 'Café Zürich', targetBytes: 3000, words: [asciiWord], vocabulary: GERMAN_FRENCH, lead: 'Grüße, crème brûlée.', charset: 'UTF-8', lang: 'de' }));
  return iconv.encode(html, 'iso-8859-1');
}
