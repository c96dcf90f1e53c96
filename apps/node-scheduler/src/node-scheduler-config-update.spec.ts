import { buildFscmtNodeSchedulerMessage, FswcuDict, fswcuBytes, readFscmtMultinodeSchedulerMessage, type FscmtMultinodeSchedulerMessage, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { entryFor, NodeSchedulerMachine } from './node-scheduler-machine';

const MNS = 'mns';
const HERE = 'http://127.0.0.1:8001/';
const ELSEWHERE = 'http://127.0.0.1:8002/';
const UNROUTED = 'http://127.0.0.1:8003/';
const dspec = (delay: number) =>
  new FswcuDict([
    [fswcuBytes('delay'), delay],
    [fswcuBytes('start_uris'), [HERE, ELSEWHERE, UNROUTED].map((u) => fswcuBytes(u))],
  ]);

function rig() {
  const clock = new ManualClock(0);
  const out: FscmtMultinodeSchedulerMessage[] = [];
  const m = new NodeSchedulerMachine({ nodeId: 'n1', mns: MNS, clock, ipKey: 'ip-port', statsMs: 1000, send: (_to, dict) => out.push(readFscmtMultinodeSchedulerMessage(dict)) });
  m.connect({});
  const recv = (msg: FscmtNodeSchedulerMessage) => m.handle(MNS, buildFscmtNodeSchedulerMessage(msg), 0);
  const route = (site: string, nodeId: string) => recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId, routingAttribute: site, site, addrinfo: null, ttl: 0 } });
  recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec(0), epoch: 1 });
  route('127.0.0.1:8001', 'n1');
  route('127.0.0.1:8002', 'n2');
  return { clock, m, out, recv, take: () => out.splice(0) };
}

/** Crawls the start page of 8001 to the end (the site granted, fetched, fed). */
function crawlHome(r: ReturnType<typeof rig>): void {
  r.recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor(HERE, '', 0, []) });
  grant(r);
  const f = r.m.nextFetch()!;
  expect(f.entry.uri.uri).toBe(HERE);
  r.m.fetched(f, { kind: 'page', links: [], fate: 'fed' });
}

function grant(r: ReturnType<typeof rig>): void {
  r.recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: '127.0.0.1:8001', site: '127.0.0.1:8001', storeId: 0, allowed: true } });
}

describe('node scheduler: CMD_ADM_CONF_UPDATE and statistics', () => {
  it('3.1.5.11 - an update requeues the start URIs: its own sites are crawled again, unrouted ones go to the multinode scheduler', () => {
    const r = rig();
    crawlHome(r);
    r.recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor(HERE, '', 0, []) });
    expect(r.m.nextFetch()).toBeUndefined(); // seen: a URI is fetched once
    r.take();
    r.recv({ command: 'CMD_ADM_CONF_UPDATE', dspecName: 'web', dspec: dspec(0), epoch: 2 });
    const sent = r.take();
    const forwarded = sent.filter((m) => m.command === 'CMD_UM_URI') as Array<{ entry: { uri: { uri: string } } }>;
    expect(forwarded.map((m) => m.entry.uri.uri)).toEqual([UNROUTED]);
    // the site had been released when its queue ran dry: it asks for its IP again, and crawls the start page again
    expect(sent.filter((m) => m.command === 'CMD_UM_START_CRAWL_IP')).toHaveLength(1);
    grant(r);
    expect(r.m.nextFetch()?.entry.uri.uri).toBe(HERE);
  });

  it('an update of a collection not held here is ignored; CONF_ADD again with the same epoch (a re-registration) requeues nothing', () => {
    const r = rig();
    crawlHome(r);
    r.take();
    r.recv({ command: 'CMD_ADM_CONF_UPDATE', dspecName: 'other', dspec: dspec(0), epoch: 2 });
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec(0), epoch: 1 });
    expect(r.m.collectionNames()).toEqual(['web']);
    expect(r.take()).toEqual([]);
    expect(r.m.nextFetch()).toBeUndefined();
    // a CONF_ADD that brings a newer epoch is an update (3.1.5.10)
    r.recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: dspec(0), epoch: 3 });
    grant(r);
    expect(r.m.nextFetch()?.entry.uri.uri).toBe(HERE);
  });

  it('3.1.6 - CMD_UM_STAT carries the change since the previous one, not the totals', () => {
    const r = rig();
    r.m.start();
    crawlHome(r);
    r.take();
    r.clock.advance(1000);
    const stat = () => (r.take().find((m) => m.command === 'CMD_UM_STAT') as { stats: FswcuDict }).stats;
    expect(stat().getText('fetched')).toBe(1);
    r.clock.advance(1000);
    expect(stat().getText('fetched')).toBe(0);
    expect(r.m.stats('web')?.fetched).toBe(1); // the node's own totals stay
    r.m.stop();
  });
});
