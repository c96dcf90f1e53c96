import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FswcuDict,
  fswcuBytes,
  type FscmtQueueEntry,
} from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { addr, queueEntry, schedulerRig } from '../test/scheduler-rig';
import { afterEach, describe, expect, it } from 'vitest';
import { reconcile } from './collections';
import { DEFAULT_KEEPALIVE_MS } from './multinode-scheduler-machine';
import { SqliteSchedulerStore } from './sqlite-scheduler-store';

const A = 'addr-a';
const B = 'addr-b';
const dspec = new FswcuDict([[fswcuBytes('delay'), 1]]);
const entry = (uri: string): FscmtQueueEntry => queueEntry(uri, { referrer: 'http://127.0.0.1:8001/from', extra: new FswcuDict([[fswcuBytes('depth'), 3]]) });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** One run of the scheduler on a data directory; a new run on the same directory is a restart (the old store is simply dropped, as by kill -9). */
function run(dir: string, clock: ManualClock, opts: { retireHanded?: boolean } = {}) {
  const store = new SqliteSchedulerStore(dir);
  const handed: number[] = [];
  const r = schedulerRig({ clock, store, onHandedOut: opts.retireHanded === false ? (key) => handed.push(key) : undefined }, (fn) => store.transaction(fn));
  const { m, out, lookups, send, init } = r;
  m.restore(store.load());
  m.start();
  const uris = () => out.filter((o) => o.msg.command === 'CMD_UM_URI').map((o) => [o.to, (o.msg as { entry: FscmtQueueEntry }).entry.uri.uri]);
  /** Two keep-alive rounds answered by the node at `from`: it vouches for what was handed to it before them. */
  const confirm = (from: string): void => {
    for (let i = 0; i < 2; i++) {
      clock.advance(DEFAULT_KEEPALIVE_MS);
      send(from, { command: 'CMD_UM_KEEPALIVE_ACK' });
    }
  };
  return { m, store, out, lookups, handed, send, init, uris, confirm, take: () => out.splice(0).filter((o) => o.msg.command !== 'CMD_UM_KEEPALIVE') };
}

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'esp-mns-store-'));
  dirs.push(d);
  return d;
}

