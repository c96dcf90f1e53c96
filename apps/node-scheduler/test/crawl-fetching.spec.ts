/**
 * What the crawler reads from a real local site: character sets (header, <meta>, byte order mark) for the links
 * and title, compressed bodies and a decompression bomb that fails its own page only, and the content types fed.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlSites, TestSite, waitIdle, type CrawlRun } from './crawl-harness';
import { makeDocx, makePdf, makePng } from './documents';

const MAX_BODY = 1 << 20;
// 64 MiB of zeros in about 64 KiB of gzip
const BOMB = gzipSync(Buffer.alloc(64 << 20), { level: 9 });

/** A page whose title and one link hold characters of its charset. */
function page(title: string, link: string): string {
  return `<html><head><title>${title}</title>__META__</head><body><a href="${link}">x</a></body></html>`;
}

interface Route {
  type: string;
  body: Uint8Array;
  encoding?: string;
}

let site: TestSite;
let run: CrawlRun;
const routes: Record<string, Route> = {};

beforeAll(async () => {
  const sjis = iconv.encode(page('日本語のページ', '/日本.html').replace('__META__', '<meta charset="Shift_JIS">'), 'shift_jis');
  const cp1251 = iconv.encode(page('Привет мир', '/мир.html').replace('__META__', ''), 'windows-1251');
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(page('Ünïcödé sixteen', '/ü16.html').replace('__META__', ''), 'utf-16le')]);
  const latin1 = iconv.encode(page('Café crème', '/café.html').replace('__META__', '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'), 'latin1');
  const index = ['/sjis.html', '/cp1251.html', '/utf16.html', '/latin1.html', '/gzip.html', '/br.html', '/deflate.html', '/bomb.html', '/corrupt.html', '/style.css', '/app.js', '/module.mjs', '/font.woff2', '/logo.png', '/doc.pdf', '/doc.docx', '/notes.txt', '/feed.xml', '/movie.mp4'];
  const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
  const compressed = '<html><head><title>Compressed</title></head><body><a href="/after-compressed.html">on</a></body></html>';
  Object.assign(routes, {
    '/': { type: 'text/html; charset=utf-8', body: utf8(index.map((l) => `<a href="${l}">${l}</a>`).join('\n')) },
    '/sjis.html': { type: 'text/html', body: sjis },
    '/cp1251.html': { type: 'text/html; charset=windows-1251', body: cp1251 },
    '/utf16.html': { type: 'text/html', body: utf16 },
    '/latin1.html': { type: 'text/html', body: latin1 },
    '/gzip.html': { type: 'text/html', body: gzipSync(compressed), encoding: 'gzip' },
    '/br.html': { type: 'text/html', body: brotliCompressSync(compressed.replace('Compressed', 'Brotli')), encoding: 'br' },
    '/deflate.html': { type: 'text/html', body: deflateSync(compressed.replace('Compressed', 'Deflate')), encoding: 'deflate' },
    '/bomb.html': { type: 'text/html', body: BOMB, encoding: 'gzip' },
    '/corrupt.html': { type: 'text/html', body: utf8('not gzip at all'), encoding: 'gzip' },
    '/style.css': { type: 'text/css', body: utf8('body { color: red }') },
    '/app.js': { type: 'application/javascript', body: utf8('console.log(1)') },
    '/module.mjs': { type: 'text/javascript', body: utf8('export const a = 1;') },
    '/font.woff2': { type: 'font/woff2', body: Buffer.concat([Buffer.from('wOF2'), Buffer.alloc(60)]) },
    '/logo.png': { type: 'image/png', body: makePng() },
    '/doc.pdf': { type: 'application/pdf', body: await makePdf('A portable document') },
    '/doc.docx': { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', body: await makeDocx('A word document') },
    '/notes.txt': { type: 'text/plain; charset=utf-8', body: utf8('plain notes') },
    '/feed.xml': { type: 'application/rss+xml', body: utf8('<?xml version="1.0"?><rss><channel><title>t</title></channel></rss>') },
    // over the body bound: counted by its type, not its size, since its body is not read
    '/movie.mp4': { type: 'video/mp4', body: Buffer.alloc(3 << 20) },
    '/after-compressed.html': { type: 'text/html', body: utf8('<p>reached from a compressed page</p>') },
  } satisfies Record<string, Route>);
  for (const p of ['/日本.html', '/мир.html', '/ü16.html', '/café.html']) routes[encodeURI(p)] = { type: 'text/html; charset=utf-8', body: utf8(`<p>${p}</p>`) };
  site = await TestSite.start((req, res) => {
    const r = routes[req.url ?? ''];
    if (!r) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': r.type, ...(r.encoding ? { 'content-encoding': r.encoding } : {}) });
    res.end(r.body);
  });
  run = crawlSites({ sites: [site], start: [`${site.base}/`], maxBodyBytes: MAX_BODY });
  await waitIdle(run);
}, 60_000);
afterAll(() => site.stop());

