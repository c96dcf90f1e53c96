import {
  buildFscmtNodeSchedulerMessage,
  FSCMT_CONF_STATES,
  FswcuDict,
  fswcuBytes,
  readFscmtMultinodeSchedulerMessage,
  type FscmtMultinodeSchedulerMessage,
  type FscmtNodeSchedulerMessage,
} from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { BLOCK_MS, entryFor, NodeSchedulerMachine, type FetchOutcome } from './node-scheduler-machine';

const MNS = 'mns';
const dspec = (extra: Array<[string, unknown]> = []) =>
  new FswcuDict([[fswcuBytes('delay'), 2], ...extra.map(([k, v]) => [fswcuBytes(k), v] as [Uint8Array, never])]);

function rig(opts: { ipKey?: 'ip' | 'ip-port' } = {}) {
  const clock = new ManualClock(0);
  const out: FscmtMultinodeSchedulerMessage[] = [];
  const events: string[] = [];
  const m = new NodeSchedulerMachine({
    nodeId: 'n1',
    mns: MNS,
    clock,
    ipKey: opts.ipKey,
    send: (to, dict) => {
      expect(to).toBe(MNS);
      out.push(readFscmtMultinodeSchedulerMessage(dict));
    },
  });
  m.connect({
    onConfig: (c) => events.push(`config ${c}`),
    onDelete: (c, uris) => events.push(`delete ${c} ${uris.join(',')}`),
  });
  const recv = (msg: FscmtNodeSchedulerMessage, priority: 0 | 1 = 0) => m.handle(MNS, buildFscmtNodeSchedulerMessage(msg), priority);
  const route = (site: string, nodeId = 'n1') =>
    recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId, routingAttribute: site, site, addrinfo: null, ttl: 0 } });
  const uri = (u: string, urgent = false) => recv({ command: urgent ? 'CMD_UM_URI_URG' : 'CMD_UM_URI', dspecName: 'web', entry: entryFor(u, '', 0, []) });
  const grant = (site: string, allowed: boolean, ip = '127.0.0.1') =>
    recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip, site, storeId: 0, allowed } });
  return { clock, m, out, events, recv, route, uri, grant, take: () => out.splice(0) };
}

