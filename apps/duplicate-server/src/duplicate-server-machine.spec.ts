import {
  buildFscmtDuplicateServerMessage,
  FswcuDict,
  fswcuBytes,
  readFscmtDuplicateServerMessage,
  type FscmtDuplicateServerMessage,
} from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { MemoryChecksumStore } from './checksum-store';
import { DuplicateServerMachine } from './duplicate-server-machine';

const NS1 = 'ns1';
const NS2 = 'ns2';
const REPLICA = 'replica';
const csum = (n: number): Uint8Array => new Uint8Array(16).fill(n);
const config = new FswcuDict([[fswcuBytes('start_uris'), [fswcuBytes('http://a/')]]]);

function rig(opts: { replica?: boolean; replicaTimeoutMs?: number } = {}) {
  const clock = new ManualClock();
  const store = new MemoryChecksumStore();
  const out: Array<{ to: string; msg: FscmtDuplicateServerMessage; priority: number; dict: FswcuDict }> = [];
  const m = new DuplicateServerMachine({
    id: 'dup1',
    replica: opts.replica ? REPLICA : undefined,
    store,
    clock,
    replicaTimeoutMs: opts.replicaTimeoutMs ?? 1000,
    keepaliveMs: 120_000,
    send: (to, dict, priority) => out.push({ to, msg: readFscmtDuplicateServerMessage(dict), priority, dict }),
  });
  const send = (from: string, msg: FscmtDuplicateServerMessage, priority: 0 | 1 = 0): void => m.handle(from, buildFscmtDuplicateServerMessage(msg), priority);
  const take = () => out.splice(0);
  return { clock, store, m, send, take };
}

const setConfig = (vclock = 1): FscmtDuplicateServerMessage => ({ command: 'PPDUP_SET_CONFIG', config, vclock, dspecName: 'web' });
const add = (uri: string, c: Uint8Array, id = NS1): FscmtDuplicateServerMessage => ({ command: 'PPDUP_ADD', dspecName: 'web', id, uri, csum: c });
const remove = (uri: string, c: Uint8Array, id = NS1): FscmtDuplicateServerMessage => ({ command: 'PPDUP_REMOVE', dspecName: 'web', id, uri, csum: c });

describe('duplicate server without a replica', () => {
  it('PPDUP_SET_CONFIG - answered at once with PPDUP_CONFIG_ACK carrying the same vector clock', () => {
    const r = rig();
    r.send(NS1, setConfig(7));
    expect(r.take()).toMatchObject([{ to: NS1, msg: { command: 'PPDUP_CONFIG_ACK', vclock: 7 }, priority: 1 }]);
    expect(r.m.collectionNames()).toEqual(['web']);
  });

  it('PPDUP_ADD - first add owns the checksum; a second URI with the same checksum learns the owner', () => {
    const r = rig();
    r.send(NS1, setConfig());
    r.take();
    r.send(NS1, add('http://a/1', csum(1)));
    r.send(NS2, add('http://b/1', csum(1), NS2));
    r.send(NS1, add('http://a/1', csum(1)));
    expect(r.take().map((o) => [o.to, o.msg])).toEqual([
      [NS1, { command: 'PPDUP_ADD_OK', dspecName: 'web', id: NS1, uri: 'http://a/1', ownUri: 'http://a/1' }],
      [NS2, { command: 'PPDUP_ADD_OK', dspecName: 'web', id: NS2, uri: 'http://b/1', ownUri: 'http://a/1' }],
      [NS1, { command: 'PPDUP_ADD_OK', dspecName: 'web', id: NS1, uri: 'http://a/1', ownUri: 'http://a/1' }],
    ]);
    expect(r.store.get('web', csum(1))).toEqual({ uri: 'http://a/1', node: NS1 });
  });

  it('PPDUP_ADD - unknown collection and a checksum that is not 16 bytes are answered with PPDUP_ERROR', () => {
    const r = rig();
    r.send(NS1, add('http://a/1', csum(1)));
    r.send(NS1, setConfig());
    r.send(NS1, add('http://a/2', new Uint8Array(15)));
    const msgs = r.take().map((o) => o.msg);
    expect(msgs[0]).toMatchObject({ command: 'PPDUP_ERROR', why: expect.stringMatching(/unknown crawl collection/) });
    expect(msgs[2]).toMatchObject({ command: 'PPDUP_ERROR', why: expect.stringMatching(/16 bytes/) });
  });

  it('PPDUP_REMOVE - the owner removes: PPDUP_PROMOTE_REQ to every node scheduler of the collection, then PPDUP_REMOVE_OK', () => {
    const r = rig();
    r.send(NS1, setConfig());
    r.send(NS2, setConfig());
    r.send(NS1, add('http://a/1', csum(1)));
    r.take();
    r.send(NS2, remove('http://b/1', csum(1), NS2)); // not the owner: nothing removed, no promote
    expect(r.take().map((o) => o.msg.command)).toEqual(['PPDUP_REMOVE_OK']);
    r.send(NS1, remove('http://a/1', csum(1)));
    const out = r.take();
    expect(out.map((o) => [o.to, o.msg.command])).toEqual([
      [NS1, 'PPDUP_PROMOTE_REQ'],
      [NS2, 'PPDUP_PROMOTE_REQ'],
      [NS1, 'PPDUP_REMOVE_OK'],
    ]);
    expect(out[0]!.msg).toEqual({ command: 'PPDUP_PROMOTE_REQ', dspecName: 'web', csum: csum(1) });
    expect(r.store.get('web', csum(1))).toBeUndefined();
  });

  it('PPDUP_CONF_REMOVE - deletes the checksums and discards messages until PPDUP_CONF_REMOVE2 removes the collection', () => {
    const r = rig();
    r.send(NS1, setConfig());
    r.send(NS1, add('http://a/1', csum(1)));
    r.take();
    r.send(NS1, { command: 'PPDUP_CONF_REMOVE', dspecName: 'web' });
    expect(r.store.count('web')).toBe(0);
    r.send(NS1, add('http://a/2', csum(2)));
    expect(r.take()).toEqual([]);
    r.send(NS1, { command: 'PPDUP_CONF_REMOVE2', dspecName: 'web' });
    expect(r.m.collectionNames()).toEqual([]);
  });

  it('PPDUP_KEEPALIVE is answered; the keep-alive timer pings every peer', () => {
    const r = rig();
    r.send(NS1, { command: 'PPDUP_KEEPALIVE' });
    expect(r.take().map((o) => o.msg.command)).toEqual(['PPDUP_KEEPALIVE_ACK']);
    r.m.start();
    r.clock.advance(120_000);
    expect(r.take().map((o) => [o.to, o.msg.command])).toEqual([[NS1, 'PPDUP_KEEPALIVE']]);
    r.m.stop();
  });
});

