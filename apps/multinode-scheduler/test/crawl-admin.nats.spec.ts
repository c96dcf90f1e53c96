import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFscmtMultinodeSchedulerMessage, FswcuDict, fswcuBytes, readFscmtNodeSchedulerMessage, type FscmtMultinodeSchedulerMessage, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { CrawlEndpoint, crawlAddress, crawlAdminAor, crawlAdminSubject } from '@esp/crawl-bus';
import { CollectionNotRegistered, CRAWL_DEFAULTS, crawlAdminInterface, CrawlSpecInvalid, UnknownCollection, type CrawlSpec } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { BadParameter, Middleware } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlConfigSource } from '../src/config-source';
import { serveCrawlAdmin } from '../src/crawl-admin-service';
import { startMultinodeScheduler, type MultinodeScheduler } from '../src/multinode-scheduler';

const log = createLogger('crawl-admin-test', {}, { level: 'warn' });
const CLUSTER = 'admin-test';
const spec = (over: Partial<CrawlSpec> = {}): CrawlSpec => ({
  collection: 'web',
  start_uris: ['http://127.0.0.1:8001/', 'http://127.0.0.1:8001/b'],
  include: null,
  exclude: null,
  delay_s: CRAWL_DEFAULTS.delay_s,
  max_depth: CRAWL_DEFAULTS.max_depth,
  max_doc: CRAWL_DEFAULTS.max_doc,
  robots: true,
  sitemaps: true,
  refresh_min: 0,
  ...over,
});

/** A node scheduler played by the test: registers, answers route questions, and reports what it is told to. */
async function fakeNode(mw: Middleware, id: string) {
  const got: FscmtNodeSchedulerMessage[] = [];
  const mns = crawlAddress({ cluster: CLUSTER, role: 'mns', id: 'main' });
  const send = (msg: FscmtMultinodeSchedulerMessage) => ep.send(mns, buildFscmtMultinodeSchedulerMessage(msg), 0);
  const ep: CrawlEndpoint = await CrawlEndpoint.start(mw.bus, {
    self: { cluster: CLUSTER, role: 'ns', id },
    onBatch: (batch) => {
      for (const m of batch) {
        const msg = readFscmtNodeSchedulerMessage(m.dict);
        got.push(msg);
        if (msg.command === 'CMD_UM_ASK_ROUTE') send({ command: 'CMD_UM_LAST_ROUTE', dspecName: msg.dspecName });
      }
    },
  });
  send({ command: 'CMD_UM_INIT', nodeId: id, xmlrpc: { host: '127.0.0.1', port: 1 } });
  const enc = (k: string) => fswcuBytes(k);
  const report = (collection: string, queued: number, inFlight: number, fetched = 0) =>
    send({
      command: 'CMD_UM_STAT',
      dspecName: collection,
      stats: new FswcuDict([
        [enc('fetched'), fetched],
        [enc('progress'), new FswcuDict([[enc('queued'), queued], [enc('in_flight'), inFlight], [enc('sites'), new FswcuDict([[enc('127.0.0.1:8001'), new FswcuDict([[enc('fetched'), fetched], [enc('queued'), queued]])]])]])],
      ]),
    });
  return { got, report, stop: () => ep.stop(), commands: () => got.map((m) => m.command) };
}

