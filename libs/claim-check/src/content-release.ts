/**
 * Deleting a feed client's objects, by the stack. A feed client may only add to the content bucket: deleting an
 * object takes the bucket's read and purge API, with which any holder could read or wipe everyone's content. So the
 * client asks, and the indexer (which reads and purges the bucket anyway) deletes:
 *
 *   const stop = await serveContentRelease(mw, { buckets: ['esp_content'], log });      // the indexer
 *   await requestContentRelease(mw, 'esp_content', ['feed/7/0b7c...']);                 // the client
 *
 * A request names at most MAX_NAMES objects of one bucket the server serves; each name and its processed text
 * (`<name>/processed/body`) are deleted. Names are the client's random UUIDs: a holder of the feed identity can
 * only delete what it knows the name of. Requests are handled one at a time, at most MAX_QUEUED waiting; beyond,
 * the answer is busy and the bucket's TTL is the backstop.
 */
import { processedContentName } from '@esp/interfaces';
import { RawBus, type BlobStore, type Middleware, type RawMessage } from '@esp/middleware';

export const CONTENT_RELEASE_SUBJECT = RawBus.subject('content', 'release');
export const MAX_NAMES = 256;
const MAX_NAME_LENGTH = 1024;
const MAX_QUEUED = 256;
const REQUEST_TIMEOUT_MS = 30_000;

interface ReleaseRequest {
  bucket: string;
  names: string[];
}

type ReleaseReply = { deleted: number } | { error: string; code: 'bad_request' | 'unknown_bucket' | 'busy' | 'failed' };

/** The error a release request comes back with. */
export class ContentReleaseError extends Error {
  override name = 'ContentReleaseError';
  constructor(
    readonly code: 'bad_request' | 'unknown_bucket' | 'busy' | 'failed' | 'no_server',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function parse(data: Uint8Array): ReleaseRequest | string {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return 'not JSON';
  }
  const r = v as Partial<ReleaseRequest>;
  if (!r || typeof r.bucket !== 'string' || !Array.isArray(r.names)) return 'expected {"bucket": string, "names": string[]}';
  if (r.names.length > MAX_NAMES) return `at most ${MAX_NAMES} names per request`;
  if (!r.names.every((n) => typeof n === 'string' && n.length > 0 && n.length <= MAX_NAME_LENGTH)) return `names must be strings of 1 to ${MAX_NAME_LENGTH} characters`;
  return { bucket: r.bucket, names: r.names };
}

export interface ServeContentReleaseOptions {
  /** The buckets whose objects may be released (the others are refused). */
  buckets: readonly string[];
  log: { warn(o: object, msg: string): void; debug(o: object, msg: string): void };
}

/** Serves release requests until the returned function is called. Every request gets an answer. */
export async function serveContentRelease(mw: Middleware, opts: ServeContentReleaseOptions): Promise<() => Promise<void>> {
  let queued = 0;
  let chain: Promise<void> = Promise.resolve();
  const reply = (m: RawMessage, r: ReleaseReply): void => {
    if (m.reply) mw.bus.publish(m.reply, Buffer.from(JSON.stringify(r)));
  };
  const stop = await mw.bus.subscribe(CONTENT_RELEASE_SUBJECT, (m) => {
      const req = parse(m.data);
      if (typeof req === 'string') return reply(m, { error: req, code: 'bad_request' });
      if (!opts.buckets.includes(req.bucket)) return reply(m, { error: `bucket "${req.bucket}" is not one this server releases from`, code: 'unknown_bucket' });
      if (queued >= MAX_QUEUED) return reply(m, { error: `${queued} release requests waiting; the bucket's TTL removes these objects`, code: 'busy' });
      queued++;
      chain = chain.then(async () => {
        try {
          const store: BlobStore = await mw.blobs({ bucket: req.bucket });
          for (const name of req.names) {
            await store.delete(name);
            await store.delete(processedContentName(name, 'body'));
          }
          opts.log.debug({ bucket: req.bucket, objects: req.names.length }, 'content released');
          reply(m, { deleted: req.names.length });
        } catch (e) {
          opts.log.warn({ bucket: req.bucket, objects: req.names.length, err: (e as Error).message }, 'releasing content failed; the bucket TTL removes it');
          reply(m, { error: (e as Error).message, code: 'failed' });
        } finally {
          queued--;
        }
      });
  });
  return async () => {
    await stop();
    await chain;
  };
}

/**
 * Asks the stack to delete objects `names` of `bucket` (and their processed text), in requests of MAX_NAMES.
 * Throws ContentReleaseError: `no_server` when nobody serves releases on this bus (then the caller may delete the
 * objects itself, on a development bus where it may).
 */
export async function requestContentRelease(mw: Middleware, bucket: string, names: readonly string[], timeoutMs = REQUEST_TIMEOUT_MS): Promise<void> {
  for (let i = 0; i < names.length; i += MAX_NAMES) {
    const body = Buffer.from(JSON.stringify({ bucket, names: names.slice(i, i + MAX_NAMES) }));
    let data: Uint8Array;
    try {
      data = await mw.bus.request(CONTENT_RELEASE_SUBJECT, body, timeoutMs);
    } catch (err) {
      const msg = (err as Error).message;
      if (/no responders|503/i.test(msg) || (err as { code?: string }).code === '503') throw new ContentReleaseError('no_server', 'nobody releases content on this bus (no indexer?)', { cause: err });
      throw new ContentReleaseError('failed', `the release request failed: ${msg}`, { cause: err });
    }
    let r: ReleaseReply;
    try {
      r = JSON.parse(Buffer.from(data).toString('utf8')) as ReleaseReply;
    } catch (err) {
      throw new ContentReleaseError('failed', 'the release answer is not JSON', { cause: err });
    }
    if ('error' in r) throw new ContentReleaseError(r.code, r.error);
  }
}

/**
 * The release a feed client uses: asks the stack; on a bus where nobody serves releases (a development bus without
 * an indexer, where this connection may read and purge), deletes the objects itself.
 */
export function releaseThroughStack(mw: Middleware): (bucket: string, names: readonly string[]) => Promise<void> {
  return async (bucket, names) => {
    try {
      await requestContentRelease(mw, bucket, names);
    } catch (err) {
      if (!(err instanceof ContentReleaseError) || err.code !== 'no_server') throw err;
      const store = await mw.blobs({ bucket });
      for (const name of names) {
        await store.delete(name);
        await store.delete(processedContentName(name, 'body'));
      }
    }
  };
}