describe('duplicate server with a replica', () => {
  function ready() {
    const r = rig({ replica: true });
    r.send(NS1, setConfig(3));
    expect(r.take().map((o) => o.msg)).toEqual([{ command: 'PPDUP_CONFIG_ACK', vclock: 3 }]);
    expect(r.m.replicaState).toBe('transition');
    return r;
  }
  const replicaAnswers = (r: ReturnType<typeof rig>, forwarded: FswcuDict, command: number): void => {
    const echo = new FswcuDict(forwarded.entries.map(([k, v]) => [k, v]));
    echo.setText('cm', command);
    r.m.handle(REPLICA, echo, 0);
  };

  it('3.3.5.1 / 3.3.5.4 - the first add after PPDUP_SET_CONFIG sends the configuration first; the answer waits for the replica', () => {
    const r = ready();
    r.send(NS1, add('http://a/1', csum(1)));
    const fwd = r.take();
    expect(fwd.map((o) => [o.to, o.msg.command])).toEqual([
      [REPLICA, 'PPDUP_SET_CONFIG'],
      [REPLICA, 'PPDUP_ADD'],
    ]);
    expect(fwd[0]!.msg).toMatchObject({ dspecName: 'web', vclock: 1 });
    expect(fwd[1]!.msg).toMatchObject({ uri: 'http://a/1', ppdupId: 'dup1', dbName: 'memory:web' });
    expect(r.m.replicaState).toBe('awaiting-ack');
    expect(r.store.get('web', csum(1))).toBeUndefined();
    // a stale vector clock is ignored, the right one ends the transition
    r.m.handle(REPLICA, buildFscmtDuplicateServerMessage({ command: 'PPDUP_CONFIG_ACK', vclock: 99 }));
    expect(r.m.replicaState).toBe('awaiting-ack');
    r.m.handle(REPLICA, buildFscmtDuplicateServerMessage({ command: 'PPDUP_CONFIG_ACK', vclock: 1 }));
    expect(r.m.replicaState).toBe('normal');
    replicaAnswers(r, fwd[1]!.dict, 50);
    expect(r.take().map((o) => [o.to, o.msg])).toEqual([
      [NS1, { command: 'PPDUP_ADD_OK', dspecName: 'web', id: NS1, uri: 'http://a/1', ownUri: 'http://a/1' }],
    ]);
    expect(r.store.get('web', csum(1))).toEqual({ uri: 'http://a/1', node: NS1 });
  });

  it('3.3.5.4 step 5 - adds of the same checksum wait for the replica, then learn the owner', () => {
    const r = ready();
    r.send(NS1, add('http://a/1', csum(1)));
    r.send(NS2, add('http://b/1', csum(1), NS2));
    r.send(NS2, add('http://b/2', csum(2), NS2)); // another checksum is not held up
    const fwd = r.take();
    expect(fwd.map((o) => o.msg.command)).toEqual(['PPDUP_SET_CONFIG', 'PPDUP_ADD', 'PPDUP_ADD']);
    expect(fwd.map((o) => (o.msg as { uri?: string }).uri)).toEqual([undefined, 'http://a/1', 'http://b/2']);
    replicaAnswers(r, fwd[1]!.dict, 50);
    expect(r.take().map((o) => [o.to, o.msg])).toEqual([
      [NS1, { command: 'PPDUP_ADD_OK', dspecName: 'web', id: NS1, uri: 'http://a/1', ownUri: 'http://a/1' }],
      [NS2, { command: 'PPDUP_ADD_OK', dspecName: 'web', id: NS2, uri: 'http://b/1', ownUri: 'http://a/1' }],
    ]);
  });

  it('3.3.5.5 - a remove is forwarded; promote and PPDUP_REMOVE_OK only after the replica answered', () => {
    const r = ready();
    r.send(NS1, add('http://a/1', csum(1)));
    replicaAnswers(r, r.take()[1]!.dict, 50);
    r.take();
    r.send(NS1, remove('http://a/1', csum(1)));
    r.send(NS2, add('http://b/1', csum(1), NS2)); // queued behind the remove
    const fwd = r.take();
    expect(fwd.map((o) => [o.to, o.msg.command])).toEqual([[REPLICA, 'PPDUP_REMOVE']]);
    expect(fwd[0]!.msg).toMatchObject({ ppdupId: 'dup1', dbName: 'memory:web' });
    replicaAnswers(r, fwd[0]!.dict, 54);
    // after the remove: promote (to both node schedulers of the collection), remove ok, then the queued add (now
    // without an owner) goes to the replica
    expect(r.take().map((o) => [o.to, o.msg.command])).toEqual([
      [NS1, 'PPDUP_PROMOTE_REQ'],
      [NS2, 'PPDUP_PROMOTE_REQ'],
      [NS1, 'PPDUP_REMOVE_OK'],
      [REPLICA, 'PPDUP_ADD'],
    ]);
  });

  it('a replica that does not answer in time fails the add with PPDUP_ERROR naming the URI', () => {
    const r = ready();
    r.send(NS1, add('http://a/1', csum(1)));
    r.take();
    r.clock.advance(1000);
    const out = r.take();
    expect(out.map((o) => o.msg)).toEqual([{ command: 'PPDUP_ERROR', dspecName: 'web', why: expect.stringMatching(/replica did not acknowledge/) }]);
    expect(new TextDecoder().decode(out[0]!.dict.getText('ur') as Uint8Array)).toBe('http://a/1');
    expect(r.m.pendingCount).toBe(0);
  });

  it('acknowledgements from anyone but the replica are ignored', () => {
    const r = ready();
    r.send(NS1, add('http://a/1', csum(1)));
    const fwd = r.take();
    const echo = new FswcuDict(fwd[1]!.dict.entries.map(([k, v]) => [k, v]));
    echo.setText('cm', 50);
    r.m.handle(NS2, echo, 0);
    expect(r.take()).toEqual([]);
    expect(r.m.pendingCount).toBe(1);
  });

  it('PPDUP_CONF_REMOVE is forwarded with PKT_PPDUP_ID and fails the operations waiting for the replica', () => {
    const r = ready();
    r.send(NS1, add('http://a/1', csum(1)));
    r.take();
    r.send(NS1, { command: 'PPDUP_CONF_REMOVE', dspecName: 'web' });
    expect(r.take().map((o) => [o.to, o.msg])).toEqual([
      [NS1, { command: 'PPDUP_ERROR', dspecName: 'web', why: 'crawl collection removed' }],
      [REPLICA, { command: 'PPDUP_CONF_REMOVE', dspecName: 'web', ppdupId: 'dup1' }],
    ]);
  });
});

