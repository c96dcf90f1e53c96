import { buildFscmtNodeSchedulerMessage, FswcuDict, fswcuBytes, readFscmtMultinodeSchedulerMessage, type FscmtMultinodeSchedulerMessage, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { entryFor, NodeSchedulerMachine } from './node-scheduler-machine';

const MNS = 'mns';

function rig() {
  const clock = new ManualClock(0);
  const out: FscmtMultinodeSchedulerMessage[] = [];
  const m = new NodeSchedulerMachine({ nodeId: 'n1', mns: MNS, clock, ipKey: 'ip-port', send: (_to, dict) => out.push(readFscmtMultinodeSchedulerMessage(dict)) });
  m.connect({});
  const recv = (msg: FscmtNodeSchedulerMessage) => m.handle(MNS, buildFscmtNodeSchedulerMessage(msg), 0);
  const route = (site: string, nodeId: string) => recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId, routingAttribute: site, site, addrinfo: null, ttl: 0 } });
  const grant = (site: string) => recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: site, site, storeId: 0, allowed: true } });
  const uris = () =>
    out
      .splice(0)
      .filter((x) => x.command === 'CMD_UM_URI')
      .map((x) => (x as { entry: { uri: { uri: string } } }).entry.uri.uri);
  recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: new FswcuDict([[fswcuBytes('delay'), 0]]), epoch: 1 });
  route('127.0.0.1:8001', 'n1');
  route('127.0.0.1:8002', 'n2');
  // the home page of 8001 links to its own /a and to two pages of 8002 (forwarded: 8002 is n2's)
  recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor('http://127.0.0.1:8001/', '', 0, []) });
  grant('127.0.0.1:8001');
  const home = m.nextFetch()!;
  m.fetched(home, { kind: 'page', links: ['http://127.0.0.1:8001/a', 'http://127.0.0.1:8001/b', 'http://127.0.0.1:8002/x', 'http://127.0.0.1:8002/y'], fate: 'fed' });
  expect(uris()).toEqual(['http://127.0.0.1:8002/x', 'http://127.0.0.1:8002/y']);
  return { m, route, grant, uris };
}

describe('node scheduler: a site whose route moves (its node was dropped)', () => {
  it('moved to us: the links we had forwarded to it are crawled here', () => {
    const r = rig();
    r.route('127.0.0.1:8002', 'n1');
    r.grant('127.0.0.1:8002');
    const got: string[] = [];
    for (let f = r.m.nextFetch(); f; f = r.m.nextFetch()) {
      got.push(f.entry.uri.uri);
      r.m.fetched(f, { kind: 'page', links: [], fate: 'fed' });
    }
    expect(got.sort()).toEqual(['http://127.0.0.1:8001/a', 'http://127.0.0.1:8001/b', 'http://127.0.0.1:8002/x', 'http://127.0.0.1:8002/y']);
    expect(r.uris()).toEqual([]);
  });

  it('moved to a third node: the links go to the multinode scheduler again, for the new owner', () => {
    const r = rig();
    r.route('127.0.0.1:8002', 'n3');
    expect(r.uris()).toEqual(['http://127.0.0.1:8002/x', 'http://127.0.0.1:8002/y']);
    r.route('127.0.0.1:8002', 'n3'); // the same route again (a re-registration): nothing moves
    expect(r.uris()).toEqual([]);
  });

  it('moved away from us: what its queue holds goes to the new owner and is not crawled here', () => {
    const r = rig();
    r.route('127.0.0.1:8001', 'n2');
    expect(r.uris()).toEqual(['http://127.0.0.1:8001/a', 'http://127.0.0.1:8001/b']);
    expect(r.m.nextFetch()).toBeUndefined();
  });
});
