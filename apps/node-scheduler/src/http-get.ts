/**
 * One HTTP(S) GET as the crawler needs it: no redirect following (the crawler records redirects itself), a body
 * bound, a timeout per phase, keep-alive connections per origin, and compressed bodies (gzip, deflate, br)
 * decompressed as they arrive.
 *
 * The bound applies to the decompressed bytes, and it is checked while they are produced: a small compressed body
 * that inflates to gigabytes (a decompression bomb) is abandoned one zlib chunk past the bound, never held whole.
 *
 * Built on undici's `request` rather than the global `fetch` (the same library under its WHATWG layer): fetch adds
 * WHATWG streams, Headers objects and an AbortSignal timer to every request, and CPU is what limits a crawl on a
 * small machine.
 *
 *   const res = await httpGet(new URL('http://example.test/'), { userAgent: 'esp-crawler', timeoutMs: 30_000, maxBodyBytes: 1 << 20 });
 *   if (res.status === 200) use(res.body, res.contentTypeHeader);
 */
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { request } from 'undici';

export interface HttpGetOptions {
  userAgent: string;
  /** for the response headers, then again between two chunks of the body */
  timeoutMs: number;
  /** the body's size at most, decompressed */
  maxBodyBytes: number;
  /** past the bound, keep the first `maxBodyBytes` bytes instead of failing (robots.txt: RFC 9309 2.5) */
  truncate?: boolean;
  /** for a 2xx answer of this media type, is the body worth reading? (default yes); if not it is discarded */
  wanted?: (media: string) => boolean;
  /** extra request headers (a conditional GET's If-None-Match / If-Modified-Since) */
  headers?: Record<string, string>;
}

export interface HttpGetResult {
  status: number;
  /** the Location header, for a redirect */
  location: string | undefined;
  /** media type, lower case, without parameters ('' when the server sent none) */
  contentType: string;
  /** the Content-Type header as the server sent it, parameters (charset=) included; '' when it sent none */
  contentTypeHeader: string;
  /** the body, decompressed, read only for 2xx answers (empty otherwise) */
  body: Uint8Array;
  /** the X-Robots-Tag header(s), joined with ", " */
  robotsTag?: string;
  /** the body was not read: `wanted` said its media type is of no use */
  skipped?: boolean;
  /** the ETag and Last-Modified headers, for a conditional GET of the page later (page-validators.ts) */
  etag?: string;
  lastModified?: string;
  /** every response header as undici gives them (names in lower case), for an archive of the exchange */
  headers?: Record<string, string | string[] | undefined>;
}

export class BodyTooLargeError extends Error {
  readonly code = 'BODY_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`body over ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export class ContentEncodingError extends Error {
  readonly code = 'CONTENT_ENCODING';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ContentEncodingError';
  }
}

/** What the crawler asks for: what it can decompress (zstd is not in this Node's zlib). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

const EMPTY = new Uint8Array(0);

export async function httpGet(url: URL, opts: HttpGetOptions): Promise<HttpGetResult> {
  const res = await request(url, {
    method: 'GET',
    headers: opts.headers ? { ...opts.headers, 'user-agent': opts.userAgent, 'accept-encoding': ACCEPT_ENCODING } : { 'user-agent': opts.userAgent, 'accept-encoding': ACCEPT_ENCODING },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  const location = header(res.headers['location']);
  const contentTypeHeader = header(res.headers['content-type'])?.trim() ?? '';
  const contentType = mediaType(contentTypeHeader);
  const headers = res.headers;
  if (res.statusCode < 200 || res.statusCode >= 300) {
    // free the connection for the next request without reading what nobody will use
    await res.body.dump();
    return { status: res.statusCode, location, contentType, contentTypeHeader, body: EMPTY, headers };
  }
  if (opts.wanted && !opts.wanted(contentType)) {
    // dump() reads a little (a short body keeps its connection), then closes the connection
    await res.body.dump().catch(() => undefined);
    return { status: res.statusCode, location, contentType, contentTypeHeader, body: EMPTY, skipped: true, headers };
  }
  const declared = Number(header(res.headers['content-length']) ?? NaN);
  // a compressed body this long decompresses to more still
  if (declared > opts.maxBodyBytes && !opts.truncate) {
    // dump() with a zero limit closes the connection without surfacing an abort error of its own
    await res.body.dump({ limit: 0 }).catch(() => undefined);
    throw new BodyTooLargeError(opts.maxBodyBytes);
  }
  const encodings = (header(res.headers['content-encoding']) ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity');
  const body = encodings.length === 0 ? await readBounded(res.body, opts.maxBodyBytes, opts.truncate) : await decodeBounded(res.body, encodings, opts.maxBodyBytes, opts.truncate);
  const tag = res.headers['x-robots-tag'];
  const robotsTag = Array.isArray(tag) ? tag.join(', ') : tag;
  return { status: res.statusCode, location, contentType, contentTypeHeader, body, robotsTag, etag: header(headers['etag']), lastModified: header(headers['last-modified']), headers };
}

/** "text/html; charset=ISO-8859-1" -> "text/html". */
export function mediaType(contentTypeHeader: string): string {
  return (contentTypeHeader.split(';')[0] ?? '').trim().toLowerCase();
}

