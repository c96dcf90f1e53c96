/**
 * Attacks on the bus by a holder of the feed credentials, against real processes on a nats-server with the
 * generated least-privilege configuration: each fails the attacker (the server refuses it as a permissions
 * violation, or it changes nothing), and a feed of 200 documents completes within seconds after each one, every
 * document with exactly one final status and searchable. A garbage binding written by an identity that may write
 * the bucket (admin) is skipped and replaced, and feeding resumes.
 */
import { DISPATCHER_NAME, masterDispatcherInterface, nameServerInterface, sessionFactoryInterface, type Binding } from '@esp/interfaces';
import { bindingKey, NAME_BUCKET, nameServerSubject, packValue, unpackValue, type Middleware } from '@esp/middleware';
import { waitFor } from '@esp/testing';
import { xmlRpcCall } from '@esp/xmlrpc-http';
// the attacker's tool (and the admin writer's): the raw KV client, around the middleware
// eslint-disable-next-line no-restricted-imports
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttackRig, IP_NAME } from './attack-rig';
import { permissionDenied, tryPublish, trySubscribe } from './bus-probes';

/** From an attack's end to the last document of the following feed searchable, at most. */
const RECOVERY_MS = 10_000;
const SF = sessionFactoryInterface;

describe('attacks on the bus with the feed credentials fail, and feeding goes on', () => {
  let rig: AttackRig;
  let client: Middleware;
  const recovery: Record<string, number> = {};
  const dispatcher = (mw: Middleware = client): Promise<Binding> => mw.names.resolve(DISPATCHER_NAME, SF.type, SF.version);
  const feedsAfter = async (attack: string): Promise<void> => {
    const { ms } = await rig.feedBatch(attack);
    recovery[attack] = ms;
    expect(ms, `${attack}: 200 documents searchable after ${ms} ms`).toBeLessThanOrEqual(RECOVERY_MS);
  };

  beforeAll(async () => {
    rig = await AttackRig.start();
    client = rig.client;
    await rig.feedBatch('baseline');
  }, 180_000);
  afterAll(async () => {
    console.log(`recovery after each attack (ms): ${JSON.stringify(recovery)}`);
    await rig?.stop();
  });

  it('rebinding the dispatcher name at interface version 6.0 is refused; the binding stays', async () => {
    const before = await dispatcher();
    await expect(client.names.bind(DISPATCHER_NAME, { ...before.aor, interface_version: '6.0' }, { rebind: true })).rejects.toThrow(permissionDenied);
    await expect(client.names.bind(DISPATCHER_NAME, { ...before.aor, object_id: 'thief', interface_version: '6.0' })).rejects.toThrow(permissionDenied);
    // around the write subject: a bind sent on the read subject, which a client may publish on, is refused there
    const envelope = [1, nameServerInterface.type, nameServerInterface.version, 'bind', [DISPATCHER_NAME, { ...before.aor, interface_version: '6.0' }, true], 2_000];
    const reply = unpackValue((await client.nc.request(nameServerSubject(), packValue(envelope), { timeout: 5_000 })).data);
    expect(reply).toEqual([1, ['s', expect.anything(), expect.stringMatching(/write subject esp\.ns\.w\.esp\.subsystems\.processing\.dispatcher/), expect.anything()]]);
    expect(await dispatcher()).toEqual(before);
    await feedsAfter('rebind-6.0');
  }, 30_000);

  it('a garbage value for the dispatcher name in esp_names: the feed identity can write neither the key nor the bucket', async () => {
    const before = await dispatcher();
    const key = bindingKey(DISPATCHER_NAME, SF.type);
    expect(await tryPublish(client, `$KV.${NAME_BUCKET}.${key}`)).toBe('denied');
    expect(await tryPublish(client, `$JS.API.STREAM.PURGE.KV_${NAME_BUCKET}`)).toBe('denied');
    const kv = await new Kvm(client.nc).open(NAME_BUCKET); // a handle: opening it writes nothing
    await expect(kv.put(key, 'not a binding')).rejects.toThrow(permissionDenied);
    await expect(kv.purge(key)).rejects.toThrow(permissionDenied);
    expect(await dispatcher()).toEqual(before);
    await feedsAfter('garbage-by-client');
  }, 30_000);

  it('a garbage value written by an identity that may (admin): skipped with a warning, the master binds again, feeding resumes', async () => {
    const before = await dispatcher();
    const admin = await rig.bus.connect('admin');
    const kv = await new Kvm(admin.nc).open(NAME_BUCKET);
    const garbage = await kv.put(bindingKey(DISPATCHER_NAME, SF.type), '\u0000not a binding{{{');
    await feedsAfter('garbage-by-admin');
    const after = await dispatcher();
    expect(after.revision).toBeGreaterThan(garbage);
    expect(after.aor).toEqual(before.aor); // the same distributor, bound again
    const { nameServer, distributor } = rig.procs;
    expect(nameServer.logs.some((l) => l['msg'] === 'a value that is not a binding was replaced' && l['revision'] === garbage)).toBe(true);
    expect(distributor.logs.some((l) => /session_factory binding is gone/.test(String(l['why'] ?? l['msg'])))).toBe(true);
    expect(nameServer.running && distributor.running).toBe(true);
  }, 30_000);

  it('a garbage value for the master_dispatcher binding (admin): the master binds it again, a restarted item processor registers', async () => {
    const md = () => client.names.resolve(DISPATCHER_NAME, masterDispatcherInterface.type, masterDispatcherInterface.version);
    const before = await md();
    const admin = await rig.bus.connect('admin');
    const kv = await new Kvm(admin.nc).open(NAME_BUCKET);
    const garbage = await kv.put(bindingKey(DISPATCHER_NAME, masterDispatcherInterface.type), '[1, 2, 3]');
    const t0 = performance.now();
    const { distributor } = rig.procs;
    const registered = () => distributor.logs.filter((l) => l['msg'] === 'item processor registered').length;
    const was = registered();
    // an item processor that starts now must find the master: it resolves master_dispatcher
    await xmlRpcCall(rig.nodeControlUrl, 'RestartProcess', [[IP_NAME]], { secret: rig.secret });
    await waitFor(() => registered() > was, { timeoutMs: 30_000, what: 'the restarted item processor registered' });
    const after = await md();
    expect(after.revision).toBeGreaterThan(garbage);
    expect(after.aor).toEqual(before.aor);
    expect(distributor.logs.some((l) => l['msg'] === 'the master_dispatcher binding was gone; bound it again')).toBe(true);
    recovery['md-garbage-ip-registered'] = Math.round(performance.now() - t0);
    await feedsAfter('md-garbage-by-admin');
  }, 60_000);

  it("unbinding the master's bindings and binding the attacker's own object (hijack) are refused", async () => {
    const before = await dispatcher();
    const md = await client.names.resolve(DISPATCHER_NAME, masterDispatcherInterface.type, masterDispatcherInterface.version);
    await expect(client.names.unbind(DISPATCHER_NAME, SF.type, before.revision)).rejects.toThrow(permissionDenied);
    await expect(client.names.unbind(DISPATCHER_NAME, SF.type, null)).rejects.toThrow(permissionDenied);
    await expect(client.names.unbind(DISPATCHER_NAME, masterDispatcherInterface.type, null)).rejects.toThrow(permissionDenied);
    const own = { ...before.aor, object_id: 'hijack', host: 'attacker', port: 1 };
    await expect(client.names.bind(DISPATCHER_NAME, own)).rejects.toThrow(permissionDenied);
    // nor could it serve such an object: the session factory subjects are the distributors' alone
    expect(await trySubscribe(client, `esp.obj.${SF.type}.attacker.1.hijack`)).toBe('denied');
    expect(await dispatcher()).toEqual(before);
    expect((await client.names.resolve(DISPATCHER_NAME, masterDispatcherInterface.type, masterDispatcherInterface.version)).revision).toBe(md.revision);
    await feedsAfter('unbind-hijack');
  }, 30_000);

  it('a spoofed name-server reply: the attacker cannot subscribe to esp.ns.rpc, nor publish into another identity\'s inbox', async () => {
    const real = await dispatcher();
    let answered = 0;
    let refused: Error | undefined;
    // an attacker answering every resolve with its own binding, faster than the name server
    const spoof = client.nc.subscribe(nameServerSubject(), {
      callback: (err, msg) => {
        if (err) refused = err;
        else if (msg.respond(JSON.stringify({ name: DISPATCHER_NAME, aor: { ...real.aor, host: 'attacker', object_id: 'spoofed' }, revision: 1 }))) answered++;
      },
    });
    await client.nc.flush();
    await waitFor(() => refused !== undefined || spoof.isClosed(), { timeoutMs: 5_000, what: 'the subscription refused' });
    expect(String(refused ?? (await spoof.closed))).toMatch(permissionDenied);
    expect(await trySubscribe(client, nameServerSubject())).toBe('denied');
    for (const inbox of ['_INBOX.content-distributor.x', '_INBOX.item-processor.x', '_INBOX.indexer.x', '_INBOX.admin.x']) {
      expect(await tryPublish(client, inbox), inbox).toBe('denied');
    }
    const distributorView = await rig.bus.connect('content-distributor');
    for (let i = 0; i < 20; i++) expect((await dispatcher(i % 2 ? client : distributorView)).aor).toEqual(real.aor);
    expect(answered).toBe(0);
    await feedsAfter('spoofed-ns-reply');
  }, 30_000);

  it("subscribing to '>' and to 'esp.obj.>' is refused: the attacker hears nothing of a feed", async () => {
    let heard = 0;
    const errors: Error[] = [];
    const subs = ['>', 'esp.obj.>', '_INBOX.>', 'esp.ns.>'].map((s) =>
      client.nc.subscribe(s, {
        callback: (err) => {
          if (err) errors.push(err);
          else heard++;
        },
      }),
    );
    await client.nc.flush();
    await feedsAfter('subscribe-all');
    expect(heard).toBe(0);
    expect(subs.every((s) => s.isClosed())).toBe(true);
    expect(errors.length).toBe(subs.length);
    expect(errors.every((e) => permissionDenied.test(e.message))).toBe(true);
  }, 30_000);

  it('no process of the stack was refused anything, nor stopped', () => {
    for (const [name, p] of Object.entries(rig.procs)) {
      expect(p.running, name).toBe(true);
      const refused = p.logs.filter((l) => permissionDenied.test(JSON.stringify(l)));
      expect(refused, `${name}: ${JSON.stringify(refused.slice(0, 3))}`).toEqual([]);
    }
  });
});