describe('as a replica (3.4)', () => {
  it('overwrites forwarded adds, deletes forwarded removes, and echoes the same key/value pairs', () => {
    const r = rig();
    const fwd = buildFscmtDuplicateServerMessage({ command: 'PPDUP_ADD', dspecName: 'web', id: NS1, uri: 'http://a/1', csum: csum(1), ppdupId: 'dupX', dbName: '/x' });
    r.m.handle('primary', fwd, 0);
    const [ok] = r.take();
    expect(ok!.to).toBe('primary');
    expect(ok!.dict.entries.length).toBe(fwd.entries.length);
    expect(ok!.msg).toMatchObject({ command: 'PPDUP_ADD_OK', uri: 'http://a/1', ppdupId: 'dupX', dbName: '/x' });
    expect(r.store.get('web', csum(1))).toEqual({ uri: 'http://a/1', node: NS1 });
    r.m.handle('primary', buildFscmtDuplicateServerMessage({ command: 'PPDUP_ADD', dspecName: 'web', id: NS2, uri: 'http://b/1', csum: csum(1), ppdupId: 'dupX' }), 0);
    expect(r.store.get('web', csum(1))).toEqual({ uri: 'http://b/1', node: NS2 });
    r.take();
    r.m.handle('primary', buildFscmtDuplicateServerMessage({ command: 'PPDUP_REMOVE', dspecName: 'web', id: NS2, uri: 'http://b/1', csum: csum(1), ppdupId: 'dupX' }), 0);
    expect(r.take().map((o) => o.msg.command)).toEqual(['PPDUP_REMOVE_OK']);
    expect(r.store.get('web', csum(1))).toBeUndefined();
    r.m.handle('primary', buildFscmtDuplicateServerMessage({ command: 'PPDUP_CONF_REMOVE', dspecName: 'web', ppdupId: 'dupX' }), 0);
    expect(r.m.collectionNames()).toEqual([]);
  });
});
