import { randomBytes } from 'node:crypto';
import { NatsCluster, NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobError, Middleware } from '../src';

async function* chunks(total: number, size: number, seed: Buffer): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < total; at += size) {
    const n = Math.min(size, total - at);
    const c = Buffer.alloc(n);
    for (let i = 0; i < n; i++) c[i] = seed[(at + i) % seed.length]! ^ ((at + i) >> 16);
    yield c;
  }
}

async function collect(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of it) parts.push(c);
  return Buffer.concat(parts);
}

describe('blob store on one nats-server with JetStream', () => {
  let ns: NatsServer;
  let a: Middleware;
  let b: Middleware;
  beforeAll(async () => {
    ns = await NatsServer.start();
    a = await Middleware.connect({ name: 'blob-a', servers: ns.url });
    b = await Middleware.connect({ name: 'blob-b', servers: ns.url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await ns?.cleanup();
  });

  it('streams 5 MB in from one connection and gives the same bytes back on another, digest checked', async () => {
    const seed = randomBytes(4096);
    const store = await a.blobs();
    const ref = await store.put('doc/large-1', chunks(5_000_000, 65_536, seed));
    expect(ref).toMatchObject({ bucket: 'esp_content', name: 'doc/large-1', size: 5_000_000 });
    expect(ref.digest).toMatch(/^SHA-256=/);
    const got = await (await b.blobs()).get(ref);
    expect(Buffer.from(got).equals(await collect(chunks(5_000_000, 65_536, seed)))).toBe(true);
  });

  it('refuses a reference whose digest or size is not the object\'s, and one over the limit', async () => {
    const store = await a.blobs();
    const ref = await store.put('doc/small', new TextEncoder().encode('hello claim check'));
    await expect(store.get({ ...ref, digest: 'SHA-256=' + 'A'.repeat(43) + '=' })).rejects.toMatchObject({ code: 'digest_mismatch' });
    await expect(store.get({ ...ref, size: ref.size + 1 })).rejects.toMatchObject({ code: 'size_mismatch' });
    await expect(store.get(ref, { maxBytes: 4 })).rejects.toMatchObject({ code: 'too_large' });
    // replaced under the same name: the old reference must not deliver the new bytes
    await store.put('doc/small', new TextEncoder().encode('other content!!!!'));
    await expect(store.get(ref)).rejects.toBeInstanceOf(BlobError);
  });

  it('a description naming a wildcard as its chunks neither reads nor deletes other objects (delete purges only its own subjects)', async () => {
    const store = await a.blobs();
    const victim = await store.put('doc/victim', new Uint8Array(200_000).fill(3));
    // anyone who may add objects writes descriptions: one whose chunk id is ">" would name every chunk of the bucket
    const hostile = { name: 'doc/hostile', bucket: 'esp_content', nuid: '>', size: 200_000, chunks: 2, digest: victim.digest };
    await a.nc.request(`$O.esp_content.M.${Buffer.from('doc/hostile').toString('base64').replace(/\+/g, '-').replace(/\//g, '_')}`, JSON.stringify(hostile));
    await expect(store.get({ ...victim, name: 'doc/hostile' })).rejects.toMatchObject({ code: 'digest_mismatch' });
    await store.delete('doc/hostile');
    expect(Buffer.from(await store.get(victim)).equals(Buffer.alloc(200_000, 3))).toBe(true);
  });

  it('delete removes the object: a fetch then says not_found, and the bucket lists nothing of it', async () => {
    const store = await a.blobs();
    const ref = await store.put('doc/to-delete', new Uint8Array(300_000).fill(7));
    expect(await store.names()).toContain('doc/to-delete');
    await store.delete(ref.name);
    await store.delete(ref.name); // twice: no error
    await expect(store.get(ref)).rejects.toMatchObject({ code: 'not_found' });
    expect(await store.names()).not.toContain('doc/to-delete');
  });

  it('a server without JetStream: opening the bucket fails with a clear error', async () => {
    const plain = await NatsServer.start({ jetstream: false });
    const mw = await Middleware.connect({ name: 'blob-nojs', servers: plain.url });
    try {
      await expect(mw.blobs()).rejects.toMatchObject({ code: 'store_unavailable', message: expect.stringMatching(/JetStream/) });
    } finally {
      await mw.close();
      await plain.cleanup();
    }
  });
});

describe('blob store on a three-server cluster', () => {
  let cluster: NatsCluster;
  beforeAll(async () => {
    cluster = await NatsCluster.start(3);
  }, 60_000);
  afterAll(async () => {
    await cluster?.cleanup();
  });

  it('creates the bucket with three replicas and reads through another server what one stored', async () => {
    const [u1, u2] = cluster.urls;
    const a = await Middleware.connect({ name: 'blob-c1', servers: u1! });
    const b = await Middleware.connect({ name: 'blob-c2', servers: u2! });
    try {
      const seed = randomBytes(1024);
      const ref = await (await a.blobs()).put('doc/clustered', chunks(2_000_000, 100_000, seed));
      expect(await (await b.blobs()).get(ref)).toEqual(new Uint8Array(await collect(chunks(2_000_000, 100_000, seed))));
      expect(await (await b.blobs()).replicas()).toBe(3);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
