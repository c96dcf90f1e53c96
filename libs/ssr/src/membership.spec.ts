import { describe, expect, it } from 'vitest';
import { buddyOf, Membership, sourceOf, type MembershipEvent } from './membership';

const m = (name: string, incarnation = '1') => ({ name, incarnation });
const views = (evs: MembershipEvent[]) => evs.filter((e) => e.type === 'view');

describe('membership (GMS over heartbeats)', () => {
  it('a join reshapes; ring order is by name, so every instance computes the same ring and view id', () => {
    const a = new Membership(m('a'), { suspectAfterMs: 300, failAfterMs: 1000 }, 0);
    const c = new Membership(m('c'), { suspectAfterMs: 300, failAfterMs: 1000 }, 0);
    a.heard(m('c'), 'up', 0);
    a.heard(m('b'), 'up', 0);
    c.heard(m('b'), 'up', 0);
    c.heard(m('a'), 'up', 0);
    expect(a.view.members.map((x) => x.name)).toEqual(['a', 'b', 'c']);
    expect(c.view.id).toBe(a.view.id);
    expect(buddyOf(a.view, 'c')?.name).toBe('a');
    expect(sourceOf(a.view, 'a')?.name).toBe('c');
    expect(buddyOf(a.view, 'a')?.name).toBe('b');
  });

  it('hold (our own bus down): suspected, never failed, however long; release gives everyone a full failAfterMs again', () => {
    const a = new Membership(m('a'), { suspectAfterMs: 300, failAfterMs: 1000 }, 0);
    a.heard(m('b'), 'up', 0);
    a.heard(m('c'), 'up', 0);
    a.hold();
    expect(a.tick(400)).toEqual([{ type: 'suspect', member: m('b') }, { type: 'suspect', member: m('c') }]);
    expect(views(a.tick(5_000))).toEqual([]);
    expect(a.view.members).toHaveLength(3);
    a.release(5_000);
    expect(a.heard(m('b'), 'up', 5_200)).toEqual([{ type: 'unsuspect', member: m('b') }]);
    expect(views(a.tick(5_999))).toEqual([]);
    // c died during the outage: failed a full failAfterMs after the release
    const v = views(a.tick(6_000));
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ failed: [m('c')] });
  });

  it('silence: suspected after suspectAfterMs (temporary failure, no reshape), removed after failAfterMs (permanent)', () => {
    const a = new Membership(m('a'), { suspectAfterMs: 300, failAfterMs: 1000 }, 0);
    a.heard(m('b'), 'up', 0);
    expect(a.tick(299)).toEqual([]);
    expect(a.tick(300)).toEqual([{ type: 'suspect', member: m('b') }]);
    expect(a.isSuspected('b')).toBe(true);
    expect(a.view.members).toHaveLength(2);
    expect(a.heard(m('b'), 'up', 500)).toEqual([{ type: 'unsuspect', member: m('b') }]);
    expect(a.tick(1400)).toHaveLength(1); // suspected again
    const evs = a.tick(1500);
    expect(views(evs)).toEqual([expect.objectContaining({ failed: [m('b')] })]);
    expect(a.view.members.map((x) => x.name)).toEqual(['a']);
  });

  it('a planned leave reshapes at once; a restart (new incarnation) is a failure and a join in one reshape', () => {
    const a = new Membership(m('a'), { suspectAfterMs: 300, failAfterMs: 1000 }, 0);
    a.heard(m('b'), 'up', 0);
    a.heard(m('c'), 'up', 0);
    expect(views(a.heard(m('b'), 'leaving', 10))).toEqual([expect.objectContaining({ left: [m('b')] })]);
    expect(views(a.heard(m('c', '2'), 'up', 20))).toEqual([expect.objectContaining({ joined: [m('c', '2')], failed: [m('c')] })]);
    expect(a.view.members).toEqual([m('a'), m('c', '2')]);
  });
});
