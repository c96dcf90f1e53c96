import { FeedingClient, type DocumentContent, type FeedDocument } from '@esp/content-client';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chain } from './chain';

const log = createLogger('e2e', {}, { level: 'warn' });
const FILLER = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ';

/**
 * Text content of `size` bytes, streamed in 64 KiB chunks, never built whole: `head` at the start, `middle` in the
 * middle and `tail` at the very end, so that a search for each proves the whole document was indexed.
 */
function textContent(size: number, head: string, middle: string, tail: string): DocumentContent & { reads: number } {
  const c = {
    size,
    reads: 0,
    async *open(): AsyncGenerator<Uint8Array> {
      c.reads++;
      const CHUNK = 64 * 1024;
      const headB = Buffer.from(`<html><head><title>${head}</title></head><body><p>${head} `);
      const tailB = Buffer.from(` ${tail}</p></body></html>`);
      const mid = Math.floor(size / 2);
      const midB = Buffer.from(` ${middle} `);
      const fill = Buffer.from(FILLER);
      for (let at = 0; at < size; at += CHUNK) {
        const n = Math.min(CHUNK, size - at);
        const b = Buffer.alloc(n);
        for (let i = 0; i < n; i++) b[i] = fill[(at + i) % fill.length]!;
        const put = (src: Buffer, pos: number) => {
          for (let i = 0; i < src.length; i++) if (pos + i >= at && pos + i < at + n) b[pos + i - at] = src[i]!;
        };
        put(headB, 0);
        put(midB, mid);
        put(tailB, size - tailB.length);
        yield b;
      }
    },
  };
  return c;
}

function html(i: number, bytes: number): FeedDocument {
  const words = `page${i}q `.concat(FILLER.repeat(Math.ceil(bytes / FILLER.length))).slice(0, bytes);
  return { id: `page-${i}`, attributes: { title: `Page ${i}`, body: `<html><body><p>${words}</p></body></html>`, content_type: 'text/html' } };
}

