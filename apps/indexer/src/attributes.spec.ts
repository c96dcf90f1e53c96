import {
  BoolAttribute,
  BoolCollection,
  BytearrayAttribute,
  BytearrayCollection,
  FloatAttribute,
  FloatCollection,
  IntegerAttribute,
  IntegerCollection,
  KeyValueCollection,
  KeyValuePair,
  LongAttribute,
  LongCollection,
  StringAttribute,
  StringCollection,
} from '@esp/codecs';
import { describe, expect, it } from 'vitest';
import { attributesOf, decodeAttributes, encodeAttributes, searchableText } from './attributes';

describe('attributes', () => {
  const all = [
    new StringAttribute({ key: 'title', value: 'Hello' }),
    new BoolAttribute({ key: 'b', value: true }),
    new FloatAttribute({ key: 'f', value: 1.5 }),
    new FloatAttribute({ key: 'nan', value: Number.NaN }),
    new FloatAttribute({ key: 'inf', value: Number.NEGATIVE_INFINITY }),
    new IntegerAttribute({ key: 'i', value: -7 }),
    new LongAttribute({ key: 'l', value: 2 ** 53 - 1 }),
    new BytearrayAttribute({ key: 'bytes', value: Uint8Array.of(0, 255, 7) }),
    new StringCollection({ key: 'tags', values: ['a', 'b'] }),
    new BoolCollection({ key: 'bs', values: [true, false] }),
    new FloatCollection({ key: 'fs', values: [0.25] }),
    new IntegerCollection({ key: 'is', values: [1, 2] }),
    new LongCollection({ key: 'ls', values: [3] }),
    new BytearrayCollection({ key: 'bl', values: [Uint8Array.of(1)] }),
    new KeyValueCollection({ key: 'meta', values: [new StringAttribute({ key: 'author', value: 'Ann' }), new IntegerAttribute({ key: 'year', value: 2020 })] }),
    new KeyValuePair({ key: 'bare' }),
  ];

  it('every key_value_pair subtype becomes a plain value', () => {
    const { attributes, repeated } = attributesOf(all);
    expect(repeated).toEqual([]);
    expect({ ...attributes }).toEqual({
      title: 'Hello',
      b: true,
      f: 1.5,
      nan: Number.NaN,
      inf: Number.NEGATIVE_INFINITY,
      i: -7,
      l: 2 ** 53 - 1,
      bytes: Uint8Array.of(0, 255, 7),
      tags: ['a', 'b'],
      bs: [true, false],
      fs: [0.25],
      is: [1, 2],
      ls: [3],
      bl: [Uint8Array.of(1)],
      meta: [
        { key: 'author', value: 'Ann' },
        { key: 'year', value: 2020 },
      ],
      bare: null,
    });
  });

  it('a key given twice keeps the last value and is named', () => {
    const r = attributesOf([new StringAttribute({ key: 'x', value: '1' }), new StringAttribute({ key: 'x', value: '2' })]);
    expect(r.attributes['x']).toBe('2');
    expect(r.repeated).toEqual(['x']);
  });

  it('JSON form round-trips bytes and non-finite floats exactly', () => {
    const { attributes } = attributesOf(all);
    const back = decodeAttributes(encodeAttributes(attributes));
    expect({ ...back }).toEqual({ ...attributes });
    expect(back['bytes']).toBeInstanceOf(Uint8Array);
  });

  it('a key like __proto__ is an ordinary attribute', () => {
    const { attributes } = attributesOf([new StringAttribute({ key: '__proto__', value: 'p' }), new StringAttribute({ key: 'constructor', value: 'c' })]);
    const back = decodeAttributes(encodeAttributes(attributes));
    expect(back['__proto__']).toBe('p');
    expect(Object.keys(back).sort()).toEqual(['__proto__', 'constructor']);
  });

  it('searchable text: title, body/text/content, every other string in extra', () => {
    const { attributes } = attributesOf([
      new StringAttribute({ key: 'Title', value: 'Storm' }),
      new StringAttribute({ key: 'body', value: 'wind' }),
      new StringAttribute({ key: 'content', value: 'rain' }),
      new StringAttribute({ key: 'url', value: 'http://x.test/a' }),
      new IntegerAttribute({ key: 'n', value: 5 }),
      new KeyValueCollection({ key: 'meta', values: [new StringAttribute({ key: 'author', value: 'Ann' })] }),
      new StringCollection({ key: 'tags', values: ['sea'] }),
    ]);
    expect(searchableText(attributes)).toEqual({ title: 'Storm', body: 'wind\nrain', extra: 'http://x.test/a\nAnn\nsea' });
  });
});
