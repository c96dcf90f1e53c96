import { describe, expect, it } from 'vitest';
import { EmptyQueryError, MAX_QUERY_TERMS, queryTerms, toFtsQuery } from './fts-query';

describe('toFtsQuery', () => {
  it('quotes every word, so FTS5 operators and column filters are plain words', () => {
    expect(toFtsQuery('hello world')).toBe('"hello" "world"');
    expect(toFtsQuery('a OR b NOT c')).toBe('"a" "OR" "b" "NOT" "c"');
    expect(toFtsQuery('title:secret body : x')).toBe('"title:secret" "body" "x"');
    expect(toFtsQuery('NEAR(a b) ^start +plus')).toBe('"NEAR(a" "b)" "^start" "+plus"');
  });
  it('doubles quotes inside a word, keeps "quoted phrases" and trailing * as a prefix', () => {
    expect(toFtsQuery('a"b')).toBe('"a" "b"');
    expect(toFtsQuery('"north sea" storm*')).toBe('"north sea" "storm"*');
    expect(toFtsQuery('"unterminated phrase')).toBe('"unterminated phrase"');
    expect(toFtsQuery('"ab"*')).toBe('"ab"*');
    expect(toFtsQuery("it's")).toBe('"it\'s"');
  });
  it('drops terms without a letter or digit; nothing left is a clear error', () => {
    expect(toFtsQuery('*** hello !!!')).toBe('"hello"');
    for (const q of ['', '   ', '***', '"', '""', '"" ""', '-', '\u0000\u0001', '\ud800']) {
      expect(() => toFtsQuery(q)).toThrow(EmptyQueryError);
    }
    expect(() => toFtsQuery('!!')).toThrow(/no word to search for/);
  });
  it('control characters and lone surrogates separate words', () => {
    expect(toFtsQuery('a\u0000b\ud800c')).toBe('"a" "b" "c"');
  });
  it(`keeps at most ${MAX_QUERY_TERMS} terms`, () => {
    expect(queryTerms(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(100);
    expect(toFtsQuery(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ')).split(' ')).toHaveLength(MAX_QUERY_TERMS);
  });
});
