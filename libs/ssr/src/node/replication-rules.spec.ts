import { describe, expect, it } from 'vitest';
import type { Artifact } from '../artifact';
import type { ReplicaEntry } from '../caches';
import { acceptsRemove, acceptsReplica, applySlot, buddyChange, inBatches, purgeVictims, resendPlan, waitsForAck } from './replication-rules';

const art = (id: string, version: number, owner = 'x:1'): Artifact => ({ id, version, owner, homeHash: 1, depth: 0, lastAccess: 0, body: new Uint8Array() });
const rep = (a: Artifact, extra: Partial<ReplicaEntry> = {}): ReplicaEntry => ({ a, suspect: false, ...extra });
const m = (name: string, incarnation = '1') => ({ name, incarnation });

describe('replication rules (2.7, 2.17, 2.19)', () => {
  it('waitsForAck - puts follow the mode; a timer firing, repair and the pre-save check always wait; pulls and resends never', () => {
    for (const mode of [false, true]) {
      expect(waitsForAck('put', mode)).toBe(mode);
      expect(waitsForAck('remove', mode)).toBe(mode);
      expect(waitsForAck('activate', mode)).toBe(mode);
      expect(waitsForAck('fire', mode)).toBe(true);
      expect(waitsForAck('repair', mode)).toBe(true);
      expect(waitsForAck('confirm', mode)).toBe(true);
      expect(waitsForAck('pull', mode)).toBe(false);
      expect(waitsForAck('resend', mode)).toBe(false);
    }
  });

  it('acceptsReplica - version-monotonic whoever sends it; a suspect or in-transfer copy is replaced', () => {
    expect(acceptsReplica(undefined, art('m', 1))).toBe(true);
    expect(acceptsReplica(rep(art('m', 5, 'y:1')), art('m', 3, 'x:1'))).toBe(false);
    expect(acceptsReplica(rep(art('m', 5, 'y:1')), art('m', 5, 'x:1'))).toBe(true); // a reactivation keeps the version
    expect(acceptsReplica(rep(art('m', 5), { suspect: true }), art('m', 3))).toBe(true);
    expect(acceptsReplica(rep(art('m', 5), { transfer: { req: 'r', until: 1 } }), art('m', 3))).toBe(true);
  });

  it('acceptsRemove - only the owner removes, and not a copy in transfer', () => {
    expect(acceptsRemove(rep(art('m', 1, 'x:1')), 'x:1')).toBe(true);
    expect(acceptsRemove(rep(art('m', 1, 'y:1')), 'x:1')).toBe(false);
    expect(acceptsRemove(rep(art('m', 1, 'x:1'), { transfer: { req: 'r', until: 1 } }), 'x:1')).toBe(false);
    expect(acceptsRemove(undefined, 'x:1')).toBe(false);
  });

  it('applySlot - slots apply to the same version only; an absent nextFire clears the timer', () => {
    const r = rep({ ...art('m', 2), nextFire: 100 });
    expect(applySlot(r, { id: 'm', version: 1, lastAccess: 9 })).toBe(false);
    expect(applySlot(r, { id: 'm', version: 2, lastAccess: 9 })).toBe(true);
    expect(r.a.lastAccess).toBe(9);
    expect(r.a.nextFire).toBeUndefined();
  });

  it('purgeVictims - only the owner\'s replicas written before the purge', () => {
    const rs = [rep(art('a', 1), { seq: 6 }), rep(art('b', 1), { seq: 7 }), rep(art('c', 1, 'y:1'), { seq: 1 }), rep(art('d', 1), { seq: 1, transfer: { req: 'r', until: 1 } })];
    expect(purgeVictims(rs, 'x:1', 7)).toEqual(['a']);
    expect(purgeVictims(rs, 'x:1', undefined)).toEqual(['a', 'b']);
  });

  it('resendPlan - acknowledged entries go; unacknowledged ones older than the timeout are sent again, once each', () => {
    const unacked = [
      { seq: 1, at: 0, ids: ['a'] },
      { seq: 2, at: 100, ids: ['b', 'c'] },
      { seq: 3, at: 200, ids: ['b'] },
    ];
    expect(resendPlan(unacked, 1, 1000, 2000, true)).toEqual({ keep: unacked.slice(1) });
    expect(resendPlan(unacked, 1, 2100, 2000, true)).toEqual({ keep: [], resend: ['b', 'c'] });
    expect(resendPlan(unacked, 1, 2100, 2000, false)).toEqual({ keep: unacked.slice(1) });
    expect(resendPlan(unacked, 3, 9999, 2000, true)).toEqual({ keep: [] });
  });

  it('buddyChange - a new buddy is repaired (then the old purged) with repair-under-load; else the old is purged at once', () => {
    const on = { repairUnderLoad: true, replication: true, ready: true };
    expect(buddyChange(m('b'), m('b'), on)).toEqual({ changed: false });
    expect(buddyChange(m('b'), m('c'), on)).toEqual({ changed: true, repairTo: m('c'), purge: m('b') });
    expect(buddyChange(m('b'), m('b', '2'), on)).toEqual({ changed: true, repairTo: m('b', '2'), purge: m('b') }); // a restart
    expect(buddyChange(m('b'), m('c'), { ...on, repairUnderLoad: false })).toEqual({ changed: true, purge: m('b') });
    expect(buddyChange(m('b'), m('c'), { ...on, ready: false })).toEqual({ changed: true, purge: m('b') });
    expect(buddyChange(undefined, m('c'), on)).toEqual({ changed: true, repairTo: m('c') });
    expect(buddyChange(m('b'), undefined, on)).toEqual({ changed: true, purge: m('b') });
  });

  it('inBatches - in order, the last one short', () => {
    expect(inBatches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inBatches([], 2)).toEqual([]);
    // by weight too: a repair of large artifacts stays under the payload limit; one heavier than the limit goes alone
    expect(inBatches([5, 5, 5, 20, 1, 1], 10, (n) => n, 10)).toEqual([[5, 5], [5], [20], [1, 1]]);
  });
});
