/**
 * The generated configuration with the middleware's own operations: who may connect at all, who may bind which
 * names through a real name server, who may touch the esp_names bucket and the content bucket.
 */
import { CONFIG_SERVICE_NAME, DISPATCHER_NAME, INDEXING_DISPATCHER_NAME, type Aor } from '@esp/interfaces';
import { requestContentRelease, serveContentRelease } from '@esp/claim-check';
import { ensureStackStreams, Middleware, NAME_BUCKET, serveNameServer } from '@esp/middleware';
import { createLogger } from '@esp/logging';
// the attacker's tools: the raw KV and object store clients, around the middleware
// eslint-disable-next-line no-restricted-imports
import { Kvm } from '@nats-io/kv';
// eslint-disable-next-line no-restricted-imports
import { Objm } from '@nats-io/obj';
// eslint-disable-next-line no-restricted-imports
import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionDenied } from './bus-probes';
import { SecuredBus } from './secured-bus';

const aor = (type: string, objectId: string): Aor => ({ name: '', object_id: objectId, host: 'h1', port: 16390, interface_type: type, interface_version: '5.1' });
const SF = 'processing::session_factory';

describe('identities on the generated configuration', () => {
  let bus: SecuredBus;
  const quiet = createLogger('test', {}, { level: 'silent' });

  beforeAll(async () => {
    bus = await SecuredBus.start();
    // as npm start does before any role: the stack's streams, made by admin
    await ensureStackStreams((await bus.connect('admin')).nc);
    await serveNameServer(await bus.connect('name-server'));
  });
  afterAll(async () => {
    await bus?.stop();
  });

  it('a client without credentials, with a wrong password, or without TLS is refused', async () => {
    const tls = { caFile: bus.caFile };
    await expect(Middleware.connect({ name: 'anon', servers: bus.url, security: { tls }, logger: quiet })).rejects.toThrow(/Check the NATS credentials/);
    await expect(Middleware.connect({ name: 'guess', servers: bus.url, security: { user: 'client', password: 'guess', tls }, logger: quiet })).rejects.toThrow(/Check the NATS credentials/);
    await expect(Middleware.connect({ name: 'plain', servers: bus.url, security: { user: 'client', password: bus.password('client') }, logger: quiet })).rejects.toThrow(/cannot connect/);
  });

  it('the distributors bind the dispatcher names; an item processor or a feed client can neither bind, rebind nor unbind them', async () => {
    const cd = await bus.connect('content-distributor');
    const ip = await bus.connect('item-processor');
    const client = await bus.connect('client');
    const { revision } = await cd.names.bind(DISPATCHER_NAME, aor(SF, 'master'));
    for (const who of [ip, client]) {
      await expect(who.names.bind(DISPATCHER_NAME, aor(SF, 'thief'))).rejects.toThrow(permissionDenied);
      await expect(who.names.bind(DISPATCHER_NAME, { ...aor(SF, 'master'), interface_version: '6.0' }, { rebind: true })).rejects.toThrow(permissionDenied);
      await expect(who.names.unbind(DISPATCHER_NAME, SF, null)).rejects.toThrow(permissionDenied);
    }
    expect(await client.names.resolve(DISPATCHER_NAME, SF, '5.1')).toMatchObject({ revision, aor: { object_id: 'master' } });
    await expect(cd.names.bind(INDEXING_DISPATCHER_NAME, aor('coreprocessing::session_factory', 'x'))).rejects.toThrow(permissionDenied);
    await expect(cd.names.bind(CONFIG_SERVICE_NAME, aor('configservice::config', 'x'))).rejects.toThrow(permissionDenied);
  });

  it('the indexer binds the indexing names and the config server the fds names, nobody else', async () => {
    const indexer = await bus.connect('indexer');
    const config = await bus.connect('config-server');
    await indexer.names.bind(INDEXING_DISPATCHER_NAME, aor('coreprocessing::session_factory', 'factory'));
    await config.names.bind(CONFIG_SERVICE_NAME, aor('configservice::config', 'configservice'));
    await expect(indexer.names.bind(CONFIG_SERVICE_NAME, aor('configservice::config', 'x'))).rejects.toThrow(permissionDenied);
    await expect(config.names.bind(INDEXING_DISPATCHER_NAME, aor('coreprocessing::session_factory', 'x'))).rejects.toThrow(permissionDenied);
  });

  it('nobody but the name server writes the esp_names bucket directly', async () => {
    for (const role of ['client', 'item-processor', 'content-distributor', 'indexer'] as const) {
      const mw = await bus.connect(role, { name: `${role}-kv` });
      const opened = new Kvm(mw.nc).open(NAME_BUCKET).then((kv) => kv.put('esp/subsystems/processing/dispatcher', 'junk'));
      await expect(opened, role).rejects.toThrow(permissionDenied);
    }
    const names = await bus.connect('name-server', { name: 'name-server-kv' });
    const kv = await new Kvm(names.nc).open(NAME_BUCKET);
    expect(await kv.status()).toMatchObject({ bucket: NAME_BUCKET });
  });

  it('a feed client checks content in and cannot read it back; the processing roles read it', async () => {
    const client = await bus.connect('client', { name: 'client-blobs' });
    const ip = await bus.connect('item-processor', { name: 'ip-blobs' });
    const indexer = await bus.connect('indexer', { name: 'indexer-blobs' });
    const bytes = new Uint8Array(300 * 1024).map((_, i) => i % 251);
    const ref = await (await client.blobs()).put('feed/1/doc-1', bytes);
    expect(await (await ip.blobs()).get(ref)).toEqual(bytes);
    expect(await (await indexer.blobs()).get(ref)).toEqual(bytes);
    // the object store client's own get, and its reads of the stream, are refused to the feed identity
    const os = await new Objm(client.nc).open('esp_content');
    await expect(os.getBlob('feed/1/doc-1')).rejects.toThrow(permissionDenied);
    await expect((await client.blobs()).get(ref)).rejects.toThrow(permissionDenied);
    // it may not delete (a read and a purge of the bucket): it asks the indexer, which deletes chunks and description
    await expect((await client.blobs()).delete(ref.name)).rejects.toThrow(permissionDenied);
    const stop = await serveContentRelease(indexer, { buckets: ['esp_content'], log: quiet });
    try {
      await requestContentRelease(client, 'esp_content', [ref.name]);
      await expect((await ip.blobs()).get(ref)).rejects.toMatchObject({ code: 'not_found' });
      const admin = await bus.connect('admin', { name: 'admin-blobs' });
      const jsm = await jetstream(admin.nc).jetstreamManager();
      expect((await jsm.streams.info('OBJ_esp_content')).state.messages).toBe(0);
      // a bucket the indexer does not release from, or a malformed request: refused with a reason
      await expect(requestContentRelease(client, 'KV_esp_names', ['x'])).rejects.toMatchObject({ code: 'unknown_bucket' });
    } finally {
      await stop();
    }
  });
});
