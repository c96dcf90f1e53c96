import { buildFscmtNodeSchedulerMessage, FswcuDict, fswcuBytes, readFscmtMultinodeSchedulerMessage, type FscmtMultinodeSchedulerMessage, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { entryFor, NodeSchedulerMachine, type Fetch } from './node-scheduler-machine';

const SITE = '127.0.0.1:8001';
const U = (p: string): string => `http://${SITE}${p}`;

function rig(maxDoc: number) {
  const clock = new ManualClock(0);
  const out: FscmtMultinodeSchedulerMessage[] = [];
  const m = new NodeSchedulerMachine({ nodeId: 'n1', mns: 'mns', clock, ipKey: 'ip-port', statsMs: 1000, send: (_to, dict) => out.push(readFscmtMultinodeSchedulerMessage(dict)) });
  m.connect({});
  const recv = (msg: FscmtNodeSchedulerMessage): void => m.handle('mns', buildFscmtNodeSchedulerMessage(msg), 0);
  recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: new FswcuDict([[fswcuBytes('delay'), 0], [fswcuBytes('max_doc'), maxDoc]]), epoch: 1 });
  recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId: 'n1', routingAttribute: SITE, site: SITE, addrinfo: null, ttl: 0 } });
  const uri = (p: string): void => recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor(U(p), '', 0, []) });
  const grant = (): void => recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: SITE, site: SITE, storeId: 0, allowed: true } });
  /** What the latest CMD_UM_STAT (within the next second) that names the site says of it. */
  const siteProgress = (): FswcuDict | undefined => {
    clock.advance(1000);
    const stats = out.splice(0).filter((x) => x.command === 'CMD_UM_STAT') as unknown as Array<{ stats: FswcuDict }>;
    const of = (s: { stats: FswcuDict }) => ((s.stats.getText('progress') as FswcuDict | undefined)?.getText('sites') as FswcuDict | undefined)?.getText(SITE) as FswcuDict | undefined;
    return stats.map(of).filter((x) => x !== undefined).at(-1);
  };
  return { clock, m, uri, grant, siteProgress };
}

describe('node scheduler: max_doc and what a site reports', () => {
  it('max_doc is exact with no delay: fetches still in processing count against it, so no more pages than max_doc are read', () => {
    const r = rig(5);
    for (let i = 0; i < 20; i++) r.uri(`/p${i}`);
    r.grant();
    // the crawler's way with delay 0: the request is over (requestDone) long before the page's duplicate check and
    // feeding report it (fetched), so the next fetch is asked for while earlier pages are still in processing
    const started: Fetch[] = [];
    const processing: Fetch[] = [];
    for (let round = 0; round < 100; round++) {
      const f = r.m.nextFetch();
      if (f) {
        started.push(f);
        r.m.requestDone(f);
        processing.push(f);
      } else if (processing.length) r.m.fetched(processing.shift() as Fetch, { kind: 'page', links: [], fate: 'fed' });
      else break;
    }
    expect(started).toHaveLength(5);
    expect(r.m.stats('web')).toMatchObject({ fetched: 5, fed: 5, excluded: 15 });
  });

  it('a fetch that ends as a redirect or an error is not a page: the next one may go', () => {
    const r = rig(2);
    for (const p of ['/a', '/b', '/c', '/d']) r.uri(p);
    r.grant();
    const a = r.m.nextFetch() as Fetch;
    r.m.requestDone(a);
    const b = r.m.nextFetch() as Fetch;
    r.m.requestDone(b);
    // two out: max_doc reached for now, the rest waits (not dropped) until they are reported
    expect(r.m.nextFetch()).toBeUndefined();
    r.m.fetched(a, { kind: 'error', reason: 'connect ECONNREFUSED 127.0.0.1:8001' });
    const c = r.m.nextFetch() as Fetch;
    expect(c.entry.uri.uri).toBe(U('/c'));
    r.m.fetched(b, { kind: 'page', links: [], fate: 'fed' });
    r.m.fetched(c, { kind: 'not_indexable', reason: 'image/png' });
    expect(r.m.nextFetch()).toBeUndefined();
    expect(r.m.stats('web')).toMatchObject({ fetched: 2, fed: 1, errors: 1, excluded: 1 });
  });

  it('a page read whose feeding failed afterwards is a page of max_doc all the same', () => {
    const r = rig(1);
    for (const p of ['/a', '/b']) r.uri(p);
    r.grant();
    const a = r.m.nextFetch() as Fetch;
    r.m.requestDone(a);
    r.m.fetched(a, { kind: 'error', reason: 'feeding failed', read: true });
    expect(r.m.nextFetch()).toBeUndefined();
    expect(r.m.stats('web')).toMatchObject({ errors: 1, excluded: 1 });
  });

  it('the progress of a site says why it is held back and until when, and the reason of its last fetch error', () => {
    const r = rig(0);
    r.uri('/');
    r.uri('/x');
    r.grant();
    r.m.start();
    const f = r.m.nextFetch() as Fetch;
    r.m.fetched(f, { kind: 'deferred', retryInMs: 60_000, reason: 'robots.txt unreachable (http://127.0.0.1:8001/robots.txt: connect ECONNREFUSED)' });
    let p = r.siteProgress();
    expect(new TextDecoder().decode(p?.getText('held') as Uint8Array)).toBe('robots.txt unreachable (http://127.0.0.1:8001/robots.txt: connect ECONNREFUSED)');
    expect(p?.getText('held_ms')).toBe(59_000);
    expect(r.m.nextFetch()).toBeUndefined();
    r.clock.advance(60_000);
    const g = r.m.nextFetch() as Fetch;
    expect(g.entry.uri.uri).toBe(U('/'));
    r.m.fetched(g, { kind: 'error', reason: 'connect ECONNREFUSED 127.0.0.1:8001' });
    p = r.siteProgress();
    expect(p?.getText('held')).toBeUndefined();
    expect(p?.getText('errors')).toBe(1);
    expect(new TextDecoder().decode(p?.getText('last_error') as Uint8Array)).toBe(`${U('/')}: connect ECONNREFUSED 127.0.0.1:8001`);
    r.m.stop();
  });
});
