import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { searchInterface, INDEX_SEARCH_NAME, UnknownCollection } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chain } from './chain';

const log = createLogger('e2e', {}, { level: 'warn' });
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

/** About 1 KB of text per document, a unique marker word in each. */
function doc(i: number): FeedDocument {
  const body = Array.from({ length: 150 }, (_, k) => WORDS[(i * 7 + k) % WORDS.length]).join(' ');
  return { id: `doc-${i}`, attributes: { title: `Document number ${i}`, body: `${body} marker${i}x`, content_type: 'text/plain' } };
}

describe('feeding chain: 1 distributor, 2 item processors, 1 indexer (separate processes)', () => {
  let chain: Chain;
  beforeAll(async () => {
    chain = await Chain.start({
      collections: ['e2e', 'errors'],
      processors: 2,
      pipeline: {
        pipelines: {
          standard: [{ type: 'utf8' }, { type: 'xml' }, { type: 'html' }, { type: 'normalize' }],
          strict: [
            { type: 'utf8' },
            { type: 'xml' },
            { type: 'html' },
            { type: 'normalize' },
            { type: 'drop', name: 'no-spam', rules: [{ attribute: 'category', pattern: '^spam$' }] },
          ],
        },
        default_pipeline: 'standard',
        collections: { errors: 'strict' },
      },
    });
  });
  afterAll(async () => {
    await chain?.stop();
  });

  it('10,000 documents: each completed exactly once, found by search, per-state callback counts match', async () => {
    const client = await FeedingClient.open({ mw: chain.client, collection: 'e2e', log });
    const N = 10_000;
    for (let i = 0; i < N; i++) await client.feed(doc(i));
    const { outcomes, unfinished } = await client.drain(120_000);
    expect(unfinished).toEqual([]);
    // `received` comes from the distributor, the finals from the indexer: the last batch's may still be on its way
    await waitFor(() => client.snapshot.received === N, { what: 'every received callback', timeoutMs: 10_000 }).catch(() => undefined);
    expect(client.snapshot).toMatchObject({ submitted: N, completed: N, failed: 0, lost: 0, received: N, secured: N, duplicateFinals: 0 });
    expect(outcomes.size).toBe(N);
    expect([...outcomes.values()].every((o) => o.kind === 'completed' && o.attempts === 1)).toBe(true);
    const { proxy: search } = await chain.client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect(await search.count('e2e')).toBe(N);
    for (const i of [0, 1234, 9999]) {
      const r = await search.search('e2e', `marker${i}x`, 5, 0);
      expect(r.total).toBe(1);
      expect(r.hits[0]!.id).toBe(`doc-${i}`);
      expect((await search.get('e2e', `doc-${i}`))?.attributes['title']).toBe(`Document number ${i}`);
    }
    await client.close();
  }, 180_000);

  it('invalid UTF-8, malformed XML and a dropped document fail with the spec errors; the rest complete', async () => {
    const client = await FeedingClient.open({ mw: chain.client, collection: 'errors', log });
    const bad = new Uint8Array([0x68, 0x69, 0xff, 0xfe, 0x21]);
    const docs: FeedDocument[] = [
      { id: 'good-1', attributes: { title: 'fine', body: 'all good here', content_type: 'text/plain' } },
      { id: 'bad-utf8', attributes: { body: bad, content_type: 'text/plain' } },
      { id: 'bad-xml', attributes: { body: '<a><b></a>', content_type: 'application/xml' } },
      { id: 'spam', attributes: { title: 'buy now', body: 'cheap', category: 'spam', content_type: 'text/plain' } },
      { id: 'good-2', attributes: { title: 'html', body: '<html><head><title>T</title></head><body><p>hello</p></body></html>', content_type: 'text/html' } },
    ];
    for (const d of docs) await client.feed(d);
    const { outcomes, unfinished, stats } = await client.drain(60_000);
    expect(unfinished).toEqual([]);
    expect(stats.duplicateFinals).toBe(0);
    expect(outcomes.get('good-1')?.kind).toBe('completed');
    expect(outcomes.get('good-2')?.kind).toBe('completed');
    const err = (id: string) => {
      const o = outcomes.get(id);
      return o?.kind === 'failed' ? o.error : undefined;
    };
    expect(err('bad-utf8')).toMatchObject({ type: 'utf8_error', subsystem: 'processing', suggestedAction: 'drop', processor: 'utf8' });
    expect(err('bad-xml')).toMatchObject({ type: 'xml_error', subsystem: 'processing', processor: 'xml' });
    expect(err('spam')).toMatchObject({ type: 'operation_dropped', processor: 'no-spam' });
    await client.close();
  }, 120_000);

  it('an unknown collection raises unknown_collection and the chain keeps serving', async () => {
    await expect(FeedingClient.open({ mw: chain.client, collection: 'no-such-collection', log })).rejects.toBeInstanceOf(UnknownCollection);
    const client = await FeedingClient.open({ mw: chain.client, collection: 'e2e', log });
    await client.feed(doc(20_001));
    const { stats } = await client.drain(30_000);
    expect(stats.completed).toBe(1);
    await client.close();
  });

  it('the feed CLI (a process): files and JSON lines in, progress, a report, exit 1 because one document failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esp-feed-cli-'));
    writeFileSync(join(dir, 'a.html'), '<html><head><title>Page A</title></head><body><p>zebra crossing</p></body></html>');
    writeFileSync(join(dir, 'b.txt'), 'plain text about kangaroos');
    writeFileSync(join(dir, 'broken.xml'), '<doc><unclosed></doc>');
    writeFileSync(join(dir, 'more.jsonl'), '{"id":"j1","title":"json one","body":"first"}\n{"id":"j2","attributes":{"title":"json two","body":"second"}}\n');
    const report = join(dir, 'report.json');
    const root = new URL('../../../', import.meta.url).pathname;
    const proc = spawn(process.execPath, ['--import', 'tsx', 'apps/feed/src/main.ts', '--collection', 'errors', '--nats', chain.ns.url, '--report', report, dir], {
      cwd: root,
      env: { ...process.env, VITEST: '' },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => proc.once('exit', r));
    expect(code, stderr).toBe(1);
    expect(stdout).toMatch(/5 documents in .*: 4 completed, 1 failed, 0 without a final status/);
    // ids are the paths as given (here absolute): two folders with the same names below them never collide
    expect(stdout).toContain(`failed ${join(dir, 'broken.xml')}: xml_error (102)`);
    const r = JSON.parse(readFileSync(report, 'utf8')) as { completed: number; failed: number; failures: { id: string; error: { type: string } }[] };
    expect(r).toMatchObject({ completed: 4, failed: 1 });
    expect(r.failures).toEqual([expect.objectContaining({ id: join(dir, 'broken.xml'), error: expect.objectContaining({ name: 'xml_error', type: 'xml_error' }) })]);
    const { proxy: search } = await chain.client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect((await search.search('errors', 'kangaroos', 5, 0)).hits.map((h) => h.id)).toEqual([join(dir, 'b.txt')]);
    expect((await search.get('errors', join(dir, 'a.html')))?.attributes['title']).toBe('Page A');
  }, 120_000);
});
