import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpGetResult } from './http-get';
import { MAX_PENDING_RECORDS, WarcWriter } from './warc-writer';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const page = (body: string, headers: Record<string, string> = {}): HttpGetResult => ({
  status: 200,
  location: undefined,
  contentType: 'text/html',
  contentTypeHeader: 'text/html; charset=ISO-8859-1',
  body: Buffer.from(body, 'latin1'),
  headers: { 'content-type': 'text/html; charset=ISO-8859-1', 'content-encoding': 'gzip', 'content-length': '12', etag: '"v1"', ...headers },
});

interface ReadRecord {
  type: string | undefined;
  uri: string | null | undefined;
  id: string | null | undefined;
  concurrentTo: string | null | undefined;
  status: number | string | undefined;
  headers: Record<string, string>;
  body: Buffer;
}

async function readWarc(path: string): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  for await (const record of new WARCParser(createReadStream(path))) {
    const info = record.getResponseInfo();
    const headers: Record<string, string> = {};
    if (record.httpHeaders) for (const [k, v] of record.httpHeaders.headers.entries()) headers[k.toLowerCase()] = v;
    out.push({
      type: record.warcType,
      uri: record.warcTargetURI,
      id: record.warcHeaders.headers.get('WARC-Record-ID'),
      concurrentTo: record.warcHeaders.headers.get('WARC-Concurrent-To'),
      status: info?.status,
      headers,
      body: Buffer.from(await record.readFully(true)),
    });
  }
  return out;
}

describe('WarcWriter', () => {
  it('writes a request and a response record per page, gzip per record, that warcio reads back with the body as read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warc-'));
    dirs.push(dir);
    const warc = await WarcWriter.open({ dir, prefix: 'node1' });
    const body = 'Caf\u00e9 cr\u00e8me <a href="/x">x</a>';
    warc.record({ uri: 'http://127.0.0.1:8080/caf%C3%A9.html?q=1', date: new Date('2026-01-02T03:04:05Z'), userAgent: 'esp-test', requestHeaders: { 'if-none-match': '"v0"' }, response: page(body) });
    await warc.close();
    expect(warc.files).toHaveLength(1);
    const file = warc.files[0]!;
    expect(file).toMatch(/node1-\d{14}-00000\.warc\.gz$/);
    // each record is a gzip member of its own: the file is a concatenation that gunzip reads whole
    expect(gunzipSync(readFileSync(file)).toString('latin1')).toContain('WARC/1.1');

    const records = await readWarc(file);
    expect(records.map((r) => r.type)).toEqual(['warcinfo', 'response', 'request']);
    const [, response, request] = records;
    expect(response!.uri).toBe('http://127.0.0.1:8080/caf%C3%A9.html?q=1');
    expect(Number(response!.status)).toBe(200);
    expect(response!.body.toString('latin1')).toBe(body);
    // the body kept is decompressed: the wire's encoding and length are not claimed for it
    expect(response!.headers['content-encoding']).toBeUndefined();
    expect(response!.headers['content-length']).toBe(String(Buffer.byteLength(body, 'latin1')));
    expect(response!.headers['etag']).toBe('"v1"');
    expect(request!.concurrentTo).toBe(response!.id);
    expect(request!.headers['user-agent']).toBe('esp-test');
    expect(request!.headers['if-none-match']).toBe('"v0"');
  });

  it('rotates to a new file once one passes the size bound, each opening with a warcinfo record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warc-'));
    dirs.push(dir);
    const warc = await WarcWriter.open({ dir, prefix: 'n', maxFileBytes: 2_000 });
    // incompressible bodies, so that each pair of records is over a kilobyte gzipped
    const noise = (i: number): string => Array.from({ length: 1500 }, (_, k) => String.fromCharCode(33 + ((k * 7919 + i * 104729) % 89))).join('');
    for (let i = 0; i < 5; i++) warc.record({ uri: `http://127.0.0.1:9/p${i}`, date: new Date(), userAgent: 'esp-test', response: page(noise(i)) });
    await warc.close();
    expect(readdirSync(dir).length).toBeGreaterThanOrEqual(3);
    expect(warc.files.length).toBe(readdirSync(dir).length);
    const uris: string[] = [];
    for (const f of warc.files) {
      const records = await readWarc(f);
      expect(records[0]!.type).toBe('warcinfo');
      uris.push(...records.filter((r) => r.type === 'response').map((r) => r.uri as string));
    }
    expect(uris).toEqual([0, 1, 2, 3, 4].map((i) => `http://127.0.0.1:9/p${i}`));
    expect(warc.records).toBe(10);
    expect(warc.failures).toBe(0);
  });

  it('asks its caller to wait once MAX_PENDING_RECORDS wait for the disk, and has written them when that resolves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warc-'));
    dirs.push(dir);
    const warc = await WarcWriter.open({ dir, prefix: 'n' });
    const answers = Array.from({ length: MAX_PENDING_RECORDS + 2 }, (_, i) => warc.record({ uri: `http://127.0.0.1:9/p${i}`, date: new Date(), userAgent: 'esp-test', response: page(`page ${i}`) }));
    expect(answers.slice(0, MAX_PENDING_RECORDS - 1).every((a) => a === undefined)).toBe(true);
    const wait = answers.at(-1);
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(warc.records).toBe(2 * answers.length);
    await warc.close();
  });
});
