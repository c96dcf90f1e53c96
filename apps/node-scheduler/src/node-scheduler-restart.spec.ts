import { buildFscmtNodeSchedulerMessage, FswcuDict, fswcuBytes, readFscmtMultinodeSchedulerMessage, type FscmtMultinodeSchedulerMessage, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { entryFor, NodeSchedulerMachine, type Fetch } from './node-scheduler-machine';
import { MemoryNodeStore } from './store/memory-node-store';
import type { NodeStore } from './store/node-store';

const MNS = 'mns';
const A = '127.0.0.1:8001';
const B = '127.0.0.1:8002';
const CONF: FscmtNodeSchedulerMessage = { command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: new FswcuDict([[fswcuBytes('delay'), 0]]), epoch: 1 };

/** A node scheduler machine on `store`, as a process would be: restored from the store, then started. */
function node(store: NodeStore, feedAcks = false) {
  const clock = new ManualClock(0);
  const out: FscmtMultinodeSchedulerMessage[] = [];
  const m = new NodeSchedulerMachine({ nodeId: 'n1', mns: MNS, clock, ipKey: 'ip-port', store, feedAcks, send: (_to, dict) => out.push(readFscmtMultinodeSchedulerMessage(dict)) });
  m.connect({});
  const restored = m.restore(store.load());
  m.start();
  const recv = (msg: FscmtNodeSchedulerMessage) => m.handle(MNS, buildFscmtNodeSchedulerMessage(msg), 0);
  const route = (site: string, nodeId = 'n1') => recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId, routingAttribute: site, site, addrinfo: null, ttl: 0 } });
  const grant = (site: string) => recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: site, site, storeId: 0, allowed: true } });
  const uri = (u: string) => recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor(u, '', 0, []) });
  /** The multinode scheduler greets a node that registers: configuration, routes, then CMD_UM_ASK_ROUTE. */
  const greet = (routes: Array<[string, string]>) => {
    recv(CONF);
    for (const [site, owner] of routes) route(site, owner);
    recv({ command: 'CMD_UM_ASK_ROUTE', dspecName: 'web' });
  };
  const take = () => out.splice(0);
  const sent = (command: string) =>
    take()
      .filter((x) => x.command === command)
      .map((x) => ('entry' in x ? x.entry.uri.uri : 'data' in x && 'site' in (x.data as object) ? (x.data as { site: string }).site : x.command));
  /** Fetches everything fetchable now, each a page with the links given for it. */
  const crawl = (links: Record<string, string[]> = {}, fate: 'fed' | 'unfed' = 'unfed'): string[] => {
    const got: string[] = [];
    for (let f = m.nextFetch(); f; f = m.nextFetch()) {
      got.push(f.entry.uri.uri);
      m.fetched(f, { kind: 'page', links: links[f.entry.uri.uri] ?? [], fate });
    }
    return got;
  };
  return { m, clock, restored, recv, route, grant, uri, greet, take, sent, crawl };
}

/** The first life of node n1: site A routed here, B to n2; A's home fetched (its links queued), /a taken and in flight. */
function firstLife(store: NodeStore, feedAcks = false): { inFlight: Fetch; n: ReturnType<typeof node> } {
  const n = node(store, feedAcks);
  n.greet([
    [A, 'n1'],
    [B, 'n2'],
  ]);
  n.uri(`http://${A}/`);
  n.grant(A);
  const home = n.m.nextFetch()!;
  n.m.fetched(home, { kind: 'page', links: [`http://${A}/a`, `http://${A}/b`, `http://${A}/c`, `http://${B}/x`], fate: 'unfed' });
  const inFlight = n.m.nextFetch()!;
  expect(inFlight.entry.uri.uri).toBe(`http://${A}/a`);
  n.take();
  return { inFlight, n };
}

