import {
  BoolAttribute,
  BytearrayAttribute,
  FloatAttribute,
  LongAttribute,
  RemoveOperation,
  StringAttribute,
  StringCollection,
  UpdateOperation,
  decodeCheetah,
  encodeCheetah,
} from '@esp/codecs';
import { describe, expect, it } from 'vitest';
import { toOperation } from './feed-document';

describe('toOperation', () => {
  it('makes an update_operation whose attributes keep their types', () => {
    const op = toOperation(7, { id: 'doc-1', attributes: { title: 'T', n: 3, f: 1.5, ok: true, raw: new Uint8Array([1, 2]), tags: ['a', 'b'] } });
    expect(op).toBeInstanceOf(UpdateOperation);
    const u = op as UpdateOperation;
    expect(u.id).toBe(7);
    expect(u.doc.doc_id.id).toBe('doc-1');
    const kinds = u.doc.document_attributes.map((a) => [a.key, a.constructor]);
    expect(kinds).toEqual([
      ['title', StringAttribute],
      ['n', LongAttribute],
      ['f', FloatAttribute],
      ['ok', BoolAttribute],
      ['raw', BytearrayAttribute],
      ['tags', StringCollection],
    ]);
    // and it survives the wire
    const back = decodeCheetah(encodeCheetah(op)) as UpdateOperation;
    expect(back.doc.document_attributes.map((a) => a.key)).toEqual(['title', 'n', 'f', 'ok', 'raw', 'tags']);
  });

  it('makes a remove_operation for remove', () => {
    const op = toOperation(8, { id: 'gone', remove: true });
    expect(op).toBeInstanceOf(RemoveOperation);
    expect((op as RemoveOperation).doc_id.id).toBe('gone');
  });

  it('refuses a negative operation id (MS-FSDPD 2.2.12)', () => {
    expect(() => toOperation(-1, { id: 'x' })).toThrow();
  });
});
