/**
 * The crawler against a real local HTTP server with the documents a web site has besides pages: what reaches the
 * feeding client (the feed function, captured), and what the statistics say of the rest.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { buildFscmtNodeSchedulerMessage, FswcuDict, fswcuBytes, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { waitFor } from '@esp/testing';
import { systemClock } from '@esp/timers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Crawler, type CrawledPage } from '../src/crawler';
import { entryFor, NodeSchedulerMachine } from '../src/node-scheduler-machine';
import { INLINE_BODY_BYTES, pageDocument } from '../src/page-document';
import { gzipHtml, latin1Html, makePdf, makePng } from './documents';

const MAX_BODY = 4 * 1024 * 1024;
// 3 MiB of HTML: over the bus's 1 MiB payload and the client's inline bound, under the crawler's body bound
const BIG = `<html><head><title>Big</title></head><body>${'<p>big page text</p>\n'.repeat((3 << 20) / 21)}</body></html>`;
const HUGE = `<html><body>${'x'.repeat(MAX_BODY + 1)}</body></html>`;
const GZIPPED = '<html><head><title>Gzipped</title></head><body><p>compressed on the wire</p><a href="/from-gzip.html">on</a></body></html>';
const CSS = 'body { color: red }';

interface Route {
  type: string;
  body: Uint8Array | string;
  encoding?: string;
}

let server: Server;
let base: string;
const acceptEncoding: string[] = [];
let routes: Record<string, Route>;

beforeAll(async () => {
  const png = makePng();
  routes = {
    '/': {
      type: 'text/html; charset=utf-8',
      body: ['/big.html', '/huge.html', '/style.css', '/logo.png', '/png-as-html.html', '/latin1.html', '/gzip.html', '/doc.pdf', '/copy-of-latin1.html']
        .map((l) => `<a href="${l}">${l}</a>`)
        .join('\n'),
    },
    '/big.html': { type: 'text/html; charset=utf-8', body: BIG },
    '/huge.html': { type: 'text/html', body: HUGE },
    '/style.css': { type: 'text/css', body: CSS },
    '/logo.png': { type: 'image/png', body: png },
    '/png-as-html.html': { type: 'text/html', body: png },
    '/latin1.html': { type: 'text/html; charset=ISO-8859-1', body: latin1Html() },
    '/copy-of-latin1.html': { type: 'text/html; charset=ISO-8859-1', body: latin1Html() },
    '/gzip.html': { type: 'text/html; charset=utf-8', body: gzipHtml(GZIPPED), encoding: 'gzip' },
    '/from-gzip.html': { type: 'text/plain', body: 'a link found in a gzip-compressed page' },
    '/doc.pdf': { type: 'application/pdf', body: await makePdf('A portable document') },
  };
  server = createServer((req, res) => {
    acceptEncoding.push(String(req.headers['accept-encoding']));
    const r = routes[req.url ?? ''];
    if (!r) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': r.type, ...(r.encoding ? { 'content-encoding': r.encoding } : {}) });
    res.end(r.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function crawl(): Promise<{ fed: Map<string, CrawledPage>; machine: NodeSchedulerMachine }> {
  const site = new URL(base).host;
  const machine = new NodeSchedulerMachine({ nodeId: 'n1', mns: 'mns', clock: systemClock, ipKey: 'ip-port', send: () => undefined });
  const recv = (msg: FscmtNodeSchedulerMessage): void => machine.handle('mns', buildFscmtNodeSchedulerMessage(msg), 0);
  const fed = new Map<string, CrawledPage>();
  const owners = new Map<string, string>();
  const crawler = new Crawler({
    machine,
    maxBodyBytes: MAX_BODY,
    // the duplicate server's rule: the first URI with a checksum owns it
    checksum: (_c, uri, csum) => {
      const key = Buffer.from(csum).toString('hex');
      if (!owners.has(key)) owners.set(key, uri);
      return Promise.resolve(owners.get(key) as string);
    },
    feed: (page) => {
      fed.set(page.uri, page);
      return Promise.resolve(true);
    },
  });
  machine.connect({ onWork: () => crawler.wake() });
  recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: new FswcuDict([[fswcuBytes('delay'), 0]]), epoch: 1 });
  recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId: 'n1', routingAttribute: site, site, addrinfo: null, ttl: 0 } });
  recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor(`${base}/`, '', 0, []) });
  recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: site, site, storeId: 0, allowed: true } });
  crawler.wake();
  const all = Object.keys(routes).length;
  await waitFor(() => {
    const s = machine.stats('web');
    return s && s.fetched + s.errors === all && crawler.inFlight === 0 ? true : undefined;
  }, { timeoutMs: 45_000, what: `${all} URIs fetched` });
  crawler.stop();
  machine.stop();
  return { fed, machine };
}

describe('crawling a site with large pages, stylesheets, images, Latin-1 and compressed pages', () => {
  it('feeds the raw bytes of HTML, text and PDF with the Content-Type header; not CSS, PNG, or what is over the bound', async () => {
    const { fed, machine } = await crawl();
    const at = (path: string): CrawledPage | undefined => fed.get(`${base}${path}`);
    expect([...fed.keys()].map((u) => u.slice(base.length)).sort()).toEqual(['/', '/big.html', '/doc.pdf', '/from-gzip.html', '/gzip.html', '/latin1.html']);

    // the 3 MiB page whole, and as `content` (out of band) rather than an inline attribute
    const big = at('/big.html')!;
    expect(big.body.length).toBe(Buffer.byteLength(BIG));
    expect(big.body.length).toBeGreaterThan(3_000_000);
    const doc = pageDocument(big, 'n1');
    expect(doc.attributes?.['body']).toBeUndefined();
    expect(doc.content?.size).toBe(big.body.length);
    const chunks: Uint8Array[] = [];
    for await (const c of doc.content!.open()) chunks.push(c);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(BIG);

    // Latin-1 bytes as served (0xE9 for é, not UTF-8's C3 A9), with the charset in content_type
    const latin1 = at('/latin1.html')!;
    expect(Buffer.from(latin1.body).equals(Buffer.from(latin1Html()))).toBe(true);
    expect(latin1.contentType).toBe('text/html; charset=ISO-8859-1');
    const small = pageDocument(latin1, 'n1');
    expect(small.attributes).toMatchObject({ url: `${base}/latin1.html`, content_type: 'text/html; charset=ISO-8859-1', title: 'Café' });
    expect(Buffer.from(small.attributes?.['body'] as Uint8Array).equals(Buffer.from(latin1Html()))).toBe(true);
    expect(latin1.body.length).toBeLessThanOrEqual(INLINE_BODY_BYTES);

    // decompressed before feeding, and its links followed
    expect(acceptEncoding.every((a) => a.includes('gzip') && a.includes('br'))).toBe(true);
    const gz = at('/gzip.html')!;
    expect(new TextDecoder().decode(gz.body)).toBe(GZIPPED);
    expect(() => gunzipSync(gz.body)).toThrow();
    expect(gz.title).toBe('Gzipped');

    const pdf = at('/doc.pdf')!;
    expect(pdf.format).toBe('pdf');
    expect(new TextDecoder().decode(pdf.body.subarray(0, 5))).toBe('%PDF-');

    // every fetch is accounted for once: 6 fed, the copy a duplicate, CSS and the two PNGs by type, one by size
    expect(machine.stats('web')).toEqual({
      fetched: Object.keys(routes).length,
      fed: 6,
      duplicates: 1,
      unfed: 0,
      excluded_type: 3,
      excluded_size: 1,
      noindex: 0,
      excluded: 0,
      errors: 0,
      redirects: 0,
      feed_failed: 0,
      unchanged: 0,
      removed: 0,
    });
  }, 60_000);
});
