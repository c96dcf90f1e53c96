import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyTooLargeError, httpGet } from './http-get';

let server: Server;
let base: string;
const seenAgents: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seenAgents.push(String(req.headers['user-agent']));
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
});