describe('node scheduler', () => {
  it('starts with CMD_UM_INIT; answers keep-alives; messages from anyone but its multinode scheduler are ignored', () => {
    const r = rig();
    r.m.start();
    expect(r.take()).toEqual([{ command: 'CMD_UM_INIT', nodeId: 'n1', xmlrpc: { host: '127.0.0.1', port: 0 } }]);
    r.recv({ command: 'CMD_UM_KEEPALIVE' });
    r.m.handle('someone-else', buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 0);
    expect(r.take()).toEqual([{ command: 'CMD_UM_KEEPALIVE_ACK' }]);
    // keep-alives unanswered twice: CMD_UM_INIT again, in case the scheduler restarted
    r.clock.advance(120_000);
    r.clock.advance(120_000);
    expect(r.take().map((m) => m.command)).toEqual(['CMD_UM_KEEPALIVE', 'CMD_UM_KEEPALIVE']);
    r.clock.advance(120_000);
    expect(r.take().map((m) => m.command)).toEqual(['CMD_UM_INIT', 'CMD_UM_KEEPALIVE']);
    r.m.stop();
  });

  it("a page's links reach the site's queue as soon as they are found: the next request does not wait for the duplicate check", () => {
    const r = rig({ ipKey: 'ip-port' });
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec(), epoch: 1 });
    r.route('127.0.0.1:8001');
    r.uri('http://127.0.0.1:8001/');
    r.grant('127.0.0.1:8001', true, '127.0.0.1:8001');
    const home = r.m.nextFetch()!;
    r.m.requestDone(home);
    r.m.linksFound(home, ['http://127.0.0.1:8001/a', 'http://127.0.0.1:8001/b']);
    r.clock.advance(2000);
    // the home page's duplicate check is still out (fetched() not called), yet /a is due after the delay
    const a = r.m.nextFetch()!;
    expect(a.entry.uri.uri).toBe('http://127.0.0.1:8001/a');
    expect(a.depth).toBe(1);
    r.m.fetched(home, { kind: 'page', links: [], fate: 'fed' });
    r.m.fetched(a, { kind: 'page', links: [], fate: 'fed' });
    r.clock.advance(2000);
    expect(r.m.nextFetch()!.entry.uri.uri).toBe('http://127.0.0.1:8001/b');
    // the site stayed granted throughout: no STOP_CRAWL_IP / START_CRAWL_IP again while work was queued
    expect(r.take().filter((m) => m.command === 'CMD_UM_STOP_CRAWL_IP' || m.command === 'CMD_UM_START_CRAWL_IP')).toHaveLength(1);
  });

  it('asks CMD_UM_START_CRAWL_IP before crawling a site, then hands out one fetch at a time per site, `delay` apart', () => {
    const r = rig({ ipKey: 'ip-port' });
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec(), epoch: 1 });
    expect(r.events).toEqual(['config web']);
    r.uri('http://127.0.0.1:8001/a');
    r.uri('http://127.0.0.1:8001/b');
    r.uri('http://127.0.0.1:8001/c', true); // URG: front of the queue
    expect(r.take()).toEqual([{ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: '127.0.0.1:8001', site: '127.0.0.1:8001', storeId: 0 } }]);
    expect(r.m.nextFetch()).toBeUndefined();
    r.grant('127.0.0.1:8001', true, '127.0.0.1:8001');
    const f1 = r.m.nextFetch()!;
    expect(f1.entry.uri.uri).toBe('http://127.0.0.1:8001/c');
    expect(r.m.nextFetch()).toBeUndefined(); // one at a time per site
    r.m.fetched(f1, { kind: 'excluded' }); // robots.txt said no: no request, no delay
    const f2 = r.m.nextFetch()!;
    expect(f2.entry.uri.uri).toBe('http://127.0.0.1:8001/a');
    r.m.fetched(f2, { kind: 'page', links: [], fate: 'fed' });
    expect(r.m.nextFetch()).toBeUndefined(); // politeness
    expect(r.m.nextWakeMs()).toBe(2000);
    r.clock.advance(2000);
    expect(r.m.nextFetch()!.entry.uri.uri).toBe('http://127.0.0.1:8001/b');
  });

  it('statistics: every page read is fetched and exactly one of fed, duplicate, unfed, excluded by type or by size', () => {
    const r = rig({ ipKey: 'ip-port' });
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: new FswcuDict([[fswcuBytes('delay'), 0]]), epoch: 1 });
    r.route('127.0.0.1:8001');
    for (const p of ['a', 'b', 'c', 'd', 'e', 'f']) r.uri(`http://127.0.0.1:8001/${p}`);
    r.grant('127.0.0.1:8001', true, '127.0.0.1:8001');
    const outcomes: FetchOutcome[] = [
      { kind: 'page', links: [], fate: 'fed' },
      { kind: 'page', links: [], fate: 'duplicate' },
      { kind: 'page', links: [], fate: 'unfed' },
      { kind: 'not_indexable', reason: 'served as text/css, a type the pipeline does not index' },
      { kind: 'too_large', maxBytes: 10 },
      { kind: 'error', reason: 'HTTP 500' },
    ];
    for (const o of outcomes) r.m.fetched(r.m.nextFetch()!, o);
    r.m.feedFailed('web');
    expect(r.m.stats('web')).toEqual({ fetched: 5, fed: 1, duplicates: 1, unfed: 1, excluded_type: 1, excluded_size: 1, noindex: 0, excluded: 0, errors: 1, redirects: 0, feed_failed: 1, unchanged: 0, removed: 0 });
  });

  it('a refused site is blocked for 30 minutes with its entries kept, then asked again', () => {
    const r = rig();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec() });
    r.uri('http://127.0.0.1:8001/a');
    r.take();
    r.grant('127.0.0.1:8001', false);
    expect(r.m.nextFetch()).toBeUndefined();
    expect(r.m.nextWakeMs()).toBe(BLOCK_MS);
    r.clock.advance(BLOCK_MS);
    expect(r.m.nextFetch()).toBeUndefined();
    expect(r.take().map((m) => m.command)).toEqual(['CMD_UM_START_CRAWL_IP']);
    r.grant('127.0.0.1:8001', true);
    expect(r.m.nextFetch()!.entry.uri.uri).toBe('http://127.0.0.1:8001/a');
  });

  it('links: routed here -> local queue once; elsewhere or unrouted -> CMD_UM_URI to the multinode scheduler once; excluded ones dropped', () => {
    const r = rig();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec([['exclude_uris', new FswcuDict([[fswcuBytes('prefix'), [fswcuBytes('http://127.0.0.1:8001/private/')]]])]]) });
    r.route('127.0.0.1:8001');
    r.route('127.0.0.1:8002', 'n2');
    r.uri('http://127.0.0.1:8001/');
    r.grant('127.0.0.1:8001', true);
    r.take();
    const f = r.m.nextFetch()!;
    const links = ['http://127.0.0.1:8001/x', 'http://127.0.0.1:8001/x', 'http://127.0.0.1:8001/private/p', 'http://127.0.0.1:8002/y', 'http://127.0.0.1:8003/z', 'http://127.0.0.1:8003/z'];
    r.m.fetched(f, { kind: 'page', links, fate: 'fed' });
    const sent = r.take().filter((m) => m.command === 'CMD_UM_URI');
    expect(sent.map((m) => (m as { entry: { uri: { uri: string } } }).entry.uri.uri)).toEqual(['http://127.0.0.1:8002/y', 'http://127.0.0.1:8003/z']);
    expect(r.m.stats('web')).toMatchObject({ fetched: 1, fed: 1, excluded: 1 });
    r.clock.advance(2000);
    expect(r.m.nextFetch()!.entry.uri.uri).toBe('http://127.0.0.1:8001/x');
  });

  it('a redirect queues its target with the redirect trail', () => {
    const r = rig();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec() });
    r.route('127.0.0.1:8001');
    r.uri('http://127.0.0.1:8001/r');
    r.grant('127.0.0.1:8001', true);
    r.m.fetched(r.m.nextFetch()!, { kind: 'redirect', location: 'http://127.0.0.1:8001/target', status: 301 });
    r.clock.advance(2000);
    const next = r.m.nextFetch()!;
    expect(next.entry.uri.uri).toBe('http://127.0.0.1:8001/target');
    expect(next.entry.redirects).toEqual([{ uri: 'http://127.0.0.1:8001/r', kind: 0x20 }]);
  });

  it('crawlmode DEPTH:1 follows links one level from the start URI', () => {
    const r = rig();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec([['crawlmode', new FswcuDict([[fswcuBytes('mode'), fswcuBytes('DEPTH:1')]])]]) });
    r.route('127.0.0.1:8001');
    r.uri('http://127.0.0.1:8001/');
    r.grant('127.0.0.1:8001', true);
    r.m.fetched(r.m.nextFetch()!, { kind: 'page', links: ['http://127.0.0.1:8001/1'], fate: 'fed' });
    r.clock.advance(2000);
    const second = r.m.nextFetch()!;
    expect(second.depth).toBe(1);
    r.m.fetched(second, { kind: 'page', links: ['http://127.0.0.1:8001/2'], fate: 'fed' });
    r.clock.advance(2000);
    expect(r.m.nextFetch()).toBeUndefined();
  });

  it('suspend stops handing out work, resume restarts it; quarantine holds a site until it expires (5 s timer)', () => {
    const r = rig();
    r.m.start();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec() });
    r.uri('http://127.0.0.1:8001/a');
    r.grant('127.0.0.1:8001', true);
    r.recv({ command: 'CMD_ADM_CONF_SUSPEND', dspecName: 'web', state: FSCMT_CONF_STATES.SUSPENDED_BY_USER });
    expect(r.m.nextFetch()).toBeUndefined();
    r.recv({ command: 'CMD_ADM_CONF_RESUME', dspecName: 'web' });
    r.recv({ command: 'CMD_UM_QUARANTINE_SITE_REQUEUE', dspecName: 'web', data: { site: '127.0.0.1:8001', seconds: 7 } });
    expect(r.m.nextFetch()).toBeUndefined();
    r.clock.advance(10_000);
    expect(r.m.nextFetch()!.entry.uri.uri).toBe('http://127.0.0.1:8001/a');
    r.m.stop();
  });

  it('delete site reports the fed URIs for removal; CONF_REMOVE answers CMD_UM_DELETE_OK', async () => {
    const r = rig();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec() });
    r.uri('http://127.0.0.1:8001/a');
    r.grant('127.0.0.1:8001', true);
    r.m.fetched(r.m.nextFetch()!, { kind: 'page', links: [], fate: 'fed' });
    r.recv({ command: 'CMD_UM_DELETE_SITE', dspecName: 'web', site: '127.0.0.1:8001' });
    expect(r.events).toContain('delete web http://127.0.0.1:8001/a');
    r.take();
    r.recv({ command: 'CMD_ADM_CONF_REMOVE', dspecName: 'web' });
    await new Promise((res) => setImmediate(res));
    expect(r.take().map((m) => m.command)).toEqual(['CMD_UM_DELETE_OK']);
    expect(r.m.collectionNames()).toEqual([]);
  });
});

