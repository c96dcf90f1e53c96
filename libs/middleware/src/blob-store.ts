import { createHash } from 'node:crypto';
import { DEFAULT_CONTENT_BUCKET, type ContentRef } from '@esp/interfaces';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { Objm, type ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { putObject, putTombstone } from './blob-put';

export interface BlobStoreOptions {
  /** The bucket (default "esp_content"). */
  bucket?: string;
  /**
   * Objects older than this are removed by the server: what a crash left behind (default 24 h). Only used when this
   * call creates the bucket.
   */
  ttlMs?: number;
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
    readonly code: 'not_found' | 'size_mismatch' | 'digest_mismatch' | 'too_large' | 'store_unavailable',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const DEFAULT_BLOB_TTL_MS = 24 * 3600 * 1000;

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
    private readonly maxPayload: number,
  ) {}

  static async open(nc: NatsConnection, opts: BlobStoreOptions = {}): Promise<BlobStore> {
    const bucket = opts.bucket ?? DEFAULT_CONTENT_BUCKET;
    try {
      const os = await new Objm(nc).create(bucket, {
        ttl: nanos(opts.ttlMs ?? DEFAULT_BLOB_TTL_MS),
        replicas: opts.replicas ?? defaultReplicas(nc),
      });
      return new BlobStore(bucket, os, jetstream(nc), nc.info?.max_payload ?? 1024 * 1024);
    } catch (err) {
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
      throw new BlobError('store_unavailable', `cannot store object "${name}" in "${this.bucket}": ${(err as Error).message}`, { cause: err });
    }
    return { bucket: this.bucket, name, size: info.size, digest: info.digest, ...(opts.text ? { text: true } : {}) };
  }

  /**
   * The bytes `ref` stands for. Refuses an object over `maxBytes`, and checks that size and SHA-256 digest are the
   * reference's: an object replaced or damaged under the same name is an error, never the wrong content.
   */
  async get(ref: ContentRef, opts: { maxBytes?: number } = {}): Promise<Uint8Array> {
    if (opts.maxBytes !== undefined && ref.size > opts.maxBytes) throw new BlobError('too_large', `object "${ref.name}" has ${ref.size} bytes, over the limit of ${opts.maxBytes}`);
    let result;
    try {
      result = await this.os.get(ref.name);
    } catch (err) {
      throw new BlobError('store_unavailable', `cannot fetch object "${ref.name}" from "${this.bucket}": ${(err as Error).message}`, { cause: err });
    }
    if (!result) throw new BlobError('not_found', `object "${ref.name}" is not in bucket "${this.bucket}" (deleted, or expired by the bucket's TTL)`);
    if (result.info.size !== ref.size) {
      await result.data.cancel().catch(() => undefined);
      throw new BlobError('size_mismatch', `object "${ref.name}" has ${result.info.size} bytes, the reference says ${ref.size}`);
    }
    const out = new Uint8Array(ref.size);
    const hash = createHash('sha256');
    let at = 0;
    for await (const chunk of result.data as unknown as AsyncIterable<Uint8Array>) {
      if (at + chunk.length > out.length) throw new BlobError('size_mismatch', `object "${ref.name}" delivered more than its ${ref.size} bytes`);
      out.set(chunk, at);
      hash.update(chunk);
      at += chunk.length;
    }
    const failed = await result.error;
    if (failed) throw new BlobError('store_unavailable', `fetching object "${ref.name}" failed: ${failed.message}`, { cause: failed });
    if (at !== ref.size) throw new BlobError('size_mismatch', `object "${ref.name}" delivered ${at} of its ${ref.size} bytes`);
    const digest = sha256Digest(hash);
    if (!sameDigest(digest, ref.digest)) throw new BlobError('digest_mismatch', `object "${ref.name}": digest ${digest} is not the reference's ${ref.digest}`);
    return out;
  }

  /** Set once the bus refused this connection a read of the bucket: it may only add (a feed client). */
  private addOnly = false;

  /**
   * Removes an object; one already gone is no error. A connection that may only add to the bucket (its first
   * delete was refused the read that the object store's delete starts with) marks the object deleted instead
   * (blob-put.ts): readers find nothing, and the TTL removes its chunks.
   */
  async delete(name: string): Promise<void> {
    try {
      if (this.addOnly) return await putTombstone(this.js, this.bucket, name);
      await this.os.delete(name);
    } catch (err) {
      if (!this.addOnly && /permissions? violation/i.test((err as Error).message)) {
        this.addOnly = true;
        return this.delete(name);
      }
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
