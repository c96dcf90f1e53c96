import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BytearrayAttribute,
  FloatAttribute,
  KeyValueCollection,
  KeyValuePair,
  LongCollection,
  StringAttribute,
} from '@esp/codecs';
import { searchInterface, UnknownCollection, validateResult } from '@esp/interfaces';
import { BadParameter } from '@esp/middleware';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributesOf } from './attributes';
import { DocumentStore, openCollectionDb, type Db } from './collection-store';
import { SearchService } from './search-service';

describe('SearchService', () => {
  let dir: string;
  let db: Db;
  let service: SearchService;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'indexer-search-'));
    db = openCollectionDb(dir, 'c');
    const docs = new DocumentStore(db);
    service = new SearchService(new Map([['c', { docs }]]));
    const { attributes } = attributesOf([
      new StringAttribute({ key: 'title', value: 'All kinds' }),
      new FloatAttribute({ key: 'nan', value: Number.NaN }),
      new FloatAttribute({ key: 'inf', value: Number.POSITIVE_INFINITY }),
      new FloatAttribute({ key: 'pi', value: 3.14 }),
      new BytearrayAttribute({ key: 'raw', value: Uint8Array.of(1, 2) }),
      new LongCollection({ key: 'longs', values: [1, 2] }),
      new KeyValueCollection({ key: 'meta', values: [new StringAttribute({ key: 'a', value: 'b' })] }),
      new KeyValuePair({ key: 'bare' }),
    ]);
    docs.upsert('d', attributes, 1, 1, '2026-01-01T00:00:00.000Z');
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('get returns what the interface allows for every attribute type (non-finite floats as their name)', () => {
    const doc = service.get('c', 'd');
    const checked = validateResult(searchInterface.methods.get, doc);
    expect(checked).toMatchObject({ ok: true });
    expect(doc!.attributes).toEqual({
      title: 'All kinds',
      nan: 'NaN',
      inf: 'Infinity',
      pi: 3.14,
      raw: Uint8Array.of(1, 2),
      longs: [1, 2],
      meta: [{ key: 'a', value: 'b' }],
      bare: null,
    });
    expect(service.get('c', 'absent')).toBeNull();
  });

  it('search and count validate too; unknown collection and a query without words are clear errors', () => {
    expect(validateResult(searchInterface.methods.search, service.search('c', 'kinds', 10, 0))).toMatchObject({ ok: true, value: { total: 1 } });
    expect(service.count('c')).toBe(1);
    expect(() => service.count('x')).toThrow(UnknownCollection);
    expect(() => service.search('c', '""', 10, 0)).toThrow(BadParameter);
  });
});