describe('node scheduler - the multinode scheduler restarted', () => {
  it('registering again sends the links forwarded since the last confirmed keep-alive and the unanswered permission requests', () => {
    const r = rig({ ipKey: 'ip-port' });
    r.m.start();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec(), epoch: 1 });
    r.route('127.0.0.1:8001');
    r.uri('http://127.0.0.1:8001/a');
    r.grant('127.0.0.1:8001', true, '127.0.0.1:8001');
    r.uri('http://127.0.0.1:8002/x'); // a site nobody asked permission for yet: asking
    const f = r.m.nextFetch()!;
    r.m.fetched(f, { kind: 'page', links: ['http://127.0.0.1:8003/old', 'http://127.0.0.1:8001/b'], fate: 'fed' });
    r.take();
    // two keep-alive rounds answered: /old is confirmed (it went before the first keep-alive)
    r.clock.advance(120_000);
    r.recv({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
    r.clock.advance(120_000);
    r.recv({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
    const g = r.m.nextFetch()!;
    r.m.fetched(g, { kind: 'page', links: ['http://127.0.0.1:8003/new'], fate: 'fed' });
    r.take();
    // the scheduler goes silent (killed): after two unanswered rounds the node registers again
    r.clock.advance(120_000);
    r.clock.advance(120_000);
    r.take();
    r.clock.advance(120_000);
    const again = r.take().filter((m) => m.command !== 'CMD_UM_STAT');
    expect(again.map((m) => m.command)).toEqual(['CMD_UM_INIT', 'CMD_UM_URI', 'CMD_UM_START_CRAWL_IP', 'CMD_UM_KEEPALIVE']);
    expect(again[1]).toMatchObject({ dspecName: 'web', entry: { uri: { uri: 'http://127.0.0.1:8003/new' } } });
    expect(again[2]).toMatchObject({ data: { ip: '127.0.0.1:8002', site: '127.0.0.1:8002' } });
    // the restarted scheduler answers the next rounds: nothing is sent again any more
    r.recv({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
    r.clock.advance(120_000);
    r.recv({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
    r.clock.advance(120_000);
    r.recv({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
    r.clock.advance(360_000);
    expect(r.take().filter((m) => m.command === 'CMD_UM_URI')).toEqual([]);
    r.m.stop();
  });
});

describe('node scheduler - a keep-alive round unanswered (messages lost, e.g. a NATS restart)', () => {
  it('sends the unconfirmed links again without registering again; a second round also sends CMD_UM_INIT', () => {
    const r = rig({ ipKey: 'ip-port' });
    r.m.start();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec(), epoch: 1 });
    r.route('127.0.0.1:8001');
    r.uri('http://127.0.0.1:8001/a');
    r.grant('127.0.0.1:8001', true, '127.0.0.1:8001');
    r.m.fetched(r.m.nextFetch()!, { kind: 'page', links: ['http://127.0.0.1:8003/x'], fate: 'fed' });
    r.take();
    r.clock.advance(120_000); // keep-alive, unanswered
    r.take();
    r.clock.advance(120_000);
    expect(r.take().map((m) => m.command).filter((c) => c !== 'CMD_UM_STAT')).toEqual(['CMD_UM_URI', 'CMD_UM_KEEPALIVE']);
    r.clock.advance(120_000);
    expect(r.take().map((m) => m.command).filter((c) => c !== 'CMD_UM_STAT')).toEqual(['CMD_UM_INIT', 'CMD_UM_URI', 'CMD_UM_KEEPALIVE']);
    r.m.stop();
  });
});

describe('node scheduler - its own NATS connection reconnected', () => {
  it('a reconnect between two answered keep-alives still sends again the unanswered permission request (once)', () => {
    const r = rig({ ipKey: 'ip-port' });
    r.m.start();
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec(), epoch: 1 });
    r.uri('http://127.0.0.1:8002/x'); // asks permission for 127.0.0.1:8002; the request or its answer dies with the server
    r.take();
    r.clock.advance(120_000);
    r.recv({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1); // the outage was shorter than a keep-alive round
    r.m.busReconnected();
    r.take();
    r.clock.advance(120_000);
    const again = r.take().filter((m) => m.command !== 'CMD_UM_STAT');
    expect(again.map((m) => m.command)).toEqual(['CMD_UM_START_CRAWL_IP', 'CMD_UM_KEEPALIVE']);
    expect(again[0]).toMatchObject({ data: { ip: '127.0.0.1:8002', site: '127.0.0.1:8002' } });
    // answered, no reconnect: not again
    r.recv({ command: 'CMD_UM_KEEPALIVE_ACK' }, 1);
    r.clock.advance(120_000);
    expect(r.take().filter((m) => m.command === 'CMD_UM_START_CRAWL_IP')).toEqual([]);
    r.m.stop();
  });
});
