/**
 * Attacks on the stack's JetStream by a holder of the feed credentials, on the secured rig
 * whose streams were set up as npm start sets them up (bus/jetstream-setup.ts, as admin). On the main of before,
 * each succeeded: the client created OBJ_esp_content with foreign subjects, rolled up the bucket with
 * `Nats-Rollup: all`, and filled the disk without a bound. Now each is refused, and a feed of 200 documents
 * completes and is searchable after each. Also: large documents fed on this stack leave the bucket
 * empty, and the feed logs no warning.
 */
import { randomBytes } from 'node:crypto';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
// the attacker's tool and the inspector's: the raw JetStream client, around the middleware
// eslint-disable-next-line no-restricted-imports
import { jetstream, type JetStreamManager } from '@nats-io/jetstream';
// eslint-disable-next-line no-restricted-imports
import { headers } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttackRig, COLLECTION } from './attack-rig';
import { permissionDenied, tryPublish } from './bus-probes';

const RECOVERY_MS = 15_000;
const BOUND = 64 * 1024 * 1024;
const STREAM = 'OBJ_esp_content';

async function* once(b: Uint8Array): AsyncGenerator<Uint8Array> {
  yield b;
}

function large(id: string, marker: string, bytes: number): FeedDocument {
  const text = Buffer.from(`${marker} large document ${id} `.padEnd(bytes, 'lorem ipsum '));
  return { id, attributes: { title: id, content_type: 'text/plain' }, content: { size: text.length, open: () => once(text) } };
}

