import { describe, expect, it } from 'vitest';
import type { Artifact } from '../artifact';
import { ConsistentHashRouter } from '../consistent-hash';
import { makeView } from '../membership';
import { EXPAT_CHUNK, ExpatList, expatListsFor } from './expat-list';

const m = (name: string) => ({ name, incarnation: '1' });
const art = (id: string, version: number, homeHash: number): Artifact => ({ id, version, owner: 'b:1', homeHash, depth: 0, lastAccess: 0, body: new Uint8Array() });

describe('expat list (2.13 find vs create)', () => {
  const view = makeView([m('a'), m('b'), m('c')]);

  it('complete once every other member of the view has sent its list (an empty list counts)', () => {
    const x = new ExpatList();
    expect(x.complete(view, 'a')).toBe(false);
    x.received('b:1', view.id, [['s1', 3]], view.id);
    expect(x.complete(view, 'a')).toBe(false);
    x.received('c:1', view.id, [], view.id);
    expect(x.complete(view, 'a')).toBe(true);
    expect(x.version('s1')).toBe(3);
  });

  it('an entry is added at the highest version heard, and when a copy of this home is taken elsewhere', () => {
    const x = new ExpatList();
    x.received('b:1', view.id, [['s1', 3]], view.id);
    x.received('c:1', view.id, [['s1', 2]], view.id);
    expect(x.version('s1')).toBe(3);
    x.takenElsewhere('s2', 4);
    x.takenElsewhere('s2', 1);
    expect(x.version('s2')).toBe(4);
  });

  it('an entry is removed when the artifact becomes active here, or a load finds it nowhere', () => {
    const x = new ExpatList();
    x.received('b:1', view.id, [['s1', 3]], view.id);
    x.forget('s1');
    expect(x.version('s1')).toBeUndefined();
  });

  it('a reshape resets the list; lists that arrived early for the new view are taken then, not before', () => {
    const x = new ExpatList();
    const next = makeView([m('a'), m('b'), m('c'), m('d')]);
    x.received('b:1', view.id, [['old', 1]], view.id);
    x.received('d:1', next.id, [['early', 2]], view.id);
    expect(x.version('early')).toBeUndefined();
    x.newView(next.id);
    expect(x.version('old')).toBeUndefined();
    expect(x.version('early')).toBe(2);
    expect(x.complete(next, 'a')).toBe(false);
  });

  it('lists for views never reached are forgotten after a few views', () => {
    const x = new ExpatList();
    for (let i = 0; i < 9; i++) x.received('b:1', `v${i}`, [[`id${i}`, 1]], 'now');
    x.newView('v0');
    expect(x.version('id0')).toBeUndefined();
    x.newView('v8');
    expect(x.version('id8')).toBe(1);
  });

  it('expatListsFor - each home gets the confirmed copies held here for it, and every member gets at least one message', () => {
    const router = new ConsistentHashRouter(['a', 'b', 'c']);
    const hashes = Array.from({ length: 300 }, (_, i) => i * 14_000_000);
    const copies = hashes.map((h, i) => ({ a: art(`s${i}`, 1, h), suspect: i === 0 }));
    const lists = expatListsFor(view, 'a', copies, (h) => router.home(h));
    expect(lists.map((l) => l.to.name).sort()).toEqual(['b', 'c']);
    for (const l of lists) for (const [id] of l.items) expect(router.home(copies.find((c) => c.a.id === id)!.a.homeHash)).toBe(l.to.name);
    expect(lists.flatMap((l) => l.items).some(([id]) => id === 's0')).toBe(false); // suspect copies are no evidence
    expect(expatListsFor(view, 'a', [], () => 'b')).toHaveLength(2);
  });

  it('expatListsFor - a long list travels in chunks', () => {
    const copies = Array.from({ length: EXPAT_CHUNK + 1 }, (_, i) => ({ a: art(`s${i}`, 1, 1), suspect: false }));
    const lists = expatListsFor(makeView([m('a'), m('b')]), 'a', copies, () => 'b');
    expect(lists.map((l) => l.items.length)).toEqual([EXPAT_CHUNK, 1]);
  });
});