async function readBounded(body: AsyncIterable<Uint8Array>, max: number, truncate = false): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  // leaving the loop by a throw or a break ends the iterator, which destroys the stream (and so the connection)
  for await (const chunk of body) {
    if (n + chunk.length > max) {
      if (!truncate) throw new BodyTooLargeError(max);
      chunks.push(chunk.subarray(0, max - n));
      n = max;
      break;
    }
    n += chunk.length;
    chunks.push(chunk);
  }
  return concat(chunks, n);
}

/**
 * A decompressor for one content coding. RFC 9110 8.4.1.2 says "deflate" is the zlib format; some servers send raw
 * deflate: a zlib stream starts with CMF 0x?8 (the deflate method in the low nibble), told from the first byte.
 */
function decoder(encoding: string, first: number): Transform {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'br':
      return createBrotliDecompress();
    case 'deflate':
      return first % 16 === 8 ? createInflate() : createInflateRaw();
    default:
      throw new ContentEncodingError(`unsupported content-encoding "${encoding}"`);
  }
}

/**
 * Decompresses the body through its encodings (applied in the order listed, so undone in reverse) and reads at
 * most `max` decompressed bytes. The decompressors produce output in 16 KiB chunks as it is read (backpressure), so
 * what is held stays near `max` whatever the compression ratio; past it, every stream of the pipeline is destroyed.
 */
async function decodeBounded(body: AsyncIterable<Uint8Array>, encodings: string[], max: number, truncate: boolean | undefined): Promise<Uint8Array> {
  const it = body[Symbol.asyncIterator]();
  let head = await it.next();
  while (!head.done && head.value.length === 0) head = await it.next();
  if (head.done) return EMPTY;
  const first = head.value;
  const decoders = [...encodings].reverse().map((e) => decoder(e, first[0] ?? 0));
  // only the outermost decoder sees the body's first byte; a nested deflate is zlib-wrapped, as the RFC says
  for (let i = 1; i < decoders.length; i++) if (encodings[encodings.length - 1 - i] === 'deflate') decoders[i] = createInflate();
  async function* source(): AsyncGenerator<Uint8Array> {
    try {
      yield first;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    } finally {
      // ends the response body (and its connection) when the pipeline stops early
      await it.return?.();
    }
  }
  let out: Uint8Array = EMPTY;
  let read = false;
  try {
    const sink = async (decoded: AsyncIterable<Uint8Array>): Promise<void> => {
      out = await readBounded(decoded, max, truncate);
      read = true;
    };
    // a generator source and an async function sink are stages pipeline() takes; its typings list fixed arities only
    await (pipeline as (...stages: unknown[]) => Promise<void>)(source, ...decoders, sink);
  } catch (err) {
    // a truncating sink that stopped early aborts the stages before it: what it kept is the answer
    if (read) return out;
    if (typeof (err as { errno?: unknown }).errno === 'number') {
      throw new ContentEncodingError(`${encodings.join(', ')} body does not decompress: ${(err as Error).message}`, { cause: err });
    }
    throw err;
  }
  return out;
}

function concat(chunks: Uint8Array[], n: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
