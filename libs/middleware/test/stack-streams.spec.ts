/**
 * The stack's streams on a real nats-server: created at start-up with rollups and deletes off and a size bound,
 * checked on every start; a stream someone else made under the content bucket's name (extra subjects, as an attacker
 * holding a create permission would) is an error naming the difference, for the stack and for every opener; one
 * the stack made before with rollups on and no bound (a home from before) is corrected.
 */
import { NatsServer } from '@esp/testing';
import { jetstream } from '@nats-io/jetstream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BlobError, ensureStackStreams, Middleware, StackStreamError } from '../src';

describe('stack streams', () => {
  let ns: NatsServer;
  let mw: Middleware;
  beforeAll(async () => {
    ns = await NatsServer.start();
    mw = await Middleware.connect({ name: 'setup', servers: ns.url });
  });
  afterEach(async () => {
    const jsm = await jetstream(mw.nc).jetstreamManager();
    for (const s of ['OBJ_esp_content', 'KV_esp_names']) await jsm.streams.delete(s).catch(() => undefined);
  });
  afterAll(async () => {
    await mw?.close();
    await ns?.cleanup();
  });

  it('creates both, then checks them unchanged; the content stream takes no rollup and has its bound', async () => {
    expect(await ensureStackStreams(mw.nc, { contentMaxBytes: 5_000_000 })).toEqual({ created: ['OBJ_esp_content', 'KV_esp_names'], corrected: [], checked: [] });
    expect(await ensureStackStreams(mw.nc, { contentMaxBytes: 5_000_000 })).toEqual({ created: [], corrected: [], checked: ['OBJ_esp_content', 'KV_esp_names'] });
    const jsm = await jetstream(mw.nc).jetstreamManager();
    const c = (await jsm.streams.info('OBJ_esp_content')).config;
    expect(c).toMatchObject({ allow_rollup_hdrs: false, deny_delete: true, max_bytes: 5_000_000, discard: 'new' });
    const store = await mw.blobs();
    const ref = await store.put('x', new Uint8Array(300_000).fill(1));
    expect((await store.get(ref)).length).toBe(300_000);
    await store.delete('x');
    expect((await jsm.streams.info('OBJ_esp_content')).state.messages).toBe(0);
  });

  it('a content stream with extra subjects is refused by the stack and by an opener, naming the difference', async () => {
    const jsm = await jetstream(mw.nc).jetstreamManager();
    await jsm.streams.add({ name: 'OBJ_esp_content', subjects: ['$O.esp_content.C.>', '$O.esp_content.M.>', 'esp.ns.rpc'], allow_rollup_hdrs: true });
    const err = await ensureStackStreams(mw.nc).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StackStreamError);
    expect((err as Error).message).toMatch(/OBJ_esp_content.*subjects .*esp\.ns\.rpc/);
    const other = await Middleware.connect({ name: 'opener', servers: ns.url });
    try {
      const e2 = await other.blobs().catch((e: unknown) => e);
      expect(e2).toBeInstanceOf(BlobError);
      expect(e2).toMatchObject({ code: 'store_misconfigured' });
      expect((e2 as Error).message).toMatch(/subjects .*esp\.ns\.rpc/);
    } finally {
      await other.close();
    }
  });

  it('a content stream made before (rollups on, deletes on, no bound) is corrected and said so', async () => {
    const jsm = await jetstream(mw.nc).jetstreamManager();
    await jsm.streams.add({ name: 'OBJ_esp_content', subjects: ['$O.esp_content.C.>', '$O.esp_content.M.>'], allow_rollup_hdrs: true, allow_direct: true, discard: 'new' as never, max_age: 24 * 3600 * 1e9 });
    const r = await ensureStackStreams(mw.nc, { contentMaxBytes: 1_000_000 });
    expect(r.corrected).toEqual([expect.stringMatching(/OBJ_esp_content: .*allow_rollup_hdrs true.*max_bytes -1/)]);
    expect((await jsm.streams.info('OBJ_esp_content')).config).toMatchObject({ allow_rollup_hdrs: false, deny_delete: true, max_bytes: 1_000_000 });
  });
});
