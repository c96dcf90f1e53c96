import { buildFscmtNodeSchedulerMessage, FSCMT_REFRESH_BITS, FSCMT_URI_FLAGS, FswcuDict, fswcuBytes, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { entryFor, NodeSchedulerMachine, type Fetch, type FetchOutcome } from './node-scheduler-machine';

const SITE = '127.0.0.1:8001';
const U = (p: string): string => `http://${SITE}${p}`;

function rig(settings: Array<[string, unknown]> = []) {
  const clock = new ManualClock(0);
  const deleted: string[] = [];
  const rounds: string[] = [];
  const m = new NodeSchedulerMachine({ nodeId: 'n1', mns: 'mns', clock, ipKey: 'ip-port', send: () => undefined });
  m.connect({ onDelete: (_c, uris) => deleted.push(...uris), onRound: (c) => rounds.push(c) });
  const recv = (msg: FscmtNodeSchedulerMessage): void => m.handle('mns', buildFscmtNodeSchedulerMessage(msg), 0);
  const configure = (extra: Array<[string, unknown]>, epoch: number): void =>
    recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: new FswcuDict([[fswcuBytes('delay'), 0], ...extra.map(([k, v]) => [fswcuBytes(k), v] as [Uint8Array, never])]), epoch });
  configure(settings, 1);
  recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId: 'n1', routingAttribute: SITE, site: SITE, addrinfo: null, ttl: 0 } });
  const grant = (): void => recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: SITE, site: SITE, storeId: 0, allowed: true } });
  const refresh = (mask: number): void => recv({ command: 'CMD_ADM_CONF_REFRESH', dspecName: 'web', refresh: { subcollection: null, mask } });
  /** Fetches what is due, each with the outcome `answer` gives; the URIs fetched with their flags. */
  const crawl = (answer: (f: Fetch) => FetchOutcome = () => ({ kind: 'page', links: [], fate: 'fed' })): Array<[string, number]> => {
    const done: Array<[string, number]> = [];
    grant();
    for (let f = m.nextFetch(); f; f = m.nextFetch()) {
      done.push([f.entry.uri.uri, f.entry.uriFlags]);
      m.fetched(f, answer(f));
    }
    return done;
  };
  recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor(U('/'), '', 0, []) });
  return { clock, m, deleted, rounds, recv, configure, refresh, crawl };
}

const R = FSCMT_URI_FLAGS.URIF_RESCHEDULED;

describe('node scheduler crawl rounds', () => {
  it('a refresh queues each known URI once, flagged URIF_RESCHEDULED; a 304 keeps the page, a 404 deletes it', () => {
    const r = rig();
    const linksOfHome: FetchOutcome = { kind: 'page', links: [U('/a'), U('/b'), U('/c')], fate: 'fed' };
    expect(r.crawl((f) => (f.entry.uri.uri === U('/') ? linksOfHome : { kind: 'page', links: [], fate: 'fed' })).map(([u]) => u)).toEqual(['/', '/a', '/b', '/c'].map(U));
    r.refresh(FSCMT_REFRESH_BITS.REFRESH_COLLECTION);
    expect(r.rounds).toEqual(['web']);
    const answers: Record<string, FetchOutcome> = { [U('/')]: linksOfHome, [U('/a')]: { kind: 'unchanged' }, [U('/b')]: { kind: 'gone', status: 404 }, [U('/c')]: { kind: 'page', links: [], fate: 'fed' } };
    // the home page's links to known pages do not queue them a second time
    expect(r.crawl((f) => answers[f.entry.uri.uri]!)).toEqual(['/', '/a', '/b', '/c'].map((p) => [U(p), R]));
    expect(r.deleted).toEqual([U('/b')]);
    expect(r.m.stats('web')).toMatchObject({ fetched: 4 + 2, fed: 4 + 2, unchanged: 1, removed: 1, errors: 1 });
  });

  it('truncate empties the queues first; REQUEUE_START_URIS alone queues the start URIs, not the known pages', () => {
    const r = rig([['start_uris', [fswcuBytes(U('/'))]]]);
    let home: Fetch | undefined;
    r.crawl((f) => {
      home ??= f;
      return { kind: 'page', links: [U('/a'), U('/b')], fate: 'fed' };
    });
    expect(home).toBeDefined();
    r.refresh(FSCMT_REFRESH_BITS.REQUEUE_START_URIS);
    expect(r.rounds).toEqual([]);
    expect(r.crawl().map(([u, flags]) => [u, flags & R])).toEqual([[U('/'), 0]]);

    // a round whose queue still holds /a and /b (fetched in the round before), truncated: each once all the same
    r.refresh(FSCMT_REFRESH_BITS.REFRESH_COLLECTION);
    r.refresh(FSCMT_REFRESH_BITS.TRUNCATE_AND_RESTART);
    expect(r.crawl().map(([u]) => u)).toEqual(['/', '/a', '/b'].map(U));
    // a round asked for with the start URIs: the known start URI is in the round, asked for conditionally
    r.refresh(FSCMT_REFRESH_BITS.REFRESH_COLLECTION | FSCMT_REFRESH_BITS.REQUEUE_START_URIS);
    expect(r.crawl()).toEqual(['/', '/a', '/b'].map((p) => [U(p), R]));
  });

  it('the refresh interval starts a round that many minutes after the previous one began; max_doc counts per round', () => {
    const r = rig([['refresh', 1], ['max_doc', 2]]);
    r.m.start();
    expect(r.crawl((f) => ({ kind: 'page', links: f.entry.uri.uri === U('/') ? [U('/a'), U('/b')] : [], fate: 'fed' })).map(([u]) => u)).toEqual(['/', '/a'].map(U));
    r.clock.advance(59_000);
    expect(r.rounds).toEqual([]);
    r.clock.advance(1_000);
    expect(r.rounds).toEqual(['web']);
    expect(r.crawl((f) => ({ kind: f.entry.uri.uri === U('/') ? 'page' : 'unchanged', links: [], fate: 'fed' }) as FetchOutcome).map(([u]) => u)).toEqual(['/', '/a'].map(U));
    r.clock.advance(60_000);
    expect(r.rounds).toEqual(['web', 'web']);
    r.m.stop();
  });

  it('what CMD_UM_DELETE_URIS / CMD_UM_DELETE_SITE deleted is not fetched again by the next round', () => {
    const r = rig();
    r.crawl((f) => ({ kind: 'page', links: f.entry.uri.uri === U('/') ? [U('/a'), U('/b')] : [], fate: 'fed' }));
    r.recv({ command: 'CMD_UM_DELETE_URIS', dspecName: 'web', data: { urisBySite: new Map([[SITE, [U('/a')]]]), errcode: 'USR' } });
    expect(r.deleted).toEqual([U('/a')]);
    r.refresh(0);
    expect(r.crawl().map(([u]) => u)).toEqual(['/', '/b'].map(U));
    r.recv({ command: 'CMD_UM_DELETE_SITE', dspecName: 'web', site: SITE });
    r.refresh(0);
    expect(r.crawl()).toEqual([]);
  });

  it('a known page the updated configuration excludes is deleted at the next round, not fetched', () => {
    const r = rig();
    r.crawl((f) => ({ kind: 'page', links: f.entry.uri.uri === U('/') ? [U('/old/x')] : [], fate: 'fed' }));
    r.configure([['exclude_uris', new FswcuDict([[fswcuBytes('prefix'), [fswcuBytes(U('/old/'))]]])]], 2);
    r.refresh(0);
    expect(r.deleted).toEqual([U('/old/x')]);
    expect(r.crawl().map(([u]) => u)).toEqual([U('/')]);
  });
});
