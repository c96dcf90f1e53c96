import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { Election, type ElectionAction, type ElectionRole } from './election';

function setup(opts: { fenceMs?: number } = {}) {
  const clock = new ManualClock();
  const actions: ElectionAction[] = [];
  const roles: ElectionRole[] = [];
  const e = new Election({ clock, pingIntervalMs: 100, checkMasterMs: 100, perform: (a) => actions.push(a), onRole: (r) => roles.push(r), ...opts });
  const last = () => actions[actions.length - 1];
  return { clock, actions, roles, e, last };
}

const other = (revision: number) => ({ revision, own: false });

describe('election (MS-FSCDFT 3)', () => {
  it('nothing bound: resolve, then claim (bind session_factory then master_dispatcher), then master', () => {
    const { e, actions, roles } = setup();
    e.start();
    expect(actions).toEqual([{ kind: 'resolve' }]);
    e.handle({ kind: 'resolved', binding: null });
    expect(actions[1]).toEqual({ kind: 'claim' });
    e.handle({ kind: 'claimed', revision: 1 });
    expect(e.role).toBe('master');
    expect(roles).toEqual(['electing', 'master']);
    expect(e.admits()).toBe(true);
  });

  it('a live master bound: ping answers, register, backup; pings every interval', () => {
    const { e, actions, clock, last } = setup();
    e.start();
    e.handle({ kind: 'resolved', binding: other(5) });
    expect(last()).toEqual({ kind: 'ping', binding: other(5) });
    e.handle({ kind: 'ping-ok' });
    expect(last()).toEqual({ kind: 'register', binding: other(5) });
    e.handle({ kind: 'registered' });
    expect(e.role).toBe('backup');
    expect(e.admits()).toBe(false);
    const n = actions.length;
    clock.advance(99);
    expect(actions.length).toBe(n);
    clock.advance(1);
    expect(last()).toEqual({ kind: 'ping', binding: other(5) });
    e.handle({ kind: 'ping-ok' });
    clock.advance(100);
    expect(actions.length).toBe(n + 2);
  });

  it('a bound master that does not answer at start: conditional unbind of exactly that binding, then claim', () => {
    const { e, last } = setup();
    e.start();
    e.handle({ kind: 'resolved', binding: other(7) });
    e.handle({ kind: 'ping-failed', reason: 'object_not_exist' });
    expect(last()).toEqual({ kind: 'unbind', binding: other(7) });
    e.handle({ kind: 'unbound', removed: true });
    expect(last()).toEqual({ kind: 'claim' });
  });

  it('our own binding from before a restart: claim at once (bind of the same object is idempotent)', () => {
    const { e, last } = setup();
    e.start();
    e.handle({ kind: 'resolved', binding: { revision: 3, own: true } });
    expect(last()).toEqual({ kind: 'claim' });
  });

  function backup() {
    const s = setup();
    s.e.start();
    s.e.handle({ kind: 'resolved', binding: other(5) });
    s.e.handle({ kind: 'ping-ok' });
    s.e.handle({ kind: 'registered' });
    return s;
  }

  it('three failed pings in a row: resolve again; the same dead master is pinged a fourth time, unbound, and we claim', () => {
    const { e, clock, last, roles } = backup();
    for (let i = 0; i < 2; i++) {
      clock.advance(100);
      expect(last()).toEqual({ kind: 'ping', binding: other(5) });
      e.handle({ kind: 'ping-failed', reason: 'x' });
      expect(e.role).toBe('backup');
    }
    clock.advance(100);
    e.handle({ kind: 'ping-failed', reason: 'x' });
    expect(e.pingFailures).toBe(3);
    expect(last()).toEqual({ kind: 'resolve' });
    e.handle({ kind: 'resolved', binding: other(5) });
    expect(last()).toEqual({ kind: 'ping', binding: other(5) });
    e.handle({ kind: 'ping-failed', reason: 'x' });
    expect(last()).toEqual({ kind: 'unbind', binding: other(5) });
    e.handle({ kind: 'unbound', removed: true });
    e.handle({ kind: 'claimed', revision: 6 });
    expect(e.role).toBe('master');
    expect(e.takeovers).toBe(1);
    expect(roles).toEqual(['electing', 'backup', 'electing', 'master']);
  });

  it('pings failed in an outage of our own bus do not count: however many, the backup stays backup and keeps watching', () => {
    const { e, clock, last, roles } = backup();
    for (let i = 0; i < 10; i++) {
      clock.advance(100);
      expect(last()).toEqual({ kind: 'ping', binding: other(5) });
      e.handle({ kind: 'ping-failed', reason: 'connection to NATS lost', outage: true });
    }
    expect(e.role).toBe('backup');
    expect(e.pingFailures).toBe(0);
    clock.advance(100);
    expect(last()).toEqual({ kind: 'ping', binding: other(5) });
    e.handle({ kind: 'ping-ok' });
    expect(roles).toEqual(['electing', 'backup']);
  });

  it('a failure between successes does not count: the failures must be in a row', () => {
    const { e, clock, last } = backup();
    for (const ok of [false, false, true, false, false]) {
      clock.advance(100);
      e.handle(ok ? { kind: 'ping-ok' } : { kind: 'ping-failed', reason: 'x' });
    }
    expect(e.role).toBe('backup');
    expect(e.pingFailures).toBe(2);
    expect(last()).toEqual({ kind: 'ping', binding: other(5) });
  });

  it('after three failures another backup has won: ping the new binding, register with it, stay backup', () => {
    const { e, clock, last } = backup();
    for (let i = 0; i < 3; i++) {
      clock.advance(100);
      e.handle({ kind: 'ping-failed', reason: 'x' });
    }
    e.handle({ kind: 'resolved', binding: other(9) });
    expect(last()).toEqual({ kind: 'ping', binding: other(9) });
    e.handle({ kind: 'ping-ok' });
    expect(last()).toEqual({ kind: 'register', binding: other(9) });
    e.handle({ kind: 'registered' });
    expect(e.role).toBe('backup');
    expect(e.watched).toEqual(other(9));
  });

  it('losing the bind race (already_bound): resolve again and become backup of the winner', () => {
    const { e, last } = setup();
    e.start();
    e.handle({ kind: 'resolved', binding: null });
    e.handle({ kind: 'claim-lost' });
    expect(last()).toEqual({ kind: 'resolve' });
    e.handle({ kind: 'resolved', binding: other(2) });
    e.handle({ kind: 'ping-ok' });
    e.handle({ kind: 'registered' });
    expect(e.role).toBe('backup');
  });

  it('check master status: still ours keeps master; replaced steps down, pings the new master and registers as backup', () => {
    const { e, clock, last, roles } = setup();
    e.start();
    e.handle({ kind: 'resolved', binding: null });
    e.handle({ kind: 'claimed', revision: 1 });
    clock.advance(100);
    expect(last()).toEqual({ kind: 'check-own' });
    e.handle({ kind: 'resolved', binding: { revision: 1, own: true } });
    expect(e.role).toBe('master');
    clock.advance(100);
    e.handle({ kind: 'resolved', binding: other(4) });
    expect(e.role).toBe('electing');
    expect(e.admits()).toBe(false);
    expect(last()).toEqual({ kind: 'ping', binding: other(4) });
    e.handle({ kind: 'ping-ok' });
    e.handle({ kind: 'registered' });
    expect(roles).toEqual(['electing', 'master', 'electing', 'backup']);
  });

  it('a master that was stopped longer than the fence does not act before it has checked again', () => {
    const { e, clock, actions, last } = setup({ fenceMs: 200 });
    e.start();
    e.handle({ kind: 'resolved', binding: null });
    e.handle({ kind: 'claimed', revision: 1 });
    expect(e.admits()).toBe(true);
    // the check is issued but its answer never comes (the process is stopped): time passes
    clock.advance(100);
    expect(last()).toEqual({ kind: 'check-own' });
    clock.advance(500);
    expect(e.admits()).toBe(false);
    const n = actions.length;
    e.handle({ kind: 'resolved', binding: other(8) });
    expect(e.role).toBe('electing');
    expect(actions.length).toBe(n + 1);
  });

  it('a master whose check fails (name server down) keeps the role but is fenced after fenceMs; a later check restores it', () => {
    const { e, clock } = setup({ fenceMs: 250 });
    e.start();
    e.handle({ kind: 'resolved', binding: null });
    e.handle({ kind: 'claimed', revision: 1 });
    clock.advance(100);
    e.handle({ kind: 'resolve-failed', reason: 'timeout' });
    clock.advance(100);
    e.handle({ kind: 'resolve-failed', reason: 'timeout' });
    clock.advance(100);
    expect(e.role).toBe('master');
    expect(e.admits()).toBe(false);
    e.handle({ kind: 'resolved', binding: { revision: 1, own: true } });
    expect(e.admits()).toBe(true);
  });

  it('results that do not answer the action in flight are ignored; name server failures retry after retryMs', () => {
    const { e, clock, actions, last } = setup();
    e.start();
    e.handle({ kind: 'ping-ok' });
    e.handle({ kind: 'registered' });
    expect(e.role).toBe('electing');
    e.handle({ kind: 'resolve-failed', reason: 'no name server' });
    const n = actions.length;
    clock.advance(99);
    expect(actions.length).toBe(n);
    clock.advance(1);
    expect(last()).toEqual({ kind: 'resolve' });
  });

  it('a takeover after pings that all found the master gone acts at once; after timeouts it waits fenceMs first', () => {
    for (const gone of [true, false]) {
      const { e, clock } = backup();
      for (let i = 0; i < 3; i++) {
        clock.advance(100);
        e.handle({ kind: 'ping-failed', reason: 'x', gone });
      }
      e.handle({ kind: 'resolved', binding: other(5) });
      e.handle({ kind: 'ping-failed', reason: 'x', gone });
      e.handle({ kind: 'unbound', removed: true });
      e.handle({ kind: 'claimed', revision: 6 });
      expect(e.role).toBe('master');
      // default fence: 2 x checkMasterMs = 200 ms, the most a stale master can act after our unbind
      expect(e.admits()).toBe(gone);
      clock.advance(199);
      e.handle({ kind: 'resolved', binding: { revision: 6, own: true } });
      expect(e.admits()).toBe(gone);
      clock.advance(1);
      expect(e.admits()).toBe(true);
    }
  });

  it('the ping that decides counts: timeouts (a ping in flight at the kill), then nobody subscribed → acts at once', () => {
    const { e, clock } = backup();
    for (let i = 0; i < 3; i++) {
      clock.advance(100);
      e.handle({ kind: 'ping-failed', reason: 'timeout', gone: false });
    }
    e.handle({ kind: 'resolved', binding: other(5) });
    e.handle({ kind: 'ping-failed', reason: 'no responders', gone: true });
    expect(e.claimActsAtOnce).toBe(true);
    e.handle({ kind: 'unbound', removed: true });
    e.handle({ kind: 'claimed', revision: 6 });
    expect(e.admits()).toBe(true);
  });

  it('an election ping answered busy (a master re-checking its binding) is asked again, and taken as alive when it answers', () => {
    const { e, clock, last } = setup();
    e.start();
    e.handle({ kind: 'resolved', binding: other(3) });
    e.handle({ kind: 'ping-failed', reason: 'server_busy', busy: true });
    expect(last()).toEqual({ kind: 'ping', binding: other(3) });
    clock.advance(100);
    expect(last()).toEqual({ kind: 'resolve' });
    e.handle({ kind: 'resolved', binding: other(3) });
    e.handle({ kind: 'ping-ok' });
    e.handle({ kind: 'registered' });
    expect(e.role).toBe('backup');
  });

  it('busy for ever counts as no answer after three tries', () => {
    const { e, clock, last } = setup();
    e.start();
    for (let i = 0; i < 2; i++) {
      e.handle({ kind: 'resolved', binding: other(3) });
      e.handle({ kind: 'ping-failed', reason: 'server_busy', busy: true });
      clock.advance(100);
    }
    e.handle({ kind: 'resolved', binding: other(3) });
    e.handle({ kind: 'ping-failed', reason: 'server_busy', busy: true });
    expect(last()).toEqual({ kind: 'unbind', binding: other(3) });
  });

  it('stop: no more actions', () => {
    const { e, clock, actions } = backup();
    e.stop();
    const n = actions.length;
    clock.advance(10_000);
    e.handle({ kind: 'ping-failed', reason: 'x' });
    expect(actions.length).toBe(n);
    expect(e.role).toBe('stopped');
  });
});
