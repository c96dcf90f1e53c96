/**
 * The generated configuration on a real nats-server: each role may subscribe and publish what its job needs, and
 * the server refuses what the security rules forbid (permissions violations), asked subject by subject.
 */
import { DISPATCHER_NAME, dispatcherNodeName, INDEX_SEARCH_NAME, INDEXING_DISPATCHER_NAME, CONFIG_SERVICE_NAME } from '@esp/interfaces';
import { nameServerSubject, nameWriteSubject, type Middleware } from '@esp/middleware';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUS_ROLES, type BusRole } from '../src/bus/bus-roles';
import { tryPublish, trySubscribe } from './bus-probes';
import { SecuredBus } from './secured-bus';

const obj = (type: string): string => `esp.obj.${type}.somehost.16000.some_object`;
const OBJ = {
  session: obj('processing::session'),
  sessionFactory: obj('processing::session_factory'),
  masterDispatcher: obj('processing::master_dispatcher'),
  dispatcherNode: obj('processing::dispatcher_node'),
  processorServer: obj('processing::processor_server'),
  coreSession: obj('coreprocessing::session'),
  callback: obj('coreprocessing::operation_callback'),
  search: obj('indexing::search'),
  config: obj('configservice::config'),
};
const W = {
  dispatcher: nameWriteSubject(DISPATCHER_NAME),
  dispatcherNode: nameWriteSubject(dispatcherNodeName(0)),
  indexing: nameWriteSubject(INDEXING_DISPATCHER_NAME),
  search: nameWriteSubject(INDEX_SEARCH_NAME),
  config: nameWriteSubject(CONFIG_SERVICE_NAME),
};
const KV_WRITES = ['$KV.esp_names.b3Jn', '$JS.API.STREAM.PURGE.KV_esp_names', '$JS.API.STREAM.DELETE.KV_esp_names', '$JS.API.STREAM.UPDATE.KV_esp_names', '$JS.API.STREAM.CREATE.KV_esp_names', '$JS.API.STREAM.MSG.DELETE.KV_esp_names'];
const CONTENT_READS = ['$JS.API.STREAM.MSG.GET.OBJ_esp_content', '$JS.API.CONSUMER.CREATE.OBJ_esp_content', '$JS.API.CONSUMER.CREATE.OBJ_esp_content.c.$O.esp_content.C.x', '$JS.API.DIRECT.GET.OBJ_esp_content.$O.esp_content.C.x'];