describe('attacks on JetStream with the feed credentials fail, and feeding goes on', () => {
  let rig: AttackRig;
  let client: Middleware;
  let jsm: JetStreamManager;
  const recovery: Record<string, number> = {};
  const feedsAfter = async (attack: string): Promise<void> => {
    const { ms } = await rig.feedBatch(attack);
    recovery[attack] = ms;
    expect(ms, `${attack}: 200 documents searchable after ${ms} ms`).toBeLessThanOrEqual(RECOVERY_MS);
  };
  const messages = async (): Promise<number> => (await jsm.streams.info(STREAM)).state.messages;

  beforeAll(async () => {
    rig = await AttackRig.start({ contentMaxBytes: BOUND });
    client = rig.client;
    jsm = await jetstream((await rig.bus.connect('admin')).nc).jetstreamManager();
    await rig.feedBatch('baseline');
  }, 180_000);
  afterAll(async () => {
    console.log(`recovery after each attack (ms): ${JSON.stringify(recovery)}`);
    await rig?.stop();
  });

  it('30.4: large documents (300 KiB to 3 MB) complete, and their content is deleted: the bucket is empty, no warning logged', async () => {
    const warnings: string[] = [];
    const log = createLogger('feed', {}, { level: 'warn' });
    const spy = new Proxy(log, { get: (t, k) => (k === 'warn' || k === 'error' ? (o: unknown, m?: string) => warnings.push(`${m ?? ''} ${JSON.stringify(o)}`) : Reflect.get(t, k)) });
    const feeder = await FeedingClient.open({ mw: client, collection: COLLECTION, log: spy });
    const sizes = [300 * 1024, 512 * 1024, 1024 * 1024, 3 * 1024 * 1024, 400 * 1024, 700 * 1024];
    for (const [i, n] of sizes.entries()) await feeder.feed(large(`large-${i}`, 'markbigx', n));
    const { unfinished, stats } = await feeder.drain(60_000);
    await feeder.close();
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: sizes.length, failed: 0 });
    expect(stats.objectsDeleted).toBe(sizes.length);
    expect(warnings).toEqual([]);
    await expect.poll(messages, { timeout: 10_000 }).toBe(0);
    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect((await search.search(COLLECTION, 'markbigx', 1, 0)).total).toBe(sizes.length);
    rig.countFed(sizes.length);
  }, 90_000);

  it('31.1: the content stream exists from start-up with the stack\'s configuration, and the client may create, update, delete or purge no stream', async () => {
    const c = (await jsm.streams.info(STREAM)).config;
    expect(c).toMatchObject({ subjects: ['$O.esp_content.C.>', '$O.esp_content.M.>'], allow_rollup_hdrs: false, deny_delete: true, max_bytes: BOUND });
    for (const api of ['CREATE', 'UPDATE', 'DELETE', 'PURGE']) {
      for (const s of [STREAM, 'KV_esp_names', 'OBJ_other', 'EVIL']) expect(await tryPublish(client, `$JS.API.STREAM.${api}.${s}`), `${api} ${s}`).toBe('denied');
    }
    expect(await tryPublish(client, `$JS.API.STREAM.MSG.DELETE.${STREAM}`)).toBe('denied');
    // what the attack sent: a create of the content stream with foreign subjects
    const hostile = JSON.stringify({ name: STREAM, subjects: ['$O.esp_content.C.>', '$O.esp_content.M.>', 'esp.ns.rpc'], allow_rollup_hdrs: true });
    await expect(client.nc.request(`$JS.API.STREAM.CREATE.${STREAM}`, hostile, { timeout: 2_000 })).rejects.toThrow(permissionDenied);
    await expect(client.nc.request(`$JS.API.STREAM.UPDATE.${STREAM}`, hostile, { timeout: 2_000 })).rejects.toThrow(permissionDenied);
    expect((await jsm.streams.info(STREAM)).config.subjects).toEqual(['$O.esp_content.C.>', '$O.esp_content.M.>']);
    await feedsAfter('create-stream');
  }, 60_000);

  it('31.2: a publish with Nats-Rollup: all (or sub) on a description subject is refused by the stream; nothing is wiped', async () => {
    const js = jetstream(client.nc);
    for (let i = 0; i < 5; i++) await js.publish(`$O.esp_content.C.attacker${i}`, randomBytes(100));
    const before = await messages();
    expect(before).toBeGreaterThanOrEqual(5);
    for (const rollup of ['all', 'sub']) {
      const h = headers();
      h.set('Nats-Rollup', rollup);
      await expect(js.publish(`$O.esp_content.M.${Buffer.from('x').toString('base64url')}`, '{}', { headers: h }), rollup).rejects.toThrow(/rollup/i);
    }
    expect(await messages()).toBe(before);
    await jsm.streams.purge(STREAM, { filter: '$O.esp_content.C.>' }); // the operator's clean-up: not something the client could do
    await feedsAfter('rollup-all');
  }, 60_000);

  it('31.3: filling the disk stops at the bucket\'s bound with a clear error; small documents keep feeding', async () => {
    const js = jetstream(client.nc);
    const chunk = randomBytes(1024 * 1024 - 4096);
    let stored = 0;
    let refused: Error | undefined;
    for (let i = 0; i < 300 && !refused; i++) {
      try {
        await js.publish(`$O.esp_content.C.flood${i}`, chunk);
        stored++;
      } catch (err) {
        refused = err as Error;
      }
    }
    console.log(`disk fill: ${stored} MiB stored before the bound refused: ${refused?.message}`);
    expect(refused?.message).toMatch(/maximum bytes exceeded|insufficient resources/i);
    expect(stored).toBeLessThanOrEqual(BOUND / chunk.length);
    expect((await jsm.streams.info(STREAM)).state.bytes).toBeLessThanOrEqual(BOUND);
    // a large document now fails alone, saying why; the others complete
    const feeder = await FeedingClient.open({ mw: client, collection: COLLECTION, log: createLogger('feed', {}, { level: 'fatal' }) });
    await feeder.feed(large('too-much', 'markfullx', 2 * 1024 * 1024));
    const { outcomes } = await feeder.drain(30_000);
    await feeder.close();
    expect(outcomes.get('too-much')).toMatchObject({ kind: 'failed' });
    expect(JSON.stringify(outcomes.get('too-much'))).toMatch(/full/);
    await feedsAfter('disk-fill');
  }, 90_000);
});
