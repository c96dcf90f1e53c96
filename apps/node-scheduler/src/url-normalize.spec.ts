import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeUri, queryParamMatcher } from './url-normalize';

describe('URL normalisation', () => {
  it('scheme and host case, default ports, dot segments, fragments, percent-encodings, empty query', () => {
    expect(normalizeUri('HTTP://Example.COM:80/a/./b/../c#top')).toBe('http://example.com/a/c');
    expect(normalizeUri('https://example.com:443/?')).toBe('https://example.com/');
    expect(normalizeUri('https://example.com:8443/x')).toBe('https://example.com:8443/x');
    expect(normalizeUri('http://h/%7euser/a%2fb?q=%7e%2f')).toBe('http://h/~user/a%2Fb?q=~%2F');
    expect(normalizeUri('http://h')).toBe('http://h/');
    expect(normalizeUri('mailto:a@b')).toBeUndefined();
    expect(normalizeUri('not a url')).toBeUndefined();
  });

  it('removes the configured query parameters (exact names and prefixes), keeps the others in order', () => {
    const strip = queryParamMatcher(['utm_*', 'SessionID', ' ']);
    expect(normalizeUri('http://h/p?b=2&utm_source=x&a=1&sessionid=42&UTM_Medium=y', strip)).toBe('http://h/p?b=2&a=1');
    expect(normalizeUri('http://h/p?utm_source=x', strip)).toBe('http://h/p');
    expect(normalizeUri('http://h/p?utm%5Fsource=x&k', strip)).toBe('http://h/p?k');
    expect(normalizeUri('http://h/p?utm_source=x')).toBe('http://h/p?utm_source=x');
    expect(queryParamMatcher([])).toBeUndefined();
  });

  it('is idempotent', () => {
    const strip = queryParamMatcher(['utm_*']);
    fc.assert(
      fc.property(fc.webUrl({ withFragments: true, withQueryParameters: true }), (url) => {
        const once = normalizeUri(url, strip);
        if (once !== undefined) expect(normalizeUri(once, strip)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });
});