describe('multinode scheduler state across a restart (SQLite store)', () => {
  it('queued entries, routes, IP permissions, DNS answers and epochs come back; unchanged collections do not queue their start URIs again', () => {
    const dir = dataDir();
    const clock = new ManualClock(1_000_000);
    const config = [{ name: 'web', dspec, startUris: ['http://127.0.0.1:8001/'] }];
    const r1 = run(dir, clock);
    reconcile(r1.m, config);
    r1.init(A, 'n1');
    r1.send(A, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    r1.m.dnsResolved('127.0.0.1', addr('127.0.0.1'), 3600);
    expect(r1.uris()).toEqual([[A, 'http://127.0.0.1:8001/']]);
    r1.confirm(A); // handed out and vouched for by the node's keep-alive answers: gone from the store
    r1.send(A, { command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: '127.0.0.1', site: '127.0.0.1:8001', storeId: 0 } }, 1);
    // entries for a site whose name has not resolved yet wait in the queue (URG to the front)
    r1.send(A, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://site.test/1') });
    r1.send(A, { command: 'CMD_UM_URI', dspecName: 'web', entry: entry('http://site.test/2') });
    r1.send(A, { command: 'CMD_UM_URI_URG', dspecName: 'web', entry: entry('http://site.test/0') });
    expect(r1.lookups).toEqual(['127.0.0.1', 'site.test']);

    // restart (the first run is never stopped)
    const r2 = run(dir, clock);
    expect(reconcile(r2.m, config)).toEqual({ added: [], updated: [], removed: [] });
    expect(r2.m.routeOf('web', '127.0.0.1:8001')).toBe('n1');
    expect(r2.m.queued('web')).toBe(3);
    r2.init(A, 'n1');
    const again = r2.take();
    expect(again.map((o) => o.msg.command)).toEqual(['CMD_ADM_CONF_ADD', 'CMD_UM_ADD_ROUTE', 'CMD_UM_ASK_ROUTE']);
    expect(again[0]!.msg).toMatchObject({ epoch: 1 });
    expect(again[1]!.msg).toMatchObject({ route: { nodeId: 'n1', site: '127.0.0.1:8001', addrinfo: addr('127.0.0.1') } }); // the DNS answer came back too
    r2.send(A, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    r2.m.dnsResolved('site.test', addr('10.0.0.1'), 60);
    const handed = r2.out.filter((o) => o.msg.command === 'CMD_UM_URI').map((o) => o.msg as { entry: FscmtQueueEntry });
    expect(handed.map((h) => h.entry.uri.uri)).toEqual(['http://site.test/0', 'http://site.test/1', 'http://site.test/2']);
    expect(handed[1]!.entry).toEqual(entry('http://site.test/1')); // the entry exactly as received
    r2.confirm(A);
    r2.take();
    // the IP permission held by n1 still holds: another node is refused it
    r2.init(B, 'n2');
    r2.send(B, { command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: '127.0.0.1', site: '127.0.0.1:8002', storeId: 0 } }, 1);
    expect(r2.take().find((o) => o.msg.command === 'CMD_UM_START_CRAWL_IP')!.msg).toMatchObject({ data: { allowed: false } });

    // a configuration changed while the scheduler was down: epoch + 1 at the next start
    const r3 = run(dir, clock);
    expect(r3.m.queued('web')).toBe(0);
    const changed = new FswcuDict([[fswcuBytes('delay'), 2]]);
    expect(reconcile(r3.m, [{ name: 'web', dspec: changed, startUris: [] }])).toEqual({ added: [], updated: ['web'], removed: [] });
    r3.init(A, 'n1');
    expect(r3.take()[0]!.msg).toMatchObject({ command: 'CMD_ADM_CONF_ADD', epoch: 2 });
  });

  it('an entry handed out but not retired (its message may not have left) is sent again after a restart', () => {
    const dir = dataDir();
    const clock = new ManualClock(1_000_000);
    const r1 = run(dir, clock, { retireHanded: false });
    reconcile(r1.m, [{ name: 'web', dspec, startUris: ['http://127.0.0.1:8001/', 'http://127.0.0.1:8002/'] }]);
    r1.init(A, 'n1');
    r1.send(A, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    r1.m.dnsResolved('127.0.0.1', addr('127.0.0.1'), 3600);
    expect(r1.handed.length).toBe(0); // not before the node vouched for them
    r1.confirm(A);
    expect(r1.handed.length).toBe(2);
    r1.store.transaction(() => r1.store.deleteEntry(r1.handed[0]!)); // the first one was flushed and retired

    const r2 = run(dir, clock);
    r2.init(A, 'n1');
    r2.send(A, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    expect(r2.uris()).toEqual([[A, 'http://127.0.0.1:8002/']]);
  });

  it('entries handed out that the bus could not confirm are requeued in front, under their keys, and sent again', () => {
    const dir = dataDir();
    const clock = new ManualClock(1_000_000);
    const r1 = run(dir, clock, { retireHanded: false });
    reconcile(r1.m, [{ name: 'web', dspec, startUris: ['http://127.0.0.1:8001/a', 'http://127.0.0.1:8001/b'] }]);
    r1.init(A, 'n1');
    r1.send(A, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    r1.m.dnsResolved('127.0.0.1', addr('127.0.0.1'), 3600);
    r1.confirm(A);
    r1.take();
    const items = r1.store.load().entries;
    expect(items.map((e) => e.key)).toEqual(r1.handed);
    r1.m.requeue(items);
    expect(r1.uris()).toEqual([
      [A, 'http://127.0.0.1:8001/a'],
      [A, 'http://127.0.0.1:8001/b'],
    ]);
    r1.confirm(A);
    expect(r1.handed).toEqual([...items.map((e) => e.key), ...items.map((e) => e.key)]);
  });

  it('a removed collection leaves the store with its entries and routes once a node answers CMD_UM_DELETE_OK', () => {
    const dir = dataDir();
    const clock = new ManualClock(1_000_000);
    const r1 = run(dir, clock);
    reconcile(r1.m, [{ name: 'web', dspec, startUris: ['http://127.0.0.1:8001/'] }]);
    r1.init(A, 'n1');
    r1.send(A, { command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', routes: [{ routingAttribute: 'x.test', nodeId: 'n1' }] });
    reconcile(r1.m, []);
    r1.send(A, { command: 'CMD_UM_DELETE_OK', dspecName: 'web' });
    expect(r1.store.load()).toMatchObject({ collections: [], entries: [], routes: [] });
  });
});

describe('entries handed out stay until the node vouches for them (a nats-server restart drops what it held)', () => {
  const setup = () => {
    const dir = dataDir();
    const clock = new ManualClock(1_000_000);
    const r = run(dir, clock);
    reconcile(r.m, [{ name: 'web', dspec, startUris: ['http://127.0.0.1:8001/a', 'http://127.0.0.1:8001/b'] }]);
    r.init(A, 'n1');
    r.send(A, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    r.m.dnsResolved('127.0.0.1', addr('127.0.0.1'), 3600);
    expect(r.uris()).toEqual([
      [A, 'http://127.0.0.1:8001/a'],
      [A, 'http://127.0.0.1:8001/b'],
    ]);
    r.take();
    return { r, clock, dir };
  };

  it('a keep-alive round without an answer: the next tick sends them again; once vouched for they leave the store', () => {
    const { r, clock, dir } = setup();
    clock.advance(DEFAULT_KEEPALIVE_MS); // k1, not answered (the outage)
    expect(r.uris()).toEqual([]);
    clock.advance(DEFAULT_KEEPALIVE_MS); // k2: k1 was missed, so the entries go again
    expect(r.uris()).toEqual([
      [A, 'http://127.0.0.1:8001/a'],
      [A, 'http://127.0.0.1:8001/b'],
    ]);
    expect(r.m.unconfirmedHandedOut).toBe(2);
    r.take();
    r.send(A, { command: 'CMD_UM_KEEPALIVE_ACK' }); // answers k2, sent in the same turn as the entries: vouches for none
    expect(r.m.unconfirmedHandedOut).toBe(2);
    clock.advance(DEFAULT_KEEPALIVE_MS); // k3
    r.send(A, { command: 'CMD_UM_KEEPALIVE_ACK' });
    expect(r.m.unconfirmedHandedOut).toBe(0);
    expect(r.uris()).toEqual([]);
    expect(new SqliteSchedulerStore(dir).load().entries).toEqual([]);
  });

  it('our own NATS reconnect: the next tick sends them again even though every keep-alive was answered', () => {
    const { r, clock } = setup();
    clock.advance(DEFAULT_KEEPALIVE_MS);
    r.send(A, { command: 'CMD_UM_KEEPALIVE_ACK' }); // answered in time, yet the old server may have dropped the entries
    r.m.busReconnected();
    clock.advance(DEFAULT_KEEPALIVE_MS);
    expect(r.uris()).toEqual([
      [A, 'http://127.0.0.1:8001/a'],
      [A, 'http://127.0.0.1:8001/b'],
    ]);
  });

  it('a node that leaves: what it never vouched for is routed anew to another node', () => {
    const { r } = setup();
    r.init(B, 'n2');
    r.send(B, { command: 'CMD_UM_LAST_ROUTE', dspecName: 'web' });
    r.take();
    r.m.dropNode(A);
    expect(r.uris()).toEqual([
      [B, 'http://127.0.0.1:8001/a'],
      [B, 'http://127.0.0.1:8001/b'],
    ]);
  });
});

describe('the counters the nodes reported survive a restart (what crawl status shows)', () => {
  it('sums per node come back; new deltas add to them; a removed collection takes its counters along', () => {
    const dir = dataDir();
    const clock = new ManualClock(1_000_000);
    const config = [{ name: 'web', dspec, startUris: ['http://127.0.0.1:8001/'] }];
    const stat = (fetched: number, fed: number) => ({ command: 'CMD_UM_STAT' as const, dspecName: 'web', stats: new FswcuDict([[fswcuBytes('fetched'), fetched], [fswcuBytes('fed'), fed]]) });
    const r1 = run(dir, clock);
    reconcile(r1.m, config);
    r1.init(A, 'n1');
    r1.init(B, 'n2');
    r1.send(A, stat(3, 2));
    r1.send(A, stat(4, 4));
    r1.send(B, stat(1, 1));
    expect(r1.m.totalStats('web')).toEqual({ fetched: 8, fed: 7 });

    const r2 = run(dir, clock);
    reconcile(r2.m, config);
    expect(r2.m.totalStats('web')).toEqual({ fetched: 8, fed: 7 });
    r2.init(A, 'n1');
    r2.send(A, stat(2, 1));
    expect(r2.m.totalStats('web')).toEqual({ fetched: 10, fed: 8 });
    expect(new SqliteSchedulerStore(dir).load().stats).toEqual(
      expect.arrayContaining([
        { collection: 'web', node: 'n1', counters: { fetched: 9, fed: 7 } },
        { collection: 'web', node: 'n2', counters: { fetched: 1, fed: 1 } },
      ]),
    );
    r2.store.deleteCollection('web');
    expect(new SqliteSchedulerStore(dir).load().stats).toEqual([]);
  });
});
