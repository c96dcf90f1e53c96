/**
 * One HTTP(S) GET as the crawler needs it: no redirect following (the crawler records redirects itself), a body
 * bound, a timeout per phase, and keep-alive connections per origin.
 *
 * Built on undici's `request` rather than the global `fetch` (the same library under its WHATWG layer): per page
 * fetch cost the node scheduler about 0.5 ms more CPU in WHATWG streams, Headers objects and an AbortSignal timer
 * per request, and CPU is what limits a crawl on a small machine.
 *
 *   const res = await httpGet(new URL('http://example.test/'), { userAgent: 'esp-crawler', timeoutMs: 30_000, maxBodyBytes: 1 << 20 });
 *   if (res.status === 200) use(res.body);
 */
import { request } from 'undici';

export interface HttpGetOptions {
  userAgent: string;
  /** for the response headers, then again between two chunks of the body */
  timeoutMs: number;
  maxBodyBytes: number;
}

export interface HttpGetResult {
  status: number;
  /** the Location header, for a redirect */
  location: string | undefined;
  /** media type, lower case, without parameters */
  contentType: string;
  /** the body, read only for 2xx answers (empty otherwise) */
  body: Uint8Array;
}

export class BodyTooLargeError extends Error {
  readonly code = 'BODY_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`body over ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

const EMPTY = new Uint8Array(0);

export async function httpGet(url: URL, opts: HttpGetOptions): Promise<HttpGetResult> {
  const res = await request(url, {
    method: 'GET',
    headers: { 'user-agent': opts.userAgent },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  const location = header(res.headers['location']);
  const contentType = (header(res.headers['content-type']) ?? 'application/octet-stream').split(';')[0]?.trim().toLowerCase() ?? '';
  if (res.statusCode < 200 || res.statusCode >= 300) {
    // free the connection for the next request without reading what nobody will use
    await res.body.dump();
    return { status: res.statusCode, location, contentType, body: EMPTY };
  }
  const declared = Number(header(res.headers['content-length']) ?? NaN);
  if (declared > opts.maxBodyBytes) {
    // dump() with a zero limit closes the connection without surfacing an abort error of its own
    await res.body.dump({ limit: 0 }).catch(() => undefined);
    throw new BodyTooLargeError(opts.maxBodyBytes);
  }
  return { status: res.statusCode, location, contentType, body: await readBounded(res.body, opts.maxBodyBytes) };
}

async function readBounded(body: AsyncIterable<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  // leaving the loop by a throw ends the iterator, which destroys the stream (and so the connection)
  for await (const chunk of body) {
    n += chunk.length;
    if (n > max) throw new BodyTooLargeError(max);
    chunks.push(chunk);
  }
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
