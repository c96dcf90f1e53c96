import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import type { Artifact } from '../artifact';
import type { ActiveEntry, ReplicaEntry } from '../caches';
import { makeView } from '../membership';
import {
  acceptsAdvisory,
  activeFiring,
  activeTimerDelay,
  advisoryOnHome,
  dropsReplicaAfterAdvisory,
  needsOrphanTimer,
  replicaDueAt,
  replicaExpiry,
  replicaTimerRuns,
} from './replica-timer-rules';

const art = (id: string, extra: Partial<Artifact> = {}): Artifact => ({ id, version: 1, owner: 'b:1', homeHash: 1, depth: 0, lastAccess: 0, body: new Uint8Array(), ...extra });
const o = { failAfterMs: 1000, graceMs: 1500 };

/** Arms a timer on the clock as the instance does and returns when it went off. */
function firesAt(clock: ManualClock, due: number | undefined): () => number | undefined {
  let at: number | undefined;
  if (due !== undefined) clock.setTimeout(() => (at = clock.now()), Math.max(0, due - clock.now()));
  return () => at;
}

describe('timer rules (2.14, 2.14.1)', () => {
  it('the active copy fires at its nextFire, only while the instance serves', () => {
    const clock = new ManualClock(10_000);
    const a = art('t', { nextFire: 12_000 });
    expect(activeTimerDelay(a, clock.now(), false)).toBeUndefined();
    expect(activeTimerDelay(art('t'), clock.now(), true)).toBeUndefined();
    const fired = firesAt(clock, clock.now() + (activeTimerDelay(a, clock.now(), true) as number));
    clock.advance(1999);
    expect(fired()).toBeUndefined();
    clock.advance(1);
    expect(fired()).toBe(12_000);
    expect(activeFiring({ a, suspect: false }, clock.now())).toBe('fire');
  });

  it('activeFiring - moved later meanwhile: armed again; gone, suspect, moving or cleared: nothing', () => {
    expect(activeFiring({ a: art('t', { nextFire: 500 }), suspect: false }, 400)).toBe('rearm');
    expect(activeFiring(undefined, 400)).toBe('skip');
    expect(activeFiring({ a: art('t', { nextFire: 100 }), suspect: true }, 400)).toBe('skip');
    expect(activeFiring({ a: art('t', { nextFire: 100 }), suspect: false, transfer: { req: 'r', until: 1 } }, 400)).toBe('skip');
    expect(activeFiring({ a: art('t'), suspect: false }, 400)).toBe('skip');
  });

  it('a replica keeps a timer only while its owner is gone', () => {
    const e: ReplicaEntry = { a: art('t', { nextFire: 0 }), suspect: false };
    expect(replicaTimerRuns(e, false, false)).toBe(true);
    expect(replicaTimerRuns(e, true, false)).toBe(false);
    expect(replicaTimerRuns({ ...e, suspect: true }, false, false)).toBe(false);
    expect(replicaTimerRuns(e, false, true)).toBe(false);
  });

  it('a replica of a failed owner expires grace x (1 + depth) after its timer: parents before children', () => {
    const clock = new ManualClock(0);
    const parent = firesAt(clock, replicaDueAt(art('p', { nextFire: 3000 }), 500, clock.now(), o));
    const child = firesAt(clock, replicaDueAt(art('p/t', { nextFire: 3000, depth: 1, parentId: 'p' }), 500, clock.now(), o));
    clock.advance(10_000);
    expect(parent()).toBe(3000 + 1500);
    expect(child()).toBe(3000 + 2 * 1500);
    expect(replicaDueAt(art('none'), 500, 0, o)).toBeUndefined(); // no timer, no reactivation window: traffic only
  });

  it('with a reactivation window every replica of the failed owner expires within it, children later', () => {
    const clock = new ManualClock(0);
    const w = { ...o, reactivation: { lowMs: 200, highMs: 400 } };
    const goneAt = 1000;
    for (let i = 0; i < 50; i++) {
      const due = replicaDueAt(art(`s${i}`), goneAt, clock.now(), w) as number;
      expect(due).toBeGreaterThanOrEqual(goneAt + 200);
      expect(due).toBeLessThan(goneAt + 400);
      expect(replicaDueAt(art(`s${i}`, { depth: 1 }), goneAt, clock.now(), w)).toBe(due + 1500);
    }
    // a timer due earlier than the window goes earlier
    expect(replicaDueAt(art('t', { nextFire: -1400 }), goneAt, 0, w)).toBe(100);
  });

  it('an owner never seen here counts as gone only a failure-detection time from now', () => {
    const w = { ...o, reactivation: { lowMs: 0, highMs: 1 } };
    expect(replicaDueAt(art('s'), undefined, 5000, w)).toBeGreaterThanOrEqual(6000);
  });

  it('replicaExpiry - owner back or suspect: nothing; in transfer: wait; else an advisory to the home (itself, or a member)', () => {
    const view = makeView([{ name: 'a', incarnation: '1' }, { name: 'c', incarnation: '1' }]);
    const e: ReplicaEntry = { a: art('t'), suspect: false };
    const c = { ownerIsMember: false, home: 'c', selfName: 'a', view };
    expect(replicaExpiry(e, { ...c, ownerIsMember: true })).toEqual({ kind: 'ignore' });
    expect(replicaExpiry({ ...e, suspect: true }, c)).toEqual({ kind: 'ignore' });
    expect(replicaExpiry({ ...e, transfer: { req: 'r', until: 1 } }, c)).toEqual({ kind: 'wait-transfer' });
    expect(replicaExpiry(e, { ...c, home: 'a' })).toEqual({ kind: 'advise-self' });
    expect(replicaExpiry(e, c)).toEqual({ kind: 'advise', home: { name: 'c', incarnation: '1' } });
    expect(replicaExpiry(e, { ...c, home: 'z' })).toEqual({ kind: 'retry' });
  });

  it('after the advisory: "drop" removes the advised replica only if unchanged; a replica left keeps a timer', () => {
    const a = art('t');
    const e: ReplicaEntry = { a, suspect: false };
    expect(dropsReplicaAfterAdvisory('drop', a, e)).toBe(true);
    expect(dropsReplicaAfterAdvisory('taken', a, e)).toBe(false);
    expect(dropsReplicaAfterAdvisory('drop', a, { a: art('t', { version: 2 }), suspect: false })).toBe(false);
    expect(dropsReplicaAfterAdvisory('drop', a, { a, suspect: false, transfer: { req: 'r', until: 1 } })).toBe(false);
    expect(needsOrphanTimer(e, false)).toBe(true);
    expect(needsOrphanTimer(e, true)).toBe(false);
    expect(needsOrphanTimer(undefined, false)).toBe(false);
  });

  it('the home: no advisory taken while not serving; an older active copy here is settled by a load, never kept', () => {
    expect(acceptsAdvisory(true, false)).toBe(true);
    expect(acceptsAdvisory(false, false)).toBe(false);
    expect(acceptsAdvisory(true, true)).toBe(false);
    const here = (version: number, extra: Partial<ActiveEntry> = {}): ActiveEntry => ({ a: art('t', { version }), suspect: false, ...extra });
    expect(advisoryOnHome(here(1), 5)).toBe('settle-by-load');
    expect(advisoryOnHome(here(5), 5)).toBe('keep-active');
    expect(advisoryOnHome(here(1, { transfer: { req: 'r', until: 1 } }), 5)).toBe('keep-active');
    expect(advisoryOnHome(here(9, { suspect: true }), 5)).toBe('load');
    expect(advisoryOnHome(undefined, 5)).toBe('load');
  });
});
