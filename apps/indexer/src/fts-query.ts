/**
 * User query text -> an FTS5 MATCH expression that is always valid. FTS5's own query syntax (AND / OR / NOT / NEAR,
 * column filters, parentheses, "^", "+") is not exposed: every word is quoted, so any text at all is a query and
 * nothing a user types can be an FTS5 syntax error or reach other columns.
 *
 *   toFtsQuery('hello  wor*')          // '"hello" "wor"*'           both words, the second as a prefix
 *   toFtsQuery('"exact phrase" x')     // '"exact phrase" "x"'       a quoted phrase stays a phrase
 *   toFtsQuery('a"b OR title:c')       // '"a""b" "OR" "title:c"'    operators are just words
 *   toFtsQuery(' *** ')                // throws EmptyQueryError
 *
 * Terms are ANDed; ranking is bm25 (see DocumentStore.search).
 */

export class EmptyQueryError extends Error {
  override name = 'EmptyQueryError';
}

/** Characters the unicode61 tokenizer keeps in tokens (classes L*, N*, Co); a term without any finds nothing. */
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;

/** At most this many terms are used (longer queries only get slower, not better). */
export const MAX_QUERY_TERMS = 64;

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** Splits user text into words and "quoted phrases"; a word ending in * is a prefix. */
export function queryTerms(text: string): { text: string; prefix: boolean }[] {
  const terms: { text: string; prefix: boolean }[] = [];
  const re = /"([^"]*)"?(\*?)|([^\s"]+)/gu;
  // control characters and lone surrogates separate tokens anyway; as spaces they cannot upset the query parser
  for (const m of text.replace(/[\p{Cc}\p{Cs}]/gu, ' ').matchAll(re)) {
    let raw = m[1] ?? m[3] ?? '';
    let prefix = m[2] === '*';
    if (m[3] !== undefined && raw.endsWith('*')) {
      raw = raw.replace(/\*+$/u, '');
      prefix = true;
    }
    if (TOKEN_CHAR.test(raw)) terms.push({ text: raw, prefix });
  }
  return terms;
}

export function toFtsQuery(text: string): string {
  const terms = queryTerms(text).slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) {
    throw new EmptyQueryError(`the query ${JSON.stringify(text.slice(0, 80))} has no word to search for (letters or digits)`);
  }
  return terms.map((t) => quote(t.text) + (t.prefix ? '*' : '')).join(' ');
}
