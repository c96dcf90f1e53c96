import { createHash } from 'node:crypto';
import { nuid } from '@nats-io/nats-core';
import type { JetStreamClient } from '@nats-io/jetstream';

/** The object store's chunk size, unless the server's max_payload is smaller. */
const CHUNK_BYTES = 128 * 1024;

/** The object store's notation: base64 with the URL alphabet and its padding kept. */
function base64UrlPadded(b64: string): string {
  return b64.replace(/\+/g, '-').replace(/\//g, '_');
}

/** The subject of an object's description: the object store's layout, the name in padded base64url. */
export function metaSubject(bucket: string, name: string): string {
  return `$O.${bucket}.M.${base64UrlPadded(Buffer.from(name, 'utf8').toString('base64'))}`;
}

/** A chunk id as the object store writes them (a nuid): one subject token, no wildcard, nothing else. */
export function isChunkId(id: unknown): id is string {
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id);
}

/** The subject of an object's chunks. Refuses an id that is not one token: a description is anyone's writing. */
export function chunkSubject(bucket: string, nuid: string): string {
  if (!isChunkId(nuid)) throw new Error(`not a chunk id: ${JSON.stringify(nuid).slice(0, 80)}`);
  return `$O.${bucket}.C.${nuid}`;
}

/**
 * Writes an object in the JetStream object store's own layout (chunks on $O.<bucket>.C.<nuid>, then the description
 * on $O.<bucket>.M.<name in base64>), so any object store client reads it. The description is no rollup: the
 * stream takes none (content-stream.ts), and readers take the last description of a name. Unlike the object store
 * client's put it never reads the bucket first: it needs only the permission to add, and so a feed client that may
 * add content is not given the API that reads everyone's. The chunks of an object this one replaces are left for
 * the bucket's TTL to remove.
 */
export async function putObject(js: JetStreamClient, bucket: string, name: string, data: AsyncIterable<Uint8Array>, maxPayload: number): Promise<{ size: number; digest: string }> {
  const chunkBytes = Math.min(CHUNK_BYTES, maxPayload);
  const id = nuid.next();
  const chunkSubj = chunkSubject(bucket, id);
  const hash = createHash('sha256');
  let size = 0;
  let chunks = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = async (n: number): Promise<void> => {
    const all = Buffer.concat(pending);
    const chunk = all.subarray(0, n);
    const rest = all.subarray(n);
    pending = rest.length ? [rest] : [];
    pendingBytes = rest.length;
    hash.update(chunk);
    size += chunk.length;
    chunks++;
    await js.publish(chunkSubj, chunk);
  };
  for await (const part of data) {
    pending.push(part);
    pendingBytes += part.length;
    while (pendingBytes > chunkBytes) await flush(chunkBytes);
  }
  if (pendingBytes > 0) await flush(pendingBytes);
  const digest = `SHA-256=${base64UrlPadded(hash.digest('base64'))}`;
  const info = {
    name,
    description: '',
    options: { max_chunk_size: chunkBytes },
    bucket,
    nuid: id,
    size,
    chunks,
    mtime: new Date().toISOString(),
    digest,
    deleted: false,
  };
  await publishMeta(js, bucket, name, info);
  return { size, digest };
}

/**
 * The description: the last one of a name is the object (the object store's readers get the last message of the
 * subject). No rollup header: the content stream refuses them, and a delete purges the subject instead.
 */
async function publishMeta(js: JetStreamClient, bucket: string, name: string, info: object): Promise<void> {
  await js.publish(metaSubject(bucket, name), JSON.stringify(info));
}