type Expect = 'allowed' | 'denied';
const SUBSCRIBE: Array<[BusRole, string, Expect]> = [
  ['client', OBJ.callback, 'allowed'],
  ['client', '_INBOX.client.abc.1', 'allowed'],
  ['client', OBJ.session, 'denied'],
  ['client', OBJ.sessionFactory, 'denied'],
  ['client', OBJ.dispatcherNode, 'denied'],
  ['client', OBJ.processorServer, 'denied'],
  ['client', OBJ.coreSession, 'denied'],
  ['client', 'esp.obj.>', 'denied'],
  ['client', nameServerSubject(), 'denied'],
  ['client', 'esp.ns.w.>', 'denied'],
  ['client', '_INBOX.>', 'denied'],
  ['client', '_INBOX.item-processor.abc.1', 'denied'],
  ['client', '$KV.esp_names.>', 'denied'],
  ['client', '$O.esp_content.>', 'denied'],
  ['client', 'esp.raw.>', 'denied'],
  // the role's user is the processor named item-processor: its own objects only (item-processor-<n> in
  // attacks-processors.e2e.spec.ts)
  ['item-processor', 'esp.obj.processing::processor_server.somehost.16390.processor_server.item-processor.123', 'allowed'],
  ['item-processor', OBJ.processorServer, 'denied'],
  ['item-processor', 'esp.obj.processing::processor_server.somehost.16390.processor_server.item-processor-2.123', 'denied'],
  ['item-processor', 'esp.obj.processing::processor_server.>', 'denied'],
  ['item-processor', OBJ.session, 'denied'],
  ['item-processor', OBJ.sessionFactory, 'denied'],
  ['item-processor', OBJ.masterDispatcher, 'denied'],
  ['item-processor', nameServerSubject(), 'denied'],
  ['content-distributor', OBJ.session, 'allowed'],
  ['content-distributor', OBJ.sessionFactory, 'allowed'],
  ['content-distributor', 'esp.raw.ppp.procserver-liveness.0', 'allowed'],
  ['content-distributor', OBJ.processorServer, 'denied'],
  ['content-distributor', OBJ.coreSession, 'denied'],
  ['content-distributor', nameServerSubject(), 'denied'],
  ['indexer', OBJ.coreSession, 'allowed'],
  ['indexer', OBJ.search, 'allowed'],
  ['indexer', OBJ.session, 'denied'],
  ['indexer', OBJ.processorServer, 'denied'],
  ['config-server', OBJ.config, 'allowed'],
  ['config-server', OBJ.session, 'denied'],
  ['name-server', nameServerSubject(), 'allowed'],
  ['name-server', W.dispatcher, 'allowed'],
  ['name-server', OBJ.session, 'denied'],
  ['multinode-scheduler', 'esp.raw.fscmt.c.mns.m1', 'allowed'],
  ['multinode-scheduler', 'esp.raw.fscmt.c.mns.m1.admin', 'allowed'],
  ['multinode-scheduler', 'esp.raw.fscmt.c.ns.n1', 'denied'],
  ['node-scheduler', 'esp.raw.fscmt.c.ns.n1', 'allowed'],
  ['node-scheduler', OBJ.callback, 'allowed'],
  ['node-scheduler', 'esp.raw.fscmt.c.mns.m1', 'denied'],
  ['duplicate-server', 'esp.raw.fscmt.c.dup.d1.ctl', 'allowed'],
  ['duplicate-server', 'esp.raw.fscmt.c.ns.n1', 'denied'],
  ['fscmt-gateway', 'esp.raw.fscmt.c.tcp.t1', 'allowed'],
  ['ssr-node', 'esp.raw.ssr.feeding.all', 'allowed'],
  ['ssr-node', OBJ.session, 'denied'],
  ['ppp-gateway', 'esp.raw.ppp.svc.backend', 'allowed'],
  ['ppp-gateway', OBJ.processorServer, 'denied'],
  ['admin', '>', 'allowed'],
];

const PUBLISH: Array<[BusRole, string, Expect]> = [
  ['client', nameServerSubject(), 'allowed'],
  ['client', OBJ.sessionFactory, 'allowed'],
  ['client', OBJ.session, 'allowed'],
  ['client', OBJ.search, 'allowed'],
  ['client', '$O.esp_content.C.abc', 'allowed'],
  ['client', W.dispatcher, 'denied'],
  ['client', W.indexing, 'denied'],
  ['client', W.config, 'denied'],
  ['client', OBJ.processorServer, 'denied'],
  ['client', OBJ.masterDispatcher, 'denied'],
  // get_sessions / remove_sessions and the node's session methods are for the distributors (the master) alone
  ['client', OBJ.dispatcherNode, 'denied'],
  ['node-scheduler', OBJ.dispatcherNode, 'denied'],
  ['item-processor', OBJ.dispatcherNode, 'denied'],
  ['indexer', OBJ.dispatcherNode, 'denied'],
  ['content-distributor', OBJ.dispatcherNode, 'allowed'],
  ['client', OBJ.coreSession, 'denied'],
  ['client', OBJ.callback, 'denied'],
  ['client', 'esp.raw.ppp.procserver-liveness.0', 'denied'],
  ...CONTENT_READS.map((s): [BusRole, string, Expect] => ['client', s, 'denied']),
  ['item-processor', OBJ.masterDispatcher, 'allowed'],
  ['item-processor', OBJ.coreSession, 'allowed'],
  ['item-processor', 'esp.raw.ppp.procserver-liveness.0', 'allowed'],
  ['item-processor', '$JS.API.STREAM.MSG.GET.OBJ_esp_content', 'allowed'],
  // no consumers on the content stream for anyone: a push consumer delivers any stored message to a subject of its
  // creator's choosing (the crawl administration, say), past the creator's own publish permissions
  ...(['item-processor', 'indexer', 'client', 'node-scheduler', 'content-distributor'] as const).flatMap((r) =>
    ['$JS.API.CONSUMER.CREATE.OBJ_esp_content', '$JS.API.CONSUMER.CREATE.OBJ_esp_content.c.$O.esp_content.C.x'].map((s): [BusRole, string, Expect] => [r, s, 'denied']),
  ),
  ['item-processor', W.dispatcher, 'denied'],
  ['item-processor', W.dispatcherNode, 'denied'],
  ['item-processor', W.indexing, 'denied'],
  ['item-processor', OBJ.session, 'denied'],
  ['content-distributor', W.dispatcher, 'allowed'],
  ['content-distributor', W.dispatcherNode, 'allowed'],
  ['content-distributor', OBJ.processorServer, 'allowed'],
  ['content-distributor', W.indexing, 'denied'],
  ['content-distributor', W.config, 'denied'],
  ['indexer', W.indexing, 'allowed'],
  ['indexer', W.search, 'allowed'],
  ['indexer', OBJ.callback, 'allowed'],
  ['indexer', W.dispatcher, 'denied'],
  ['indexer', W.config, 'denied'],
  ['config-server', W.config, 'allowed'],
  ['config-server', W.dispatcher, 'denied'],
  ['config-server', W.indexing, 'denied'],
  ['multinode-scheduler', 'esp.raw.fscmt.c.ns.n1', 'allowed'],
  ['duplicate-server', 'esp.raw.fscmt.c.mns.m1.admin', 'denied'],
  ['ppp-gateway', 'esp.raw.ppp.procserver-liveness.0', 'denied'],
  ['name-server', nameServerSubject(), 'allowed'],
  ['name-server', '$JS.API.STREAM.INFO.KV_esp_names', 'allowed'],
  ['content-distributor', obj('processing::procserver_handler'), 'allowed'],
  ['client', obj('processing::procserver_handler'), 'denied'],
  ['name-server', '$JS.API.STREAM.INFO.OBJ_esp_content', 'denied'],
  ['admin', W.dispatcher, 'allowed'],
];

