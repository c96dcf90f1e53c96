import { BytearrayAttribute, DocumentEntity, DocumentId, StringAttribute, type KeyValuePair } from '@esp/codecs';
import { Middleware } from '@esp/middleware';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIn, checkOut, ClaimCheckFailure, documentBytes, hasContentRefs } from '../src';

function doc(id: string, attrs: Record<string, string | Uint8Array>): DocumentEntity {
  const list: KeyValuePair[] = Object.entries(attrs).map(([key, v]) => (typeof v === 'string' ? new StringAttribute({ key, value: v }) : new BytearrayAttribute({ key, value: v })));
  return new DocumentEntity({ doc_id: new DocumentId({ id }), document_attributes: list });
}

function attr(d: DocumentEntity, key: string): unknown {
  const a = d.document_attributes.find((x) => x.key === key);
  return a && 'value' in a ? (a as { value: unknown }).value : undefined;
}

describe('claim check against a real nats-server', () => {
  let ns: NatsServer;
  let mw: Middleware;
  let n = 0;
  const name = () => `test/${++n}`;
  beforeAll(async () => {
    ns = await NatsServer.start();
    mw = await Middleware.connect({ name: 'claim-check-test', servers: ns.url });
  });
  afterAll(async () => {
    await mw?.close();
    await ns?.cleanup();
  });

  it('moves attributes over the threshold out and puts them back, text as text and bytes as bytes', async () => {
    const text = 'é'.repeat(200_000);
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251);
    const d = doc('a', { title: 'small', body: text, raw: bytes });
    const out = await checkOut([d], { store: () => mw.blobs(), thresholdBytes: 256 * 1024, objectName: name });
    expect(out.refs).toHaveLength(2);
    const sent = out.docs[0]!;
    expect(hasContentRefs(sent)).toBe(true);
    expect(sent.document_attributes.map((a) => a.key)).toEqual(['title', 'esp.ref.body', 'esp.ref.raw']);
    expect(documentBytes(sent)).toBeLessThan(2000);
    const back = (await checkIn(sent, { store: (bucket) => mw.blobs({ bucket }), maxBytes: 1 << 20 })).doc;
    expect(attr(back, 'title')).toBe('small');
    expect(attr(back, 'body')).toBe(text);
    expect(attr(back, 'raw')).toEqual(bytes);
    expect(back.document_attributes.find((a) => a.key === 'raw')).toBeInstanceOf(BytearrayAttribute);
  });

  it('a document under the threshold is left alone, and no store is opened for it', async () => {
    const d = doc('b', { body: 'short' });
    let opened = 0;
    const out = await checkOut([d], { store: () => (opened++, mw.blobs()), thresholdBytes: 1024, objectName: name });
    expect(out.docs[0]).toBe(d);
    expect(opened).toBe(0);
  });

  it('over the budget, the largest attributes go first until the documents fit', async () => {
    const docs = Array.from({ length: 10 }, (_, i) => doc(`c${i}`, { body: 'x'.repeat(10_000 * (i + 1)), title: `t${i}` }));
    const before = docs.reduce((s, d) => s + documentBytes(d), 0);
    const out = await checkOut(docs, { store: () => mw.blobs(), thresholdBytes: 1 << 20, budgetBytes: 300_000, objectName: name });
    const after = out.docs.reduce((s, d) => s + documentBytes(d), 0);
    expect(before).toBeGreaterThan(500_000);
    expect(after).toBeLessThanOrEqual(300_000);
    // the largest (c9, c8, ...) went out, the smallest stayed inline
    expect(hasContentRefs(out.docs[9]!)).toBe(true);
    expect(hasContentRefs(out.docs[0]!)).toBe(false);
  });

  it('fails with content_unavailable when the object is gone or the reference is bad, document_too_large over the limit', async () => {
    const d = doc('d', { body: 'y'.repeat(5000) });
    const out = await checkOut([d], { store: () => mw.blobs(), thresholdBytes: 1000, objectName: name });
    const sent = out.docs[0]!;
    await expect(checkIn(sent, { store: (b) => mw.blobs({ bucket: b }), maxBytes: 100 })).rejects.toMatchObject({ error: 'document_too_large', message: expect.stringMatching(/limit of 100 bytes/) });
    await (await mw.blobs()).delete(out.refs[0]!.name);
    const gone = checkIn(sent, { store: (b) => mw.blobs({ bucket: b }), maxBytes: 1 << 20 });
    await expect(gone).rejects.toBeInstanceOf(ClaimCheckFailure);
    await expect(gone).rejects.toMatchObject({ error: 'content_unavailable', message: expect.stringMatching(/not in bucket/) });
    const bad = doc('e', { 'esp.ref.body': '{"bucket":"esp_content"}' });
    await expect(checkIn(bad, { store: (b) => mw.blobs({ bucket: b }), maxBytes: 1 << 20 })).rejects.toMatchObject({ error: 'content_unavailable', message: expect.stringMatching(/bad content reference/) });
  });
});
