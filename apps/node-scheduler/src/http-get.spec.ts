import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyTooLargeError, ContentEncodingError, httpGet } from './http-get';

const HTML = '<p>hello, compressed world</p>'.repeat(20);
const encoded: Record<string, Buffer> = {
  gzip: gzipSync(HTML),
  // the old name RFC 9110 8.4.1.3 says to take as gzip
  'x-gzip': gzipSync(HTML),
  br: brotliCompressSync(HTML),
  deflate: deflateSync(HTML),
  'raw-deflate': deflateRawSync(HTML),
  'gzip-twice': gzipSync(gzipSync(HTML)),
};
// 64 MiB of zeros: about 64 KiB of gzip
const BOMB = gzipSync(Buffer.alloc(64 << 20), { level: 9 });

let server: Server;
let base: string;
const seenAgents: string[] = [];
const seenEncodings: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seenAgents.push(String(req.headers['user-agent']));
    seenEncodings.push(String(req.headers['accept-encoding']));
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<p>hello</p>');
    } else if (req.url === '/moved') {
      res.writeHead(301, { location: '/page' });
      res.end('moved');
    } else if (req.url === '/big-declared') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
      res.end('x'.repeat(5000));
    } else if (req.url === '/big-chunked') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 10; i++) res.write('y'.repeat(500));
      res.end();
    } else if (req.url?.startsWith('/enc/')) {
      const name = req.url.slice(5);
      const contentEncoding = name === 'raw-deflate' ? 'deflate' : name === 'gzip-twice' ? 'gzip, gzip' : name;
      res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1', 'content-encoding': contentEncoding });
      res.end(encoded[name]);
    } else if (req.url === '/bomb') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(BOMB);
    } else if (req.url === '/corrupt') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(Buffer.from('this is not gzip at all'));
    } else if (req.url === '/zstd') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'zstd' });
      res.end(Buffer.from('whatever'));
    } else if (req.url === '/long-gzip') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(gzipSync('z'.repeat(200_000)));
    } else if (req.url === '/wanted-not') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.alloc(5000));
    } else if (req.url === '/cond') {
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
      res.writeHead(200, { 'content-type': 'text/html', etag: '"v1"', 'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT' });
      res.end('<p>v1</p>');
    } else if (req.url === '/stall') {
      // headers never come
    } else {
      res.writeHead(404);
      res.end('not here');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const opts = { userAgent: 'esp-test-agent', timeoutMs: 2_000, maxBodyBytes: 1_000 };

describe('httpGet', () => {
  it('reads a page with its media type and sends the user agent', async () => {
    const res = await httpGet(new URL('/page', base), opts);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('text/html');
    expect(res.contentTypeHeader).toBe('text/html; charset=utf-8');
    expect(new TextDecoder().decode(res.body)).toBe('<p>hello</p>');
    expect(seenAgents.at(-1)).toBe('esp-test-agent');
  });

  it('does not follow a redirect: the crawler records it', async () => {
    const res = await httpGet(new URL('/moved', base), opts);
    expect(res).toMatchObject({ status: 301, location: '/page' });
    expect(res.body.length).toBe(0);
  });

  it('answers an error status without a body, and the connection serves the next request', async () => {
    expect((await httpGet(new URL('/nope', base), opts)).status).toBe(404);
    expect((await httpGet(new URL('/page', base), opts)).status).toBe(200);
  });

  it('refuses a body over the bound, declared or not', async () => {
    await expect(httpGet(new URL('/big-declared', base), opts)).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(httpGet(new URL('/big-chunked', base), opts)).rejects.toThrow('body over 1000 bytes');
    expect((await httpGet(new URL('/page', base), opts)).status).toBe(200);
  });

  it('gives up on a server that never answers', async () => {
    const t0 = Date.now();
    await expect(httpGet(new URL('/stall', base), { ...opts, timeoutMs: 300 })).rejects.toThrow(/timeout/i);
    expect(Date.now() - t0).toBeLessThan(2_500);
  });

  it('asks for gzip, deflate and br, and decompresses each (zlib or raw deflate, nested codings)', async () => {
    for (const name of Object.keys(encoded)) {
      const res = await httpGet(new URL(`/enc/${name}`, base), { ...opts, maxBodyBytes: 10_000 });
      expect(new TextDecoder().decode(res.body), name).toBe(HTML);
      // the full header: the charset parameter is the pipeline's to read
      expect(res.contentTypeHeader).toBe('text/html; charset=ISO-8859-1');
    }
    expect((await httpGet(new URL('/page', base), opts)).status).toBe(200);
    expect(seenEncodings.at(-1)).toBe('gzip, deflate, br');
  });

  it('a conditional GET: the validators of an answer are given back, sent again they get a 304 with no body', async () => {
    const first = await httpGet(new URL('/cond', base), opts);
    expect([first.status, first.etag, first.lastModified]).toEqual([200, '"v1"', 'Tue, 01 Dec 2026 10:00:00 GMT']);
    const again = await httpGet(new URL('/cond', base), { ...opts, headers: { 'if-none-match': first.etag! } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    // the connection serves the next request
    expect((await httpGet(new URL('/page', base), opts)).status).toBe(200);
  });

  it('bounds the decompressed bytes: a compressed body under the bound that inflates past it is refused, not held', async () => {
    expect(encoded['gzip']!.length).toBeLessThan(1_000);
    expect(HTML.length).toBeGreaterThan(500);
    await expect(httpGet(new URL('/enc/gzip', base), { ...opts, maxBodyBytes: 500 })).rejects.toBeInstanceOf(BodyTooLargeError);
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 1);
    await expect(httpGet(new URL('/bomb', base), { ...opts, maxBodyBytes: 1 << 20 })).rejects.toBeInstanceOf(BodyTooLargeError);
    clearInterval(sampler);
    // 64 MiB decompressed would show; the bound (1 MiB) and a few zlib chunks do not come near
    expect(peak - before).toBeLessThan(16 << 20);
    expect((await httpGet(new URL('/page', base), opts)).status).toBe(200);
  });

  it('truncate: keeps the first bytes past the bound instead of failing, plain or compressed', async () => {
    const plain = await httpGet(new URL('/big-chunked', base), { ...opts, truncate: true });
    expect(plain.body.length).toBe(1_000);
    const gz = await httpGet(new URL('/long-gzip', base), { ...opts, truncate: true });
    expect(new TextDecoder().decode(gz.body)).toBe('z'.repeat(1_000));
    expect((await httpGet(new URL('/page', base), opts)).status).toBe(200);
  });

  it('a body of an unwanted media type is not read', async () => {
    const res = await httpGet(new URL('/wanted-not', base), { ...opts, wanted: (m) => !m.startsWith('image/') });
    expect(res).toMatchObject({ status: 200, contentType: 'image/png', skipped: true });
    expect(res.body.length).toBe(0);
    expect((await httpGet(new URL('/page', base), opts)).status).toBe(200);
  });

  it('a body that does not decompress, or an encoding it did not ask for, is an error of its own', async () => {
    await expect(httpGet(new URL('/corrupt', base), opts)).rejects.toBeInstanceOf(ContentEncodingError);
    await expect(httpGet(new URL('/zstd', base), opts)).rejects.toThrow('unsupported content-encoding "zstd"');
    expect((await httpGet(new URL('/page', base), opts)).status).toBe(200);
  });
});