const fedPaths = (): string[] => [...run.fed.keys()].map((u) => decodeURI(u.slice(site.base.length))).sort();

describe('fetching', () => {
  it('decodes a page in its character set (header, <meta>, byte order mark) for its title and links', () => {
    expect(run.fed.get(`${site.base}/sjis.html`)?.title).toBe('日本語のページ');
    expect(run.fed.get(`${site.base}/cp1251.html`)?.title).toBe('Привет мир');
    expect(run.fed.get(`${site.base}/utf16.html`)?.title).toBe('Ünïcödé sixteen');
    expect(run.fed.get(`${site.base}/latin1.html`)?.title).toBe('Café crème');
    for (const p of ['/日本.html', '/мир.html', '/ü16.html', '/café.html']) expect(site.hits(encodeURI(p)), p).toBe(1);
    // the body is fed as served: the pipeline decodes it
    expect(Buffer.from(run.fed.get(`${site.base}/sjis.html`)!.body).equals(Buffer.from(routes['/sjis.html']!.body))).toBe(true);
  });

  it('asks for gzip, br and deflate, decodes each; a decompression bomb or a corrupt body fails its page only', () => {
    expect(site.requests.every((r) => /gzip/.test(String(r.headers['accept-encoding'])) && /br/.test(String(r.headers['accept-encoding'])))).toBe(true);
    expect(run.fed.get(`${site.base}/gzip.html`)?.title).toBe('Compressed');
    expect(run.fed.get(`${site.base}/br.html`)?.title).toBe('Brotli');
    expect(run.fed.get(`${site.base}/deflate.html`)?.title).toBe('Deflate');
    expect(site.hits('/after-compressed.html')).toBe(1);
    expect(run.fed.has(`${site.base}/bomb.html`)).toBe(false);
    expect(run.fed.has(`${site.base}/corrupt.html`)).toBe(false);
    expect(run.machine.stats('web')).toMatchObject({ excluded_size: 1, errors: 1 });
  });

  it('feeds HTML, text, XML, PDF and DOCX; not stylesheets, scripts, fonts, images or video (whose bodies are not read)', () => {
    expect(fedPaths()).toEqual(
      [
        '/', '/after-compressed.html', '/br.html', '/café.html', '/cp1251.html', '/deflate.html', '/doc.docx', '/doc.pdf', '/feed.xml', '/gzip.html',
        '/latin1.html', '/notes.txt', '/sjis.html', '/utf16.html', '/ü16.html', '/мир.html', '/日本.html',
      ].sort(),
    );
    expect(run.machine.stats('web')).toMatchObject({ excluded_type: 6, excluded_size: 1 });
    for (const p of ['/style.css', '/app.js', '/module.mjs', '/font.woff2', '/logo.png', '/movie.mp4']) expect(site.hits(p), p).toBe(1);
  });
});