describe('crawl::admin on the multinode scheduler (real nats-server)', () => {
  let ns: NatsServer;
  let mw: Middleware;
  let dir: string;
  let mns: MultinodeScheduler;
  let registered: string[];
  let registerFails = false;
  const admin = () => mw.proxyAt(crawlAdminSubject({ cluster: CLUSTER, id: 'main' }), crawlAdminInterface, crawlAdminAor({ cluster: CLUSTER, id: 'main' }, 'client'), { timeoutMs: 5000 });

  beforeAll(async () => {
    ns = await NatsServer.start({ jetstream: false });
    mw = await Middleware.connect({ name: 'crawl-admin-test', servers: ns.url, logger: log });
    dir = mkdtempSync(join(tmpdir(), 'esp-crawl-admin-'));
    registered = [];
    const source = new CrawlConfigSource([], join(dir, 'crawl'));
    mns = await startMultinodeScheduler(mw.bus, { cluster: CLUSTER, id: 'main', collections: source.load(), settleMs: 300, resolveHost: async () => ['127.0.0.1'], log });
    await serveCrawlAdmin(mw, mns, {
      cluster: CLUSTER,
      id: 'main',
      source,
      log,
      registerCollection: async (name) => {
        if (registerFails) throw new Error('no config service');
        registered.push(name);
      },
    });
  });
  afterAll(async () => {
    await mns?.stop();
    await mw?.close();
    await ns?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('set_crawl writes the collection as XML, registers it first, hands its start URIs to a node; status says done only after the node stayed idle', async () => {
    const node = await fakeNode(mw, 'n1');
    await waitFor(() => mns.machine.nodeIds().includes('n1'), { what: 'n1 registered' });
    const r = await admin().set_crawl(spec());
    expect(r).toMatchObject({ collection: 'web', created: true, registered: true, include: { prefix: ['http://127.0.0.1:8001/'] } });
    expect(registered).toEqual(['web']);
    const xml = readFileSync(r.file, 'utf8');
    expect(xml).toContain('<DomainSpecification name="web">');
    expect(xml).toContain('<attrib name="delay" type="real">1</attrib>');
    expect(xml).toContain('DEPTH:10');
    await waitFor(() => node.commands().filter((c) => c === 'CMD_UM_URI').length === 2, { what: 'both start URIs handed to n1' });
    expect(node.commands()).toContain('CMD_ADM_CONF_ADD');

    node.report('web', 5, 1, 3);
    await waitFor(async () => (await admin().status('web'))[0]?.nodes[0]?.queued === 5, { what: 'the report arrived' });
    let [st] = await admin().status('web');
    expect(st).toMatchObject({ collection: 'web', state: 'active', queued: 0, done: false, stats: { fetched: 3 }, sites: [{ site: '127.0.0.1:8001', node: 'n1', fetched: 3, queued: 5 }] });
    expect(st?.nodes[0]).toMatchObject({ node: 'n1', idle: false, in_flight: 1 });

    node.report('web', 0, 0, 2);
    node.report('web', 0, 0);
    await waitFor(async () => (await admin().status('web'))[0]?.nodes[0]?.idle === true, { what: 'idle report' });
    [st] = await admin().status('web');
    expect(st?.done).toBe(false); // not yet over the settle period
    await new Promise((r) => setTimeout(r, 350));
    node.report('web', 0, 0);
    await waitFor(async () => (await admin().status('web'))[0]?.done === true, { what: 'done' });
    expect((await admin().status(''))[0]?.stats['fetched']).toBe(5);

    // set again with a change: a new epoch, and done only after fresh idle reports
    const again = await admin().set_crawl(spec({ delay_s: 2, refresh_min: 90 }));
    expect(readFileSync(again.file, 'utf8')).toContain('<attrib name="refresh" type="real">90</attrib>');
    expect(again.created).toBe(false);
    expect((await admin().status('web'))[0]).toMatchObject({ epoch: 2, done: false });
    await waitFor(() => node.commands().includes('CMD_ADM_CONF_UPDATE'), { what: 'update sent' });
    await node.stop();
  });

  it('operator commands reach the nodes as the messages of the spec; urgent URIs are handed out first', async () => {
    const node = await fakeNode(mw, 'n2');
    await waitFor(() => mns.machine.nodeIds().includes('n2'), { what: 'n2 registered' });
    const a = admin();
    const sent = async (cmd: Parameters<typeof a.command>[1], message: string) => {
      expect((await a.command('web', cmd)).message).toBe(message);
      await waitFor(() => node.got.some((m) => m.command === message), { what: message });
      return node.got.filter((m) => m.command === message).at(-1);
    };
    expect(await sent({ kind: 'delete_site', site: 'http://127.0.0.1:8001/' }, 'CMD_UM_DELETE_SITE')).toMatchObject({ site: '127.0.0.1:8001' });
    expect(await sent({ kind: 'preempt', site: '127.0.0.1:8001', requeue: true }, 'CMD_ADM_PREEMPT_SITE')).toMatchObject({ data: { site: '127.0.0.1:8001', requeue: true } });
    expect(await sent({ kind: 'quarantine', site: '127.0.0.1:8001', seconds: 60, requeue: false }, 'CMD_UM_QUARANTINE_SITE')).toMatchObject({ data: { seconds: 60 } });
    const del = await sent({ kind: 'delete_uris', uris: ['http://127.0.0.1:8001/x'] }, 'CMD_UM_DELETE_URIS');
    expect([...((del as { data: { urisBySite: Map<string, string[]> } }).data.urisBySite)]).toEqual([['127.0.0.1:8001', ['http://127.0.0.1:8001/x']]]);
    expect(await sent({ kind: 'reprocess', site: '127.0.0.1:8001', uri_prefix: 'http://127.0.0.1:8001/' }, 'CMD_UM_REPROCESS_SITE')).toMatchObject({ data: { uriPrefix: 'http://127.0.0.1:8001/' } });
    expect(await sent({ kind: 'feeding_suspend', suspend: true }, 'CMD_ADM_CONF_FEEDING_SUSPEND')).toMatchObject({ data: { suspend: true } });
    expect(await sent({ kind: 'refresh' }, 'CMD_ADM_CONF_REFRESH')).toMatchObject({ refresh: { mask: 0x2 | 0x8 } });
    expect(await sent({ kind: 'suspend' }, 'CMD_ADM_CONF_SUSPEND')).toMatchObject({ state: 4 });
    expect((await a.status('web'))[0]?.state).toBe('suspended_by_user');
    await sent({ kind: 'resume' }, 'CMD_ADM_CONF_RESUME');
    expect((await a.status('web'))[0]?.state).toBe('active');
    // the site is routed to n1 (gone from this test's view, still registered): the urgent URI goes there, first in the queue
    expect((await a.command('web', { kind: 'urgent', uris: ['http://127.0.0.1:8001/urgent'] })).message).toBe('CMD_UM_URI_URG');
    await node.stop();
  });

  it('typed errors: unknown collection, an invalid crawl, a collection the feeding chain could not learn, bad arguments', async () => {
    const a = admin();
    await expect(a.status('nope')).rejects.toBeInstanceOf(UnknownCollection);
    await expect(a.command('nope', { kind: 'suspend' })).rejects.toMatchObject({ code: 'unknown_collection' });
    await expect(a.set_crawl(spec({ collection: 'bad', include: { prefix: [], suffix: [], exact: [], regexp: ['(('] } }))).rejects.toBeInstanceOf(CrawlSpecInvalid);
    registerFails = true;
    const err = await a.set_crawl(spec({ collection: 'other' })).catch((e: unknown) => e);
    registerFails = false;
    expect(err).toBeInstanceOf(CollectionNotRegistered);
    expect((err as CollectionNotRegistered).retryable).toBe(true);
    expect(mns.machine.crawlState('other')).toBeUndefined();
    await expect(a.set_crawl(spec({ collection: '../etc' }))).rejects.toBeInstanceOf(BadParameter);
  });
});