describe('node scheduler restarted on its store', () => {
  it('resumes: the queue comes back in order with the page in flight at the kill; nothing done is fetched again', () => {
    const store = new MemoryNodeStore();
    firstLife(store); // killed with /a in flight

    const n = node(store);
    expect(n.restored).toMatchObject({ collections: 1, queued: 3, done: 1, forwarded: 1, inFlight: [`http://${A}/a`] });
    expect(n.take()[0]).toMatchObject({ command: 'CMD_UM_INIT' });
    // nothing is asked for before the scheduler told its routes
    expect(n.m.nextFetch()).toBeUndefined();
    n.greet([
      [A, 'n1'],
      [B, 'n2'],
    ]);
    expect(n.sent('CMD_UM_START_CRAWL_IP')).toEqual([A]);
    n.grant(A);
    // the scheduler sends again what the node had not vouched for: the seen set drops it
    n.uri(`http://${A}/`);
    expect(n.crawl()).toEqual([`http://${A}/a`, `http://${A}/b`, `http://${A}/c`]);
  });

  it('without a store a restarted node has nothing to resume (what the store is for)', () => {
    firstLife(new MemoryNodeStore());
    const n = node(new MemoryNodeStore());
    expect(n.restored).toMatchObject({ collections: 0, queued: 0 });
    n.greet([[A, 'n1']]);
    expect(n.m.nextFetch()).toBeUndefined();
  });

  it('the links forwarded for routing and not vouched for are sent again after CMD_UM_INIT; vouched-for ones are not', () => {
    const store = new MemoryNodeStore();
    firstLife(store);
    let n = node(store);
    expect(n.sent('CMD_UM_URI')).toEqual([`http://${B}/x`]);
    // this time keep-alive answers vouch for it (an answer covers what was sent before the previous keep-alive)
    for (let round = 0; round < 2; round++) {
      n.clock.advance(120_000);
      n.recv({ command: 'CMD_UM_KEEPALIVE_ACK' });
    }
    n.take();
    n = node(store);
    expect(n.restored.unconfirmed).toBe(0);
    expect(n.sent('CMD_UM_URI')).toEqual([]);
    // still known as forwarded: a second link to it is not sent again
    n.greet([
      [A, 'n1'],
      [B, 'n2'],
    ]);
    n.grant(A);
    n.crawl({ [`http://${A}/b`]: [`http://${B}/x`] });
    expect(n.sent('CMD_UM_URI')).toEqual([]);
  });

  it('with feed acknowledgements a fed page is done only once its feed is acknowledged: else it is fetched again', () => {
    const store = new MemoryNodeStore();
    const { n, inFlight } = firstLife(store, true);
    n.m.fetched(inFlight, { kind: 'page', links: [], fate: 'fed' }); // /a fed, no outcome yet
    const b = n.m.nextFetch()!;
    n.m.fetched(b, { kind: 'page', links: [], fate: 'fed' });
    n.m.feedDone('web', b.entry.uri.uri); // /b fed and acknowledged
    const again = node(store, true);
    expect(again.restored.inFlight).toEqual([`http://${A}/a`]);
    again.greet([
      [A, 'n1'],
      [B, 'n2'],
    ]);
    again.grant(A);
    expect(again.crawl()).toEqual([`http://${A}/a`, `http://${A}/c`]);
  });

  it('a restored site the scheduler gave to another node meanwhile is not crawled here: its entries follow it', () => {
    const store = new MemoryNodeStore();
    firstLife(store);
    const n = node(store);
    n.take();
    n.greet([
      [A, 'n2'],
      [B, 'n2'],
    ]);
    expect(n.sent('CMD_UM_URI').sort()).toEqual([`http://${A}/a`, `http://${A}/b`, `http://${A}/c`]);
    expect(n.m.nextFetch()).toBeUndefined();
  });

  it('entries dropped from a queue (quarantine) stay dropped; a removed collection is forgotten', () => {
    const store = new MemoryNodeStore();
    const { n } = firstLife(store);
    n.recv({ command: 'CMD_UM_QUARANTINE_SITE', dspecName: 'web', data: { site: A, seconds: 1 } });
    let again = node(store);
    again.greet([[A, 'n1']]);
    again.grant(A);
    expect(again.crawl()).toEqual([`http://${A}/a`]); // the one in flight at the kill
    again.recv({ command: 'CMD_ADM_CONF_REMOVE', dspecName: 'web' });
    again = node(store);
    expect(again.restored).toMatchObject({ collections: 0, queued: 0, done: 0 });
  });

  it('a crawl round after a restart fetches again the pages fetched before it (they are known), not the dropped ones', () => {
    const store = new MemoryNodeStore();
    const { n, inFlight } = firstLife(store);
    n.m.fetched(inFlight, { kind: 'page', links: [], fate: 'unfed' });
    n.recv({ command: 'CMD_UM_QUARANTINE_SITE', dspecName: 'web', data: { site: A, seconds: 1 } }); // /b and /c dropped
    const again = node(store);
    again.greet([
      [A, 'n1'],
      [B, 'n2'],
    ]);
    again.recv({ command: 'CMD_ADM_CONF_REFRESH', dspecName: 'web', refresh: { subcollection: null, mask: 0 } });
    again.grant(A);
    expect(again.crawl().sort()).toEqual([`http://${A}/`, `http://${A}/a`]);
  });
});
