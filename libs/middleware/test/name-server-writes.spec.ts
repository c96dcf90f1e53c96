/**
 * Who may change a name: bind and unbind travel on the name's own write subject, so a nats-server's publish
 * permissions decide it; the name server refuses writes that arrive anywhere else. A value in the bucket that is not
 * a binding is skipped by resolve and replaced by the next bind, never read as "bound" for ever.
 */
import { AlreadyBound, ResolveException, nameServerInterface, type Aor } from '@esp/interfaces';
import { NatsServer } from '@esp/testing';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequest, Middleware, serveNameServer } from '../src';
import { createProxy } from '../src/client-proxy';
import { bindingKey } from '../src/name-key';
import { NAME_BUCKET, nameServerSubject, nameWriteSubject } from '../src/subjects';

const DISPATCHER = 'esp/subsystems/processing/dispatcher';
const aorOf = (objectId: string, version = '5.1'): Aor => ({ name: '', object_id: objectId, host: 'h1', port: 16390, interface_type: 'processing::session_factory', interface_version: version });
const NS_AOR: Aor = { name: 'fsmw/nameserver', object_id: 'fsmw.nameserver', host: 'nameserver', port: 0, interface_type: nameServerInterface.type, interface_version: nameServerInterface.version };

describe('name server writes', () => {
  let ns: NatsServer;
  let host: Middleware;
  let distributor: Middleware;
  let feeder: Middleware;

  beforeAll(async () => {
    // the name server and a distributor may write dispatcher names; a feed client may only resolve
    ns = await NatsServer.start({
      config: `authorization {
  users = [
    { user: names, password: n, permissions: { publish: ">", subscribe: ">" } }
    { user: distributor, password: d, permissions: { publish: ["esp.ns.rpc", "esp.ns.w.esp.subsystems.processing.>", "esp.ns.w.junk.>", "$JS.API.>", "$KV.esp_names.>"], subscribe: "_INBOX.>" } }
    { user: feeder, password: f, permissions: { publish: { allow: ["esp.ns.rpc", "$JS.API.>"] }, subscribe: "_INBOX.>" } }
  ]
}`,
    });
    host = await Middleware.connect({ name: 'name-server', servers: ns.url, security: { user: 'names', password: 'n' } });
    await serveNameServer(host);
    distributor = await Middleware.connect({ name: 'distributor', servers: ns.url, security: { user: 'distributor', password: 'd' } });
    feeder = await Middleware.connect({ name: 'feeder', servers: ns.url, security: { user: 'feeder', password: 'f' }, timeoutMs: 1_500 });
  });
  afterAll(async () => {
    await Promise.all([feeder?.close(), distributor?.close(), host?.close()]);
    await ns?.cleanup();
  });

  it('a name has its own write subject, one token per path segment', () => {
    expect(nameWriteSubject(DISPATCHER)).toBe('esp.ns.w.esp.subsystems.processing.dispatcher');
    expect(nameWriteSubject('a b/c.d')).toBe('esp.ns.w.a%20b.c%2Ed');
  });

  it('bind and unbind sent to the read subject are refused, and so is a write on another name\'s subject', async () => {
    const reads = createProxy(host.nc, nameServerInterface, NS_AOR, nameServerSubject());
    await expect(reads.bind('w/x', aorOf('sf'), false)).rejects.toBeInstanceOf(BadRequest);
    await expect(reads.unbind('w/x', 'processing::session_factory', null)).rejects.toThrow(/write subject esp\.ns\.w\.w\.x/);
    const elsewhere = createProxy(host.nc, nameServerInterface, NS_AOR, nameWriteSubject('w/allowed'));
    await expect(elsewhere.bind(DISPATCHER, aorOf('sf'), false)).rejects.toThrow(/arrived on esp\.ns\.w\.w\.allowed/);
    await expect(distributor.names.resolve(DISPATCHER, 'processing::session_factory', '5.1')).rejects.toBeInstanceOf(ResolveException);
  });

  it('a client without publish permission on the write subject cannot bind, rebind or unbind; it can resolve', async () => {
    const { revision } = await distributor.names.bind(DISPATCHER, aorOf('master'));
    const denied = /[Pp]ermissions? [Vv]iolation/;
    await expect(feeder.names.bind(DISPATCHER, aorOf('thief'))).rejects.toThrow(denied);
    await expect(feeder.names.bind(DISPATCHER, { ...aorOf('master', '6.0') }, { rebind: true })).rejects.toThrow(denied);
    await expect(feeder.names.unbind(DISPATCHER, 'processing::session_factory', null)).rejects.toThrow(denied);
    // and the distributor may not write names outside its own
    await expect(distributor.names.bind('esp/clusters/other', aorOf('x'))).rejects.toThrow(denied);
    const b = await feeder.names.resolve(DISPATCHER, 'processing::session_factory', '5.1');
    expect(b).toMatchObject({ revision, aor: { object_id: 'master', interface_version: '5.1' } });
    expect((await distributor.names.unbind(DISPATCHER, 'processing::session_factory', revision)).removed).toBe(true);
  });

  it('a value that is not a binding: resolve says nothing is bound, the next bind replaces it, and a second bind is refused as usual', async () => {
    const kv = await new Kvm(distributor.nc).open(NAME_BUCKET);
    await kv.put(bindingKey('junk/x', 'processing::session_factory'), 'not json at all');
    await expect(distributor.names.resolve('junk/x', 'processing::session_factory', '5.1')).rejects.toBeInstanceOf(ResolveException);
    const { revision } = await distributor.names.bind('junk/x', aorOf('sf-1'));
    expect((await distributor.names.resolve('junk/x', 'processing::session_factory', '5.1')).revision).toBe(revision);
    await expect(distributor.names.bind('junk/x', aorOf('sf-2'))).rejects.toBeInstanceOf(AlreadyBound);
    // valid JSON that is not a binding counts the same
    await kv.put(bindingKey('junk/y', 'processing::session_factory'), JSON.stringify({ aor: { object_id: 1 } }));
    await expect(distributor.names.bind('junk/y', aorOf('sf-3'))).resolves.toMatchObject({ revision: expect.any(Number) });
  });
});
