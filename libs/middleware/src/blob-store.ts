import { createHash } from 'node:crypto';
import { DEFAULT_CONTENT_BUCKET, type ContentRef } from '@esp/interfaces';
import { jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { chunkSubject, isChunkId, metaSubject, putObject } from './blob-put';
import { contentStreamConfig, contentStreamName, SECURITY_FIELDS, streamDifferences, DEFAULT_BLOB_TTL_MS } from './content-stream';

export interface BlobStoreOptions {
  /** The bucket (default "esp_content"). */
  bucket?: string;
  /**
   * Objects older than this are removed by the server: what a crash left behind (default 24 h). Only used when this
   * call creates the bucket (on a stack the launcher has created it: content-stream.ts).
   */
  ttlMs?: number;
  /** The bucket's bound in bytes when this call creates it (default DEFAULT_CONTENT_MAX_BYTES). */
  maxBytes?: number;
  /**
   * JetStream replicas when this call creates the bucket. Default: 3 when the server says it is in a cluster of at
   * least three (its INFO lists the others' client URLs), else 1.
   */
  replicas?: number;
}

/** The failures of a blob store, each with a code that says what happened. */
export class BlobError extends Error {
  override name = 'BlobError';
  constructor(
    readonly code: 'not_found' | 'size_mismatch' | 'digest_mismatch' | 'too_large' | 'store_unavailable' | 'store_misconfigured' | 'store_full',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export { DEFAULT_BLOB_TTL_MS };

function sha256Digest(hash: ReturnType<typeof createHash>): string {
  // the object store's notation: SHA-256= and the padded base64url digest
  return `SHA-256=${hash.digest('base64url')}=`;
}

function sameDigest(a: string, b: string): boolean {
  return a.replace(/=+$/, '') === b.replace(/=+$/, '');
}

function defaultReplicas(nc: NatsConnection): number {
  const others = nc.info?.connect_urls?.length ?? 0;
  return others >= 2 ? 3 : 1;
}

async function* single(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * Large content out of band: a JetStream object store bucket that holds a document's bytes while its operation is in
 * flight (a claim check). `put` streams the bytes in (never holding them whole) and returns the reference that
 * travels instead; `get` fetches by reference and checks size and digest itself; `delete` removes one once its
 * operation has its final status. The bucket's TTL removes what a crash orphaned.
 *
 *   const blobs = await mw.blobs();
 *   const ref = await blobs.put('session-7/op-42', createReadStream(path));
 *   const bytes = await blobs.get(ref);
 *   await blobs.delete(ref.name);
 */
export class BlobStore {
  private constructor(
    readonly bucket: string,
    private readonly os: ObjectStore,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly maxPayload: number,
  ) {}

  /**
   * Opens the bucket. A stream that exists is checked first: other subjects, rollups allowed, deletes allowed, a
   * mirror or sources make it someone else's, and opening it fails with store_misconfigured naming the difference.
   * A missing one is created here (an open development server; on the stack it exists from start-up, and a role
   * that may not create streams gets store_unavailable saying so).
   */
  static async open(nc: NatsConnection, opts: BlobStoreOptions = {}): Promise<BlobStore> {
    const bucket = opts.bucket ?? DEFAULT_CONTENT_BUCKET;
    const want = contentStreamConfig(bucket, { ...(opts.ttlMs !== undefined ? { ttlMs: opts.ttlMs } : {}), ...(opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {}), replicas: opts.replicas ?? defaultReplicas(nc) });
    let jsm: JetStreamManager;
    try {
      jsm = await jetstream(nc).jetstreamManager();
      const found = await jsm.streams.info(contentStreamName(bucket)).catch((err: Error) => {
        if (/stream not found/i.test(err.message)) return undefined;
        throw err;
      });
      if (found) {
        const diffs = streamDifferences(found.config, want, SECURITY_FIELDS);
        if (diffs.length) throw new BlobError('store_misconfigured', `the stream ${contentStreamName(bucket)} of bucket "${bucket}" is not the stack's: ${diffs.join('; ')}; refusing to use it (an operator deletes it, and npm start creates it again)`);
      } else {
        await jsm.streams.add(want).catch((err: Error) => {
          throw /permissions? violation/i.test(err.message) ? new BlobError('store_unavailable', `the bucket "${bucket}" does not exist, and this identity may not create it: the stack creates it at start-up (${err.message})`, { cause: err }) : err;
        });
      }
      const os = await new Objm(nc).open(bucket, false);
      return new BlobStore(bucket, os, jetstream(nc), jsm, nc.info?.max_payload ?? 1024 * 1024);
    } catch (err) {
      if (err instanceof BlobError) throw err;
      throw new BlobError('store_unavailable', `cannot open the object store bucket "${bucket}": ${(err as Error).message} (is JetStream enabled on nats-server: -js?)`, { cause: err });
    }
  }

  /**
   * Streams `data` into object `name` (replacing any object of that name). Needs only the permission to add to the
   * bucket, not to read it (blob-put.ts).
   */
  async put(name: string, data: Uint8Array | AsyncIterable<Uint8Array>, opts: { text?: boolean } = {}): Promise<ContentRef> {
    const source = data instanceof Uint8Array ? single(data) : data;
    let info;
    try {
      info = await putObject(this.js, this.bucket, name, source, this.maxPayload);
    } catch (err) {
      const why = (err as Error).message;
      if (/maximum bytes exceeded|insufficient resources|maximum (messages|bytes) per/i.test(why)) {
        throw new BlobError('store_full', `cannot store object "${name}": the content bucket "${this.bucket}" is full (its max_bytes, --content-max-bytes of npm start; it frees as documents get their final status): ${why}`, { cause: err });
      }
      throw new BlobError('store_unavailable', `cannot store object "${name}" in "${this.bucket}": ${why}`, { cause: err });
    }
    return { bucket: this.bucket, name, size: info.size, digest: info.digest, ...(opts.text ? { text: true } : {}) };
  }

  /**
   * The bytes `ref` stands for. Refuses an object over `maxBytes`, and checks that size and SHA-256 digest are the
   * reference's: an object replaced or damaged under the same name is an error, never the wrong content.
   */
  async get(ref: ContentRef, opts: { maxBytes?: number } = {}): Promise<Uint8Array> {
    if (opts.maxBytes !== undefined && ref.size > opts.maxBytes) throw new BlobError('too_large', `object "${ref.name}" has ${ref.size} bytes, over the limit of ${opts.maxBytes}`);
    // read by direct gets, message by message: a reader needs no consumer (and so no consumer API, whose push
    // consumers deliver to a subject of the creator's choosing, past its publish permissions)
    const stream = contentStreamName(this.bucket);
    const fetchMsg = async (query: { last_by_subj: string } | { next_by_subj: string; seq: number }) => {
      try {
        return await this.jsm.direct.getMessage(stream, query);
      } catch (err) {
        if (/no message found|not found/i.test((err as Error).message)) return null;
        throw new BlobError('store_unavailable', `cannot fetch object "${ref.name}" from "${this.bucket}": ${(err as Error).message}`, { cause: err });
      }
    };
    const meta = await fetchMsg({ last_by_subj: metaSubject(this.bucket, ref.name) });
    let info: { size?: unknown; chunks?: unknown; nuid?: unknown; deleted?: unknown } | undefined;
    try {
      info = meta && meta.data.length ? meta.json() : undefined;
    } catch {
      info = undefined;
    }
    if (!info || info.deleted === true) throw new BlobError('not_found', `object "${ref.name}" is not in bucket "${this.bucket}" (deleted, or expired by the bucket's TTL)`);
    if (info.size !== ref.size) throw new BlobError('size_mismatch', `object "${ref.name}" has ${String(info.size)} bytes, the reference says ${ref.size}`);
    const chunks = typeof info.chunks === 'number' && Number.isInteger(info.chunks) && info.chunks >= 0 ? info.chunks : -1;
    if (chunks < 0 || !isChunkId(info.nuid)) throw new BlobError('digest_mismatch', `object "${ref.name}": its description is not one the store writes`);
    const subject = chunkSubject(this.bucket, info.nuid);
    const out = new Uint8Array(ref.size);
    const hash = createHash('sha256');
    let at = 0;
    let seq = 0;
    for (let i = 0; i < chunks; i++) {
      const m = await fetchMsg({ next_by_subj: subject, seq: seq + 1 });
      if (!m) throw new BlobError('not_found', `object "${ref.name}": chunk ${i + 1} of ${chunks} is gone (deleted, or expired by the bucket's TTL)`);
      seq = m.seq;
      if (at + m.data.length > out.length) throw new BlobError('size_mismatch', `object "${ref.name}" delivered more than its ${ref.size} bytes`);
      out.set(m.data, at);
      hash.update(m.data);
      at += m.data.length;
    }
    if (at !== ref.size) throw new BlobError('size_mismatch', `object "${ref.name}" delivered ${at} of its ${ref.size} bytes`);
    const digest = sha256Digest(hash);
    if (!sameDigest(digest, ref.digest)) throw new BlobError('digest_mismatch', `object "${ref.name}": digest ${digest} is not the reference's ${ref.digest}`);
    return out;
  }

  /**
   * Removes an object, chunks and description (purged by subject: the stream takes no rollups), so the bucket
   * holds nothing of it; one already gone is no error. Needs the read and purge API of the bucket, which only the
   * stack's roles have: a feed client asks the stack to delete its objects (content-release.ts).
   */
  async delete(name: string): Promise<void> {
    const stream = contentStreamName(this.bucket);
    const meta = metaSubject(this.bucket, name);
    try {
      let nuid: string | undefined;
      try {
        const m = await this.jsm.streams.getMessage(stream, { last_by_subj: meta });
        const id = m && m.data.length ? (m.json<{ nuid?: unknown }>().nuid ?? '') : undefined;
        // a description is anyone's writing: only a chunk id names chunks (never a wildcard, which would purge all)
        nuid = id === undefined ? undefined : isChunkId(id) ? id : '';
      } catch (err) {
        if (!/no message found|not found/i.test((err as Error).message)) throw err;
      }
      if (nuid === undefined) return;
      await this.jsm.streams.purge(stream, { filter: meta });
      if (nuid) await this.jsm.streams.purge(stream, { filter: chunkSubject(this.bucket, nuid) });
    } catch (err) {
      throw new BlobError('store_unavailable', `cannot delete object "${name}" from "${this.bucket}": ${(err as Error).message}`, { cause: err });
    }
  }

  /** JetStream replicas of the bucket. */
  async replicas(): Promise<number> {
    return (await this.os.status()).replicas;
  }

  /** The names of the objects in the bucket now (deleted ones excluded). */
  async names(): Promise<string[]> {
    return (await this.os.list()).filter((i) => !i.deleted).map((i) => i.name);
  }
}
