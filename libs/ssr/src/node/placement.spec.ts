import { describe, expect, it } from 'vitest';
import { hashKey } from '../artifact';
import { ConsistentHashRouter } from '../consistent-hash';
import { buddyOf, makeView } from '../membership';
import { homeHashFor, isHomeHere } from './placement';
import { childLoadStep, orphanStep } from './tree-rules';
import { createdArtifact, firedArtifact, slotItem, touchSlots, updatedArtifact } from './versions';

const body = new Uint8Array([1]);

describe('placement: primary and replica of a key (1.3 data-centric policy)', () => {
  it('homeHashFor - an explicit home key, else the parent\'s home, else the id', () => {
    expect(homeHashFor('s', {}, undefined)).toBe(hashKey('s'));
    expect(homeHashFor('s/t', { parentId: 's' }, 42)).toBe(42);
    expect(homeHashFor('s/t', { parentId: 's' }, undefined)).toBe(hashKey('s'));
    expect(homeHashFor('s/t', { parentId: 's', homeKey: 'k' }, 42)).toBe(hashKey('k'));
  });

  it('the primary is the hash owner in the view; the replica is on its buddy, the next member clockwise', () => {
    const view = makeView(['a', 'b', 'c'].map((name) => ({ name, incarnation: '1' })));
    const router = new ConsistentHashRouter(view.members.map((m) => m.name));
    const h = homeHashFor('session-1', {}, undefined);
    const primary = router.home(h) as string;
    expect(isHomeHere(router, { homeHash: h }, primary)).toBe(true);
    expect(view.members.filter((m) => isHomeHere(router, { homeHash: h }, m.name))).toHaveLength(1);
    const replica = buddyOf(view, primary)?.name;
    expect(replica).toBeDefined();
    expect(replica).not.toBe(primary);
  });
});

describe('versions (2.13.1.1, 2.4.2.2)', () => {
  it('a put of an existing artifact is the next version, owned here; nextFire null clears, undefined keeps', () => {
    const old = createdArtifact('s', body, { nextFire: 100 }, { owner: 'a:1', now: 1, homeHash: 7, parent: undefined });
    expect(old).toMatchObject({ version: 1, depth: 0, nextFire: 100, homeHash: 7 });
    expect(updatedArtifact(old, body, {}, 'b:1', 2)).toMatchObject({ version: 2, owner: 'b:1', nextFire: 100, lastAccess: 2 });
    expect(updatedArtifact(old, body, { nextFire: null }, 'b:1', 2).nextFire).toBeUndefined();
    expect(updatedArtifact(old, body, { nextFire: 300 }, 'b:1', 2).nextFire).toBe(300);
  });

  it('a child is one level below its parent (1 when the parent is not here)', () => {
    const p = createdArtifact('p', body, {}, { owner: 'a:1', now: 0, homeHash: 1, parent: undefined });
    const c = createdArtifact('p/c', body, { parentId: 'p' }, { owner: 'a:1', now: 0, homeHash: 1, parent: p });
    const g = createdArtifact('p/c/g', body, { parentId: 'p/c' }, { owner: 'a:1', now: 0, homeHash: 1, parent: c });
    expect([c.depth, g.depth, c.parentId]).toEqual([1, 2, 'p']);
    expect(createdArtifact('x/c', body, { parentId: 'x' }, { owner: 'a:1', now: 0, homeHash: 1, parent: undefined }).depth).toBe(1);
  });

  it('a firing is a new version without the timer; touch changes slots only', () => {
    const a = createdArtifact('s', body, { nextFire: 100 }, { owner: 'a:1', now: 0, homeHash: 1, parent: undefined });
    const f = firedArtifact(a, 150);
    expect(f).toMatchObject({ version: 2, lastAccess: 150 });
    expect(f.nextFire).toBeUndefined();
    expect(a.nextFire).toBe(100);
    touchSlots(a, 200, 500);
    expect(slotItem(a)).toEqual({ id: 's', version: 1, lastAccess: 200, nextFire: 500 });
    touchSlots(a, 300, null);
    expect(slotItem(a)).toEqual({ id: 's', version: 1, lastAccess: 300 });
  });
});

describe('tree rules (2.4.2.5, 2.14.1)', () => {
  it('a child loaded with its parent is activated unless a copy as new is active here', () => {
    const a = createdArtifact('p/c', body, {}, { owner: 'a:1', now: 0, homeHash: 1, parent: undefined });
    expect(childLoadStep(undefined, 1)).toBe('activate');
    expect(childLoadStep({ a, suspect: true }, 1)).toBe('activate');
    expect(childLoadStep({ a, suspect: false }, 2)).toBe('activate');
    expect(childLoadStep({ a, suspect: false }, 1)).toBe('replicate-again');
  });

  it('an orphan is removed only when its parent is found nowhere twice', () => {
    expect(orphanStep(true, false)).toBe('keep');
    expect(orphanStep(false, false)).toBe('check-again');
    expect(orphanStep(false, true)).toBe('remove');
  });
});
