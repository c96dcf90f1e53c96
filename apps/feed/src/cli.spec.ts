import { describe, expect, it } from 'vitest';
import { parseCli } from './cli';
import { documentFromJson, InputError } from './document-source';

describe('feed cli', () => {
  it('needs a collection and an input', () => {
    expect(parseCli(['x.jsonl'], {})).toMatchObject({ kind: 'error', message: '--collection is required' });
    expect(parseCli(['--collection', 'c'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/no input/) });
  });
  it('has defaults and checks numbers', () => {
    expect(parseCli(['--collection', 'c', 'a', 'b'], {})).toMatchObject({ kind: 'run', collection: 'c', inputs: ['a', 'b'], batchSize: 100, limitedResubmits: 3 });
    expect(parseCli(['--collection', 'c', '--batch-size', '0', 'a'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--batch-size/) });
  });
  it('--help explains the inputs and the statuses', () => {
    const h = parseCli(['--help'], {});
    expect(h.kind).toBe('help');
    expect(h.kind === 'help' && h.text).toMatch(/secured/);
  });
});

describe('JSON lines documents', () => {
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