describe('bus permissions of the generated nats-server configuration', () => {
  let bus: SecuredBus;
  const conns = new Map<BusRole, Middleware>();
  const as = async (role: BusRole): Promise<Middleware> => {
    let mw = conns.get(role);
    if (!mw) {
      mw = await bus.connect(role);
      conns.set(role, mw);
    }
    return mw;
  };

  beforeAll(async () => {
    bus = await SecuredBus.start();
  });
  afterAll(async () => {
    await bus?.stop();
  });

  it.each(SUBSCRIBE)('%s subscribing to %s: %s', async (role, subject, expected) => {
    expect(await trySubscribe(await as(role), subject)).toBe(expected);
  });

  it.each(PUBLISH)('%s publishing on %s: %s', async (role, subject, expected) => {
    expect(await tryPublish(await as(role), subject)).toBe(expected);
  });

  it('nobody but the admin identity may subscribe to everything, or to every reply', async () => {
    for (const role of BUS_ROLES.filter((r) => r !== 'admin')) {
      expect(await trySubscribe(await as(role), '>'), role).toBe('denied');
      expect(await trySubscribe(await as(role), '_INBOX.>'), role).toBe('denied');
    }
  });

  it('only the content distributors (and the admin) may call a dispatcher_node (get_sessions, remove_sessions...) or serve one', async () => {
    for (const role of BUS_ROLES.filter((r) => r !== 'admin' && r !== 'content-distributor')) {
      expect(await tryPublish(await as(role), OBJ.dispatcherNode), role).toBe('denied');
      expect(await trySubscribe(await as(role), OBJ.dispatcherNode), role).toBe('denied');
    }
  });

  it('only the name server (and the admin) may change the esp_names bucket', async () => {
    for (const role of BUS_ROLES.filter((r) => r !== 'admin' && r !== 'name-server')) {
      for (const subject of KV_WRITES) expect(await tryPublish(await as(role), subject), `${role} ${subject}`).toBe('denied');
    }
    // the name server keeps its bucket: it may write and purge it, never delete it
    for (const subject of KV_WRITES.filter((s) => !s.includes('STREAM.DELETE'))) expect(await tryPublish(await as('name-server'), subject), subject).toBe('allowed');
    expect(await tryPublish(await as('name-server'), '$JS.API.STREAM.DELETE.KV_esp_names')).toBe('denied');
  });
});
