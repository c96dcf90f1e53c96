import {
  FswcuDict,
  fswcuBytes,
  type FscmtQueueEntry,
} from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { addr, queueEntry, schedulerRig } from '../test/scheduler-rig';
import { describe, expect, it } from 'vitest';
import { LOG_LINES_KEPT } from './multinode-scheduler-machine';

const A = 'addr-a';
const B = 'addr-b';
const KA = 1000;
const START = ['http://127.0.0.1:8001/', 'http://127.0.0.1:8002/', 'http://127.0.0.1:8003/'];
const dspec = new FswcuDict([
  [fswcuBytes('delay'), 1],
  [fswcuBytes('start_uris'), START.map((u) => fswcuBytes(u))],
]);
const entry = (uri: string): FscmtQueueEntry => queueEntry(uri);

function rig(minNodes = 2) {
  const clock = new ManualClock(1_000_000);
  const refused: string[] = [];
  const r = schedulerRig({ clock, keepaliveMs: KA, minNodes, resolve: () => undefined, onRefused: (a, reason) => refused.push(`${a}: ${reason}`) });
  return { clock, refused, ...r };
}

/** Two nodes registered, the three start sites routed: 8001 and 8003 to n1 (A), 8002 to n2 (B). */
function crawling() {
  const r = rig();
  r.m.addCollection('web', dspec, START);
  r.init(A, 'n1');
  r.init(B, 'n2');
  r.m.dnsResolved('127.0.0.1', addr('127.0.0.1'), 3600);
  r.send(A, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
  r.send(B, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
  const got = r.take();
  expect(r.uris(A, got)).toEqual([START[0], START[2]]);
  expect(r.uris(B, got)).toEqual([START[1]]);
  return r;
}

/** One keep-alive round: B answers, A (when `aAnswers`) too. */
function round(r: ReturnType<typeof rig>, aAnswers: boolean): void {
  r.clock.advance(KA);
  r.send(B, { command: 'CMD_UM_KEEPALIVE_ACK' });
  if (aAnswers) r.send(A, { command: 'CMD_UM_KEEPALIVE_ACK' });
}

describe('multinode scheduler: dead and returning node schedulers', () => {
  it('a node that leaves 3 keep-alives in a row unanswered is dropped: its sites go to the live node, from their start URIs', () => {
    const r = crawling();
    r.m.start();
    round(r, true);
    round(r, true); // A vouched for its start entries: they left the scheduler's store
    r.send(B, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8001/x') }); // to A, never vouched for
    r.take();
    round(r, false);
    round(r, false);
    round(r, false);
    expect(r.m.nodeIds()).toEqual(['n1', 'n2']); // three rounds unanswered, not yet a fourth tick
    r.take();
    r.clock.advance(KA);
    expect(r.m.nodeIds()).toEqual(['n2']);
    const got = r.take();
    expect(got.filter((o) => o.to === A)).toEqual([]);
    // the unconfirmed link first, then the start URIs of the dead node's sites, each once
    expect(r.uris(B, got).sort()).toEqual([START[0], 'http://127.0.0.1:8001/x', START[2]].sort());
    expect(r.m.routeOf('web', '127.0.0.1:8001')).toBe('n2');
    expect(r.m.routeOf('web', '127.0.0.1:8003')).toBe('n2');
    // a new site goes to the live node only (routing goes on under --min-nodes 2)
    r.send(B, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8009/') });
    expect(r.uris(B)).toEqual(['http://127.0.0.1:8009/']);
    r.m.stop();
  });

  it('the entry a discovered site was routed with is requeued when its node dies (it has no start URI)', () => {
    const r = crawling();
    r.send(B, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8005/deep') });
    expect(r.m.routeOf('web', '127.0.0.1:8005')).toBe('n2');
    r.send(A, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8006/page') });
    r.take();
    r.m.dropNode(B, 'test');
    expect(r.uris(A).sort()).toEqual(['http://127.0.0.1:8002/', 'http://127.0.0.1:8005/deep']);
  });

  it('a node that answers keeps its sites; rounds missed while our own bus link is down drop nobody', () => {
    const r = crawling();
    r.m.start();
    r.m.busDisconnected();
    for (let i = 0; i < 6; i++) r.clock.advance(KA);
    expect(r.m.nodeIds()).toEqual(['n1', 'n2']);
    r.m.busReconnected();
    round(r, true);
    round(r, true);
    round(r, true);
    round(r, true);
    expect(r.m.nodeIds()).toEqual(['n1', 'n2']);
    expect(r.m.routeOf('web', '127.0.0.1:8001')).toBe('n1');
    r.m.stop();
  });

  it('a node registering again on its address starts its count of missed rounds from zero', () => {
    const r = crawling();
    r.m.start();
    round(r, false);
    round(r, false);
    r.init(A, 'n1'); // it noticed our silence and registered again
    round(r, false);
    round(r, false);
    round(r, false);
    expect(r.m.nodeIds()).toEqual(['n1', 'n2']);
    round(r, false);
    expect(r.m.nodeIds()).toEqual(['n2']);
    r.m.stop();
  });

  it('a node that left a keep-alive round unanswered gets no new site while another answers', () => {
    const r = crawling();
    r.m.start();
    round(r, false);
    round(r, false); // A: one whole round unanswered
    r.send(B, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8010/') });
    r.send(B, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8011/') });
    expect([r.m.routeOf('web', '127.0.0.1:8010'), r.m.routeOf('web', '127.0.0.1:8011')]).toEqual(['n2', 'n2']);
    round(r, true); // A answers again: it is the least loaded
    r.send(B, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8012/') });
    expect(r.m.routeOf('web', '127.0.0.1:8012')).toBe('n1');
    r.m.stop();
  });

  it('a dropped node is refused until it registers again; then it is taken back as a new node', () => {
    const r = crawling();
    r.m.dropNode(A, 'test');
    r.take();
    r.send(A, { command: 'CMD_UM_KEEPALIVE_ACK' });
    expect(r.refused).toEqual([`${A}: CMD_UM_KEEPALIVE_ACK before CMD_UM_INIT`]);
    r.init(A, 'n1');
    expect(r.m.nodeIds().sort()).toEqual(['n1', 'n2']);
    expect(r.take().map((o) => [o.to, o.msg.command])).toContainEqual([A, 'CMD_ADM_CONF_ADD']);
  });

  it('a connection the transport reports gone drops its node; the same id on a new connection is taken back', () => {
    const r = crawling();
    const C = 'tcp-2';
    r.init(C, 'n1');
    expect(r.refused).toEqual([`${C}: node id n1 is already registered`]);
    r.m.peerGone(A, 'peer closed the connection');
    expect(r.m.nodeIds()).toEqual(['n2']);
    r.take();
    r.init(C, 'n1');
    r.send(C, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    expect(r.m.nodeIds().sort()).toEqual(['n1', 'n2']);
    // its old sites went to n2 when it left; new sites are shared again
    expect(r.m.routeOf('web', '127.0.0.1:8001')).toBe('n2');
    r.send(B, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://127.0.0.1:8007/') });
    expect(r.m.routeOf('web', '127.0.0.1:8007')).toBe('n1');
    r.m.peerGone('nobody'); // an unknown address changes nothing
    expect(r.m.nodeIds().sort()).toEqual(['n1', 'n2']);
  });

  it('3.1.6 - CMD_UM_STAT carries deltas: the scheduler adds them up per node', () => {
    const r = crawling();
    const stat = (from: string, fetched: number, errors: number) =>
      r.send(from, { command: 'CMD_UM_STAT', dspecName: 'web', stats: new FswcuDict([[fswcuBytes('fetched'), fetched], [fswcuBytes('errors'), errors]]) });
    stat(A, 5, 1);
    stat(A, 3, 0);
    stat(B, 2, 2);
    expect(r.m.statsOf('web')?.get('n1')).toEqual(new Map([['fetched', 8], ['errors', 1]]));
    expect(r.m.totalStats('web')).toEqual({ fetched: 10, errors: 3 });
  });

  it('CMD_UM_LOG lines are kept in a bounded buffer, the newest last', () => {
    const r = crawling();
    for (let i = 0; i < LOG_LINES_KEPT + 5; i++) r.send(A, { command: 'CMD_UM_LOG', dspecName: 'web', data: { logFile: 'sc', message: `line ${i}` } });
    expect(r.m.logLines.size).toBe(LOG_LINES_KEPT);
    expect(r.m.logLines.dropped).toBe(5);
    expect(r.m.logLines.lines().at(-1)).toEqual({ node: 'n1', file: 'sc', message: `line ${LOG_LINES_KEPT + 4}` });
  });
});
