import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFscmtNodeSchedulerMessage, FswcuDict, fswcuBytes, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { afterEach, describe, expect, it } from 'vitest';
import { entryFor, NodeSchedulerMachine } from '../node-scheduler-machine';
import { parseRobots } from '../robots';
import { robotsRulesOf, storedRobotsRules } from './stored-robots';
import { LAZY_COMMIT_MS, SqliteNodeStore } from './sqlite-node-store';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'esp-ns-store-'));
  dirs.push(d);
  return d;
};
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const durable = (s: SqliteNodeStore): Promise<void> => new Promise((r) => s.whenDurable(r));
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SqliteNodeStore', () => {
  it('round trip: what one process wrote, another opening the file after a kill (no close) reads back', async () => {
    const dir = tmp();
    const a = new SqliteNodeStore(dir, 'n1');
    const dspec = new FswcuDict([[fswcuBytes('delay'), 2]]);
    a.putCollection({ name: 'web', dspec, epoch: 3 });
    a.putRoute({ collection: 'web', site: 'h:1', node: 'n1' });
    a.queued('web', 'h:1', entryFor('http://h:1/b', 'http://h:1/', 1, []), false);
    a.queued('web', 'h:1', entryFor('http://h:1/a', 'http://h:1/', 1, []), true);
    a.queued('web', 'h:1', entryFor('http://h:1/c', '', 2, []), false);
    a.done('web', 'h:1', 'http://h:1/', true, 0);
    a.putValidators({ collection: 'web', uri: 'http://h:1/', etag: '"v1"', lastModified: undefined });
    a.done('web', 'h:1', 'http://h:1/', true, 0);
    a.done('web', 'h:1', 'http://h:1/c', false, -1);
    a.taken('web', 'http://h:1/b');
    a.forwarded('web', 'h:2', entryFor('http://h:2/x', 'http://h:1/', 1, []), 1);
    a.forwarded('web', 'h:2', entryFor('http://h:2/y', 'http://h:1/', 1, []), 1);
    a.forwardsConfirmed('web', ['http://h:2/y']);
    const csum = new Uint8Array(16).fill(7);
    a.own({ collection: 'web', uri: 'http://h:1/', csum });
    a.duplicate({ collection: 'web', uri: 'http://h:1/copy', csum });
    const rules = parseRobots('User-agent: *\nDisallow: /private/\nAllow: /private/ok$\nCrawl-delay: 2\nSitemap: http://h:1/s.xml\n', 'esp-crawler');
    a.putRobots({ origin: 'http://h:1', rules: storedRobotsRules(rules), expiresAt: 123 });
    a.sitemapsRead('web', 'http://h:1');
    // an entry from the multinode scheduler (not made here) is kept as its bytes
    const fromMns = { ...entryFor('http://h:1/z', 'http://h:0/', 4, [{ uri: 'http://h:1/y', kind: 2 }], 1), frameFlags: 1 };
    a.queued('web', 'h:1', fromMns, false);
    await durable(a);

    const b = new SqliteNodeStore(dir, 'n1').load();
    expect(b.collections).toHaveLength(1);
    expect(b.collections[0]).toMatchObject({ name: 'web', epoch: 3 });
    expect(b.collections[0]!.dspec.getText('delay')).toBe(2);
    expect(b.routes).toEqual([{ collection: 'web', site: 'h:1', node: 'n1' }]);
    // the queue in its order (front first), each entry as it was queued; /c is done and out of it
    expect(b.queued.map((q) => q.entry.uri.uri)).toEqual(['http://h:1/a', 'http://h:1/b', 'http://h:1/z']);
    expect(b.queued[2]!.entry).toEqual(fromMns);
    expect(b.queued[0]!.entry).toEqual(entryFor('http://h:1/a', 'http://h:1/', 1, []));
    expect(b.queued[1]!.entry.referrer.uri).toBe('http://h:1/');
    expect(b.queued.map((q) => q.inFlight)).toEqual([false, true, false]);
    expect(b.done.sort((x, y) => x.uri.localeCompare(y.uri))).toEqual([
      { collection: 'web', site: 'h:1', uri: 'http://h:1/', fed: true, depth: 0 },
      { collection: 'web', site: 'h:1', uri: 'http://h:1/c', fed: false, depth: -1 },
    ]);
    // the validators of a page outlive its record's changes (queued, done)
    expect(b.validators).toEqual([{ collection: 'web', uri: 'http://h:1/', etag: '"v1"', lastModified: undefined }]);
    const fwd = b.forwarded.sort((x, y) => x.uri.localeCompare(y.uri));
    expect(fwd.map((f) => [f.uri, f.depth, f.entry?.uri.uri])).toEqual([
      ['http://h:2/x', 1, 'http://h:2/x'],
      ['http://h:2/y', 1, undefined],
    ]);
    expect(b.owned).toEqual([{ collection: 'web', uri: 'http://h:1/', csum }]);
    expect(b.duplicates).toEqual([{ collection: 'web', uri: 'http://h:1/copy', csum }]);
    const back = robotsRulesOf(b.robots[0]!.rules);
    expect(back).toEqual(rules);
    expect(b.robots[0]!.expiresAt).toBe(123);
    expect(b.sitemaps).toEqual([{ collection: 'web', origin: 'http://h:1' }]);
    a.close();
  });

  it('whenDurable holds what must not leave until the turn commits; uncommitted writes are not on disk', async () => {
    const dir = tmp();
    const a = new SqliteNodeStore(dir, 'n1');
    a.queued('web', 'h:1', entryFor('http://h:1/', '', 0, []), false);
    let sent = false;
    a.whenDurable(() => (sent = true));
    expect(sent).toBe(false);
    expect(new SqliteNodeStore(dir, 'n1').load().queued).toEqual([]);
    await turn();
    expect(sent).toBe(true);
    expect(new SqliteNodeStore(dir, 'n1').load().queued).toHaveLength(1);
    // nothing pending: at once
    let again = false;
    a.whenDurable(() => (again = true));
    expect(again).toBe(true);
    // what nobody waits for is committed within LAZY_COMMIT_MS
    a.done('web', 'h:1', 'http://h:1/', false, 0);
    await turn();
    expect(new SqliteNodeStore(dir, 'n1').load().done).toEqual([]);
    await new Promise((r) => setTimeout(r, LAZY_COMMIT_MS + 10));
    expect(new SqliteNodeStore(dir, 'n1').load().done).toHaveLength(1);
    a.close();
    // a fetch finishing while the node stops writes nothing (it is in flight for the next start)
    expect(() => a.done('web', 'h:1', 'http://h:1/x', false, 0)).not.toThrow();
  });

  it('a removed collection leaves nothing behind', async () => {
    const dir = tmp();
    const a = new SqliteNodeStore(dir, 'n1');
    a.putCollection({ name: 'web', dspec: new FswcuDict([]), epoch: 1 });
    a.queued('web', 'h:1', entryFor('http://h:1/', '', 0, []), false);
    a.own({ collection: 'web', uri: 'http://h:1/', csum: new Uint8Array(16) });
    a.deleteCollection('web');
    a.close();
    expect(new SqliteNodeStore(dir, 'n1').load()).toMatchObject({ collections: [], queued: [], owned: [] });
  });

  it('a node scheduler machine restarted on the same file resumes its queue', async () => {
    const dir = tmp();
    const start = () => {
      const store = new SqliteNodeStore(dir, 'n1');
      const m = new NodeSchedulerMachine({ nodeId: 'n1', mns: 'mns', clock: new ManualClock(0), ipKey: 'ip-port', store, send: () => undefined });
      m.connect({});
      const restored = m.restore(store.load());
      m.start();
      const recv = (msg: FscmtNodeSchedulerMessage) => m.handle('mns', buildFscmtNodeSchedulerMessage(msg), 0);
      recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec: new FswcuDict([[fswcuBytes('delay'), 0]]), epoch: 1 });
      recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId: 'n1', routingAttribute: '127.0.0.1:8001', site: '127.0.0.1:8001', addrinfo: null, ttl: 0 } });
      recv({ command: 'CMD_UM_ASK_ROUTE', dspecName: 'web' });
      return { m, store, recv, restored, grant: () => recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: '127.0.0.1:8001', site: '127.0.0.1:8001', storeId: 0, allowed: true } }) };
    };
    const first = start();
    first.recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor('http://127.0.0.1:8001/', '', 0, []) });
    first.grant();
    const home = first.m.nextFetch()!;
    first.m.fetched(home, { kind: 'page', links: ['http://127.0.0.1:8001/a', 'http://127.0.0.1:8001/b'], fate: 'fed' });
    await durable(first.store);
    const second = start();
    expect(second.restored).toMatchObject({ collections: 1, queued: 2, done: 1 });
    second.grant();
    const got: string[] = [];
    for (let f = second.m.nextFetch(); f; f = second.m.nextFetch()) {
      got.push(f.entry.uri.uri);
      second.m.fetched(f, { kind: 'page', links: ['http://127.0.0.1:8001/'], fate: 'fed' });
    }
    expect(got).toEqual(['http://127.0.0.1:8001/a', 'http://127.0.0.1:8001/b']);
  });
});