describe('large documents out of band (claim check) through the whole chain', () => {
  let chain: Chain;
  beforeAll(async () => {
    chain = await Chain.start({
      collections: ['big', 'kill'],
      processors: 2,
      pipeline: {
        pipelines: {
          standard: [{ type: 'utf8' }, { type: 'xml' }, { type: 'html' }, { type: 'normalize' }],
          // every document of the kill collection takes 300 ms: a batch is held long enough to kill its processor
          slow: [{ type: 'fail', name: 'slow', delay_ms: 300 }, { type: 'utf8' }, { type: 'html' }, { type: 'normalize' }],
        },
        default_pipeline: 'standard',
        collections: { kill: 'slow' },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it('batches bounded by bytes, large content through the object store, the oversize one fails alone; searchable end to end, no object left', async () => {
    const client = await FeedingClient.open({ mw: chain.client, collection: 'big', log, maxDocumentBytes: 20 * 1024 * 1024 });
    // 120 pages of 40 KB: 4.8 MB, which in batches of 100 would be refused by the bus's 1 MiB max_payload
    for (let i = 0; i < 120; i++) await client.feed(html(i, 40_000));
    const big = textContent(12 * 1024 * 1024, 'bigheadword', 'bigmiddleword', 'bigtailword');
    await client.feed({ id: 'big-12mb', attributes: { content_type: 'text/html', url: 'file:///big.html' }, content: big });
    const medium = textContent(300 * 1024, 'mediumheadword', 'mediummiddleword', 'mediumtailword');
    await client.feed({ id: 'medium-300k', attributes: { content_type: 'text/html' }, content: medium });
    // a string attribute of 3 MB (a JSON line, say) goes out of band as well
    await client.feed({ id: 'long-attribute', attributes: { content_type: 'text/plain', body: `longstart ${FILLER.repeat(25_000)} longend` } });
    const tooLarge = textContent(25 * 1024 * 1024, 'x', 'y', 'z');
    await client.feed({ id: 'too-large', attributes: { content_type: 'text/plain' }, content: tooLarge });
    const { outcomes, unfinished, stats } = await client.drain(120_000);
    expect(unfinished).toEqual([]);
    expect(stats.duplicateFinals).toBe(0);
    expect([...outcomes].filter(([id, o]) => o.kind === 'failed' && id !== 'too-large')).toEqual([]);
    expect(stats.completed).toBe(123);
    expect(stats.failed).toBe(1);
    // the oversize document was never read, and failed alone with the limit named
    expect(tooLarge.reads).toBe(0);
    expect(outcomes.get('too-large')).toMatchObject({ kind: 'failed', error: { name: 'document_too_large', description: expect.stringMatching(/20971520/) } });
    // the large ones were streamed into the store once each
    expect(big.reads).toBe(1);
    expect(stats.objectsStored).toBe(3);
    expect(stats.objectsDeleted).toBe(3);
    // every batch fit: 120 pages of 40 KB need at least 5 batches under a 1 MiB budget
    expect(stats.batches).toBeGreaterThanOrEqual(5);

    const { proxy: search } = await chain.client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    for (const w of ['bigheadword', 'bigmiddleword', 'bigtailword']) expect((await search.search('big', w, 5, 0)).hits.map((h) => h.id)).toEqual(['big-12mb']);
    for (const w of ['mediumheadword', 'mediumtailword']) expect((await search.search('big', w, 5, 0)).hits.map((h) => h.id)).toEqual(['medium-300k']);
    expect((await search.search('big', 'longend', 5, 0)).hits.map((h) => h.id)).toEqual(['long-attribute']);
    expect((await search.search('big', 'page117q', 5, 0)).hits.map((h) => h.id)).toEqual(['page-117']);
    expect(await search.count('big')).toBe(123);
    // the client's objects and the item processors' (processed text for the indexer) are all gone
    const store = await chain.client.blobs();
    await waitFor(async () => (await store.names()).length === 0, { what: 'an empty content bucket', timeoutMs: 10_000 });
    await client.close();
  }, 180_000);

  it('kill -9 of the item processor holding a batch with large documents: the batch completes on the other, no object leaks', async () => {
    const client = await FeedingClient.open({ mw: chain.client, collection: 'kill', log });
    const sizes = [2, 3, 1, 2].map((m) => m * 1024 * 1024);
    for (let i = 0; i < sizes.length; i++) {
      await client.feed({ id: `large-${i}`, attributes: { content_type: 'text/html' }, content: textContent(sizes[i]!, `killhead${i}w`, `killmid${i}w`, `killtail${i}w`) });
    }
    for (let i = 0; i < 4; i++) await client.feed(html(1000 + i, 2000));
    await client.flush();
    const holder = await waitFor(() => chain.holderOf(client.sessionId, 1), { what: 'the item processor holding the batch', timeoutMs: 20_000 });
    // mid-batch: the first large documents are processed (their text in the store for the indexer), the rest not yet
    await new Promise((r) => setTimeout(r, 700));
    await holder.kill();
    const { outcomes, unfinished, stats } = await client.drain(120_000);
    expect(unfinished).toEqual([]);
    expect(stats.duplicateFinals).toBe(0);
    expect(stats.completed).toBe(8);
    expect([...outcomes.values()].every((o) => o.kind === 'completed')).toBe(true);
    // the batch was taken over: the other processor accepted the operations the large documents completed with
    // (the same ids when the distributor re-dispatched it, new ones when they came back lost and were resubmitted)
    const survivor = chain.processors.find((p) => p !== holder)!;
    const opIds = sizes.map((_, i) => outcomes.get(`large-${i}`)!.opId);
    for (const id of opIds) {
      expect(survivor.logs.some((l) => l['msg'] === 'batch accepted' && l['session_id'] === client.sessionId && (l['first'] as number) <= id && (l['last'] as number) >= id)).toBe(true);
    }
    const { proxy: search } = await chain.client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    for (let i = 0; i < sizes.length; i++) expect((await search.search('kill', `killtail${i}w`, 5, 0)).hits.map((h) => h.id)).toEqual([`large-${i}`]);
    const store = await chain.client.blobs();
    await waitFor(async () => (await store.names()).length === 0, { what: 'an empty content bucket', timeoutMs: 10_000 });
    await client.close();
  }, 180_000);
});
