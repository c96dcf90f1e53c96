import { describe, expect, it } from 'vitest';
import type { Artifact } from '../artifact';
import { ArtifactCache, type ActiveEntry, type ReplicaEntry } from '../caches';
import { hasSuspects, missingOnBuddy, sortReloadedActives, sortReloadedReplicas, tellsRejoined, versionListOf } from './repair-rules';

const art = (id: string, version = 1, owner = 'b:1'): Artifact => ({ id, version, owner, homeHash: 1, depth: 0, lastAccess: 0, body: new Uint8Array() });
const caches = (actives: ActiveEntry[] = [], replicas: ReplicaEntry[] = []) => ({ active: ArtifactCache.of(actives), replica: ArtifactCache.of(replicas) });

describe('repair rules (2.16, 2.22.1)', () => {
  it('hasSuspects - any reloaded entry not yet confirmed', () => {
    expect(hasSuspects(caches().active, caches().replica)).toBe(false);
    const c = caches([], [{ a: art('r'), suspect: true }]);
    expect(hasSuspects(c.active, c.replica)).toBe(true);
  });

  it('sortReloadedActives - kept for a load if the buddy holds a replica of ours at any version; dropped otherwise', () => {
    const actives: ActiveEntry[] = [
      { a: art('same', 3), suspect: true },
      { a: art('newer-here', 4), suspect: true }, // saved while its replication was unacknowledged
      { a: art('taken', 2), suspect: true }, // reactivated elsewhere or deleted while this instance was down
      { a: art('confirmed', 1), suspect: false },
    ];
    const r = sortReloadedActives(actives, [
      ['same', 3],
      ['newer-here', 3],
    ]);
    expect(r.check).toEqual(['same', 'newer-here']);
    expect(r.drop.map((a) => a.id)).toEqual(['taken']);
  });

  it('sortReloadedReplicas - kept if the source still has it active; newer and missing ones pulled; others dropped', () => {
    const source = { name: 'a', incarnation: '2' };
    const replicas: ReplicaEntry[] = [
      { a: art('same', 2, 'a:1'), suspect: true },
      { a: art('older', 1, 'a:1'), suspect: true },
      { a: art('deleted', 1, 'a:1'), suspect: true },
      { a: art('other-owner', 1, 'z:1'), suspect: true },
    ];
    const have = new Set(replicas.map((e) => e.a.id));
    const r = sortReloadedReplicas(replicas, [['same', 2], ['older', 3], ['other-owner', 1], ['new', 1]], source, (id) => have.has(id));
    expect(r.confirm.map((e) => e.a.id)).toEqual(['same', 'older']);
    expect(r.drop).toEqual(['deleted', 'other-owner']);
    expect(r.pull).toEqual(['older', 'other-owner', 'new']);
  });

  it('missingOnBuddy - confirmed active copies the buddy lacks or holds at another version', () => {
    const actives: ActiveEntry[] = [
      { a: art('ok', 2), suspect: false },
      { a: art('stale', 3), suspect: false },
      { a: art('lost', 1), suspect: false },
      { a: art('moving', 1), suspect: false, transfer: { req: 'r', until: 1 } },
      { a: art('reloaded', 1), suspect: true },
    ];
    expect(missingOnBuddy(actives, [['ok', 2], ['stale', 2]]).map((a) => a.id)).toEqual(['stale', 'lost']);
  });

  it('versionListOf - the source lists its confirmed actives; the buddy lists the asker\'s replicas not active here', () => {
    const c = caches(
      [{ a: art('mine-now', 5, 'c:1'), suspect: false }, { a: art('act', 1, 'c:1'), suspect: false }, { a: art('sus', 1, 'c:1'), suspect: true }],
      [{ a: art('r1', 2, 'b:1'), suspect: false }, { a: art('mine-now', 4, 'b:1'), suspect: false }, { a: art('r2', 1, 'x:1'), suspect: false }, { a: art('r3', 1, 'b:0'), suspect: false }],
    );
    expect(versionListOf('actives', 'b', c.active, c.replica)).toEqual([['mine-now', 5], ['act', 1]]);
    // by name: replicas of an earlier incarnation of the asker count too
    expect(versionListOf('replicas-of-mine', 'b', c.active, c.replica)).toEqual([['r1', 2], ['r3', 1]]);
  });

  it('tellsRejoined - a member declared failed and back under the same incarnation, unless this instance was alone just before', () => {
    expect(tellsRejoined(true, 10_000, -Infinity, 1000)).toBe(true);
    expect(tellsRejoined(false, 10_000, -Infinity, 1000)).toBe(false);
    expect(tellsRejoined(true, 10_000, 9_500, 1000)).toBe(false);
    expect(tellsRejoined(true, 10_000, 8_000, 1000)).toBe(true);
  });
});
