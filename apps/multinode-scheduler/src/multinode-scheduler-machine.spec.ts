import {
  FswcuDict,
  fswcuBytes,
  type FscmtQueueEntry,
} from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { addr, queueEntry, schedulerRig } from '../test/scheduler-rig';
import { describe, expect, it } from 'vitest';

const A = 'addr-a';
const B = 'addr-b';
const dspec = new FswcuDict([[fswcuBytes('delay'), 1]]);
const entry = (uri: string): FscmtQueueEntry => queueEntry(uri);

function rig() {
  const clock = new ManualClock(1_000_000);
  const refused: string[] = [];
  const r = schedulerRig({ clock, onRefused: (a, reason) => refused.push(`${a}: ${reason}`) });
  return { clock, refused, ...r };
}

describe('multinode scheduler', () => {
  it('3.2.5.1 - anything before CMD_UM_INIT, and a node id already registered, are refused', () => {
    const r = rig();
    r.send(A, { command: 'CMD_UM_KEEPALIVE' });
    r.init(A, 'n1');
    r.init(B, 'n1');
    r.init(A, 'n1'); // the same node on the same connection again: a re-registration, not a refusal
    expect(r.refused).toEqual([`${A}: CMD_UM_KEEPALIVE before CMD_UM_INIT`, `${B}: node id n1 is already registered`]);
    expect(r.m.nodeIds()).toEqual(['n1']);
    expect(r.take()).toEqual([]);
  });

  it('3.2.5.1 - a registering node gets CMD_ADM_CONF_ADD for every collection, and is asked for its routes', () => {
    const r = rig();
    r.m.addCollection('web', dspec);
    r.m.addCollection('news', dspec);
    r.init(A, 'n1');
    expect(r.take().map((o) => [o.to, o.msg.command, 'dspecName' in o.msg ? o.msg.dspecName : ''])).toEqual([
      [A, 'CMD_ADM_CONF_ADD', 'web'],
      [A, 'CMD_UM_ASK_ROUTE', 'web'],
      [A, 'CMD_ADM_CONF_ADD', 'news'],
      [A, 'CMD_UM_ASK_ROUTE', 'news'],
    ]);
  });

  it('a registering node learns a suspended collection is suspended (a suspension outlives a restart of either side)', () => {
    const r = rig();
    r.m.addCollection('web', dspec);
    r.m.suspend('web');
    r.take();
    r.init(A, 'n1');
    expect(r.take().map((o) => [o.msg.command, 'state' in o.msg ? o.msg.state : undefined])).toEqual([
      ['CMD_ADM_CONF_ADD', undefined],
      ['CMD_ADM_CONF_SUSPEND', 4],
      ['CMD_UM_ASK_ROUTE', undefined],
    ]);
  });

  it('3.2.5.9 / 3.2.5.10 - routing waits for CMD_UM_LAST_ROUTE; routes a node reports are kept (a restarted scheduler re-learns them)', () => {
    const r = rig();
    r.m.addCollection('web', dspec, ['http://127.0.0.1:8001/', 'http://127.0.0.1:8002/']);
    r.init(A, 'n1');
    r.init(B, 'n2');
    r.m.dnsResolved('127.0.0.1', addr('127.0.0.1'), 60);
    r.take();
    r.send(B, { command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', routes: [{ routingAttribute: '127.0.0.1:8002', nodeId: 'n2' }] });
    r.send(B, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    expect(r.take()).toEqual([]); // n1 has not answered yet
    r.send(A, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    const out = r.take();
    expect(out.filter((o) => o.msg.command === 'CMD_UM_URI').map((o) => [o.to, (o.msg as { entry: FscmtQueueEntry }).entry.uri.uri])).toEqual([
      [A, 'http://127.0.0.1:8001/'],
      [B, 'http://127.0.0.1:8002/'],
    ]);
    // only the new site got a routing decision
    expect(out.filter((o) => o.msg.command === 'CMD_UM_ADD_ROUTE').map((o) => (o.msg as { route: { site: string } }).route.site)).toEqual(['127.0.0.1:8001', '127.0.0.1:8001']);
  });

  it('a node that never answers CMD_UM_ASK_ROUTE holds routing up for 30 s at most', () => {
    const r = rig();
    r.m.start();
    r.m.addCollection('web', dspec, ['http://127.0.0.1:8001/']);
    r.init(A, 'n1');
    r.m.dnsResolved('127.0.0.1', addr('127.0.0.1'), 3600);
    r.take();
    r.clock.advance(120_000);
    expect(r.take().map((o) => o.msg.command)).toEqual(['CMD_UM_KEEPALIVE', 'CMD_UM_ADD_ROUTE', 'CMD_UM_URI']);
    r.m.stop();
  });

  it('3.2.5.5 - start URIs are routed after DNS: one route per site sent to every node, the entry to the routed node', () => {
    const r = rig();
    r.init(A, 'n1');
    r.init(B, 'n2');
    r.take();
    r.m.addCollection('web', dspec, ['http://127.0.0.1:8001/', 'http://localhost:8002/']);
    r.take();
    expect(r.lookups).toEqual(['127.0.0.1', 'localhost']);
    r.m.dnsResolved('127.0.0.1', addr('127.0.0.1'), 60);
    r.m.dnsResolved('localhost', [addr('127.0.0.1')], 60);
    const out = r.take();
    const routes = out.filter((o) => o.msg.command === 'CMD_UM_ADD_ROUTE');
    expect(routes.map((o) => o.to)).toEqual([A, B, A, B]);
    expect(routes[0]!.msg).toMatchObject({ route: { nodeId: 'n1', site: '127.0.0.1:8001', ttl: 60 } });
    expect(routes[2]!.msg).toMatchObject({ route: { nodeId: 'n2', site: 'localhost:8002' } });
    const uris = out.filter((o) => o.msg.command === 'CMD_UM_URI');
    expect(uris.map((o) => [o.to, (o.msg as { entry: FscmtQueueEntry }).entry.uri.uri])).toEqual([
      [A, 'http://127.0.0.1:8001/'],
      [B, 'http://localhost:8002/'],
    ]);
    // a forward link to a routed site goes straight to its node; URG goes before what is queued
    r.send(B, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8001/x') });
    expect(r.take().map((o) => [o.to, o.msg.command])).toEqual([[A, 'CMD_UM_URI']]);
  });

  it('3.2.5.4 - DNS answers are cached for their TTL', () => {
    const r = rig();
    r.init(A, 'n1');
    r.take();
    r.send(A, { command: 'CMD_UM_DNS_REQUEST', dspecName: 'web', site: 'example.test' });
    r.m.dnsResolved('example.test', null, 10);
    r.send(A, { command: 'CMD_UM_DNS_REQUEST', dspecName: 'web', site: 'example.test' });
    expect(r.lookups).toEqual(['example.test']);
    r.clock.advance(10_001);
    r.send(A, { command: 'CMD_UM_DNS_REQUEST', dspecName: 'web', site: 'example.test' });
    expect(r.lookups).toEqual(['example.test', 'example.test']);
    expect(r.take().map((o) => o.msg)).toEqual([
      { command: 'CMD_UM_DNS_REPLY', dspecName: '', data: { hostname: 'example.test', addrinfo: null, resolvedAt: 1000, ttl: 10 } },
      { command: 'CMD_UM_DNS_REPLY', dspecName: '', data: { hostname: 'example.test', addrinfo: null, resolvedAt: 1000, ttl: 10 } },
    ]);
  });

  it('3.2.5.11 - an IP crawled by another node is refused, and so is an 11th site on one IP', () => {
    const r = rig();
    r.init(A, 'n1');
    r.init(B, 'n2');
    r.take();
    const ask = (from: string, site: string, ip = '10.0.0.1') =>
      r.send(from, { command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip, site, storeId: 0 } });
    for (let i = 0; i < 11; i++) ask(A, `s${i}.test`);
    ask(B, 'other.test');
    r.send(A, { command: 'CMD_UM_STOP_CRAWL_IP', dspecName: 'web', data: { ip: '10.0.0.1', site: 's0.test' } });
    ask(A, 's10.test');
    const allowed = r.take().map((o) => (o.msg as { data: { allowed: boolean } }).data.allowed);
    expect(allowed).toEqual([...Array(10).fill(true), false, false, true]);
  });

  it('CMD_UM_KEEPALIVE is answered; the keep-alive timer pings every node', () => {
    const r = rig();
    r.init(A, 'n1');
    r.send(A, { command: 'CMD_UM_KEEPALIVE' });
    expect(r.take().map((o) => [o.msg.command, o.priority])).toEqual([['CMD_UM_KEEPALIVE_ACK', 1]]);
    r.m.start();
    r.clock.advance(120_000);
    expect(r.take().map((o) => o.msg.command)).toEqual(['CMD_UM_KEEPALIVE']);
    r.m.stop();
  });

  it('CMD_UM_CONF_STATE is answered with the collection state; DELETE_OK ends a removal', () => {
    const r = rig();
    r.init(A, 'n1');
    r.m.addCollection('web', dspec);
    r.m.suspend('web');
    r.take();
    r.send(A, { command: 'CMD_UM_CONF_STATE', dspecName: 'web' });
    expect(r.take()[0]!.msg).toEqual({ command: 'CMD_UM_CONF_STATE', dspecName: 'web', state: 4 });
    r.m.removeCollection('web');
    expect(r.take().map((o) => o.msg.command)).toEqual(['CMD_ADM_CONF_REMOVE']);
    r.send(A, { command: 'CMD_UM_DELETE_OK', dspecName: 'web' });
    r.send(A, { command: 'CMD_UM_CONF_STATE', dspecName: 'web' });
    expect(r.take()[0]!.msg).toMatchObject({ state: 3 });
  });
});
