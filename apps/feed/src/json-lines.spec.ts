import { describe, expect, it } from 'vitest';
import { InputError } from './input-error';
import { documentFromJson, LineSplitter, nestedDeeperThan, type LineEvent } from './json-lines';

const enc = (s: string) => new TextEncoder().encode(s);

function split(chunks: Uint8Array[], maxBytes = 100): LineEvent[] {
  const out: LineEvent[] = [];
  const s = new LineSplitter(maxBytes, (e) => out.push(e));
  for (const c of chunks) s.parse(c);
  s.end();
  return out;
}

describe('line splitter', () => {
  const text = 'eins\r\nzwei – drei\n\nvier';
  const expected = [
    { n: 1, line: 'eins' },
    { n: 2, line: 'zwei – drei' },
    { n: 3, line: '' },
    { n: 4, line: 'vier' },
  ];
  it('splits LF and CRLF lines, numbers them, keeps the last line without a newline', () => {
    expect(split([enc(text)])).toEqual(expected);
  });
  it('gives the same lines for bytes one at a time and for every split point (also inside a UTF-8 character)', () => {
    const bytes = enc(text);
    expect(split([...bytes].map((b) => Uint8Array.of(b)))).toEqual(expected);
    for (let i = 0; i <= bytes.length; i++) expect(split([bytes.subarray(0, i), bytes.subarray(i)])).toEqual(expected);
  });
  it('a line over the limit is reported by its length, without its bytes, and the next lines still come', () => {
    const long = 'x'.repeat(1000);
    const chunks = [enc('ok\n'), ...Array.from({ length: 10 }, () => enc(long)), enc('\nafter\r\n')];
    expect(split(chunks, 100)).toEqual([{ n: 1, line: 'ok' }, { n: 2, tooLong: 10_000 }, { n: 3, line: 'after' }]);
  });
  it('the limit counts the line without its CRLF', () => {
    expect(split([enc('abcd\r\nabcde\n')], 4)).toEqual([{ n: 1, line: 'abcd' }, { n: 2, tooLong: 5 }]);
  });
});

describe('JSON nesting depth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(nestedDeeperThan('{"a":[[1]]}', 3)).toBe(false);
    expect(nestedDeeperThan('{"a":[[[1]]]}', 3)).toBe(true);
    expect(nestedDeeperThan('{"a":"[[[[[\\"[[[["}', 1)).toBe(false);
  });
  it('a line nested 100,000 deep is measured without blowing the stack', () => {
    expect(nestedDeeperThan('['.repeat(100_000) + ']'.repeat(100_000), 64)).toBe(true);
  });
});

describe('JSON lines documents', () => {
  it('a line nested deeper than the limit is an input error (not a stack overflow)', () => {
    const deep = '{"id":"d","x":' + '['.repeat(5000) + ']'.repeat(5000) + '}';
    expect(() => documentFromJson(deep, 'in.jsonl:3')).toThrow(InputError);
    expect(() => documentFromJson(deep, 'in.jsonl:3')).toThrow(/in\.jsonl:3: nested deeper than 64 levels/);
    expect(documentFromJson('{"id":"d","x":[[1]]}', 'x:1')).toEqual({ id: 'd', attributes: { x: '[[1]]' } });
  });
  it('reads the attributes form and the flat form, and remove', () => {
    expect(documentFromJson('{"id":"a","attributes":{"title":"T","n":3}}', 'x:1')).toEqual({ id: 'a', attributes: { title: 'T', n: 3 } });
    expect(documentFromJson('{"id":"b","title":"T","tags":["x"]}', 'x:2')).toEqual({ id: 'b', attributes: { title: 'T', tags: ['x'] } });
    expect(documentFromJson('{"id":"c","remove":true}', 'x:3')).toMatchObject({ id: 'c', remove: true });
  });
  it('says where a bad line is and why', () => {
    expect(() => documentFromJson('{nope', 'in.jsonl:7')).toThrow(InputError);
    expect(() => documentFromJson('{nope', 'in.jsonl:7')).toThrow(/in\.jsonl:7: not JSON/);
    expect(() => documentFromJson('{"title":"x"}', 'in.jsonl:8')).toThrow(/"id" must be a non-empty string/);
    expect(() => documentFromJson('[1]', 'in.jsonl:9')).toThrow(/expected a JSON object/);
  });
});
