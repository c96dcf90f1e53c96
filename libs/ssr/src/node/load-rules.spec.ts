import { describe, expect, it } from 'vitest';
import type { Artifact } from '../artifact';
import { ArtifactCache, type ActiveEntry, type ReplicaEntry } from '../caches';
import { makeView } from '../membership';
import {
  answerLoad,
  commitLateAnswer,
  findStep,
  loadOutcome,
  localCopies,
  openTally,
  planCommit,
  settleLoad,
  tallyAnswer,
  tallyGone,
  tallySuspect,
  type FindContext,
  type LoadTally,
} from './load-rules';

const art = (id: string, version = 1, extra: Partial<Artifact> = {}): Artifact => ({ id, version, owner: 'a:1', homeHash: 1, depth: 0, lastAccess: 0, body: new Uint8Array(), ...extra });
const caches = (actives: ActiveEntry[] = [], replicas: ReplicaEntry[] = []) => ({ active: ArtifactCache.of(actives), replica: ArtifactCache.of(replicas) });
const ctx = (c: Partial<FindContext> = {}): FindContext => ({ mode: 'get', reloadUnsorted: false, arriving: false, expatReady: true, expatVersion: undefined, hasReplica: false, ...c });
const tally = (t: Partial<LoadTally> = {}): LoadTally => ({ awaited: new Set(), missing: false, viewId: 'v1', otherView: false, busy: false, found: [], ...t });
const settleCtx = { byId: true, now: 10_000, lastViewAt: 0, suspectAfterMs: 600, viewId: 'v1', replicaVersion: () => undefined };

describe('load rules: an access (find vs create, 2.13)', () => {
  it('findStep - a confirmed active copy is used here; one in transfer or arriving answers busy', () => {
    expect(findStep('x', { a: art('x'), suspect: false }, ctx())).toEqual({ kind: 'here' });
    expect(findStep('x', { a: art('x'), suspect: false, transfer: { req: 'r', until: 1 } }, ctx()).kind).toBe('busy');
    expect(findStep('x', undefined, ctx({ arriving: true })).kind).toBe('busy');
  });

  it('findStep - a reloaded copy answers busy until the buddy has sorted it, then it is settled by a load', () => {
    const e = { a: art('x', 4), suspect: true };
    expect(findStep('x', e, ctx({ reloadUnsorted: true })).kind).toBe('busy');
    expect(findStep('x', e, ctx())).toEqual({ kind: 'load' });
  });

  it('findStep - create with a complete expat list that does not name the id needs no broadcast', () => {
    expect(findStep('x', undefined, ctx({ mode: 'create' }))).toEqual({ kind: 'absent' });
    // any doubt means a load: a get, an incomplete list, an expat entry (version-aware), a replica here
    expect(findStep('x', undefined, ctx())).toEqual({ kind: 'load' });
    expect(findStep('x', undefined, ctx({ mode: 'create', expatReady: false }))).toEqual({ kind: 'load' });
    expect(findStep('x', undefined, ctx({ mode: 'create', expatVersion: 7 }))).toEqual({ kind: 'load', minVersion: 7 });
    expect(findStep('x', undefined, ctx({ mode: 'create', hasReplica: true }))).toEqual({ kind: 'load' });
  });

  it('loadOutcome - a miss is "does not exist" only when every member answered; else retryable unavailable', () => {
    expect(loadOutcome('x', { items: [], unavailable: false }, 'get', undefined)).toEqual({ kind: 'missing' });
    expect(loadOutcome('x', { items: [], unavailable: true }, 'get', undefined).kind).toBe('unavailable');
    expect(loadOutcome('x', { items: [], unavailable: true }, 'create', undefined).kind).toBe('unavailable');
    expect(loadOutcome('x', { items: [art('x', 2)], unavailable: false }, 'get', 3)).toMatchObject({ kind: 'found', olderThanExpat: true });
  });
});

describe('load rules: the requester', () => {
  it('localCopies - own confirmed replica and a suspect active copy take part without the network', () => {
    const { active, replica } = caches([{ a: art('s', 5), suspect: true }], [{ a: art('s', 4), suspect: false }, { a: art('t', 1), suspect: true }]);
    expect(localCopies({ id: 's' }, active, replica).map((a) => a.version)).toEqual([4, 5]);
    expect(localCopies({ id: 't' }, active, replica)).toEqual([]);
  });

  it('openTally - every other unsuspected member is awaited; a suspected one marks the load as missing a member', () => {
    const view = makeView([{ name: 'a', incarnation: '1' }, { name: 'b', incarnation: '1' }, { name: 'c', incarnation: '1' }]);
    const t = openTally(view, 'a', (n) => n === 'c');
    expect([...t.awaited]).toEqual(['b:1']);
    expect(t.missing).toBe(true);
    expect(t.viewId).toBe(view.id);
  });

  it('tally - the last answer completes it; an answer from another view, busy and found are recorded', () => {
    const t = tally({ awaited: new Set(['b:1', 'c:1']) });
    expect(tallyAnswer(t, { t: 'loadr', from: 'b:1', to: 'a:1', req: 'r', result: 'found', items: [art('x')], viewId: 'v2' })).toBe(false);
    expect(tallyAnswer(t, { t: 'loadr', from: 'c:1', to: 'a:1', req: 'r', result: 'busy', viewId: 'v1' })).toBe(true);
    expect(t).toMatchObject({ otherView: true, busy: true, found: [{ from: 'b:1' }] });
  });

  it('tally - a suspected member stops being awaited and makes the result unavailable; a gone one only stops being awaited', () => {
    const t = tally({ awaited: new Set(['b:1', 'c:1']) });
    expect(tallySuspect(t, 'x:1')).toBe(false);
    expect(tallySuspect(t, 'b:1')).toBe(false);
    expect(t.missing).toBe(true);
    const g = tally({ awaited: new Set(['c:1']) });
    expect(tallyGone(g, 'c:1')).toBe(true);
    expect(g.missing).toBe(false);
  });

  it('settleLoad - the highest version wins; the own replica it supersedes goes', () => {
    const t = tally({ found: [{ from: 'b:1', items: [art('x', 3)] }, { from: 'c:1', items: [art('x', 5)] }] });
    const d = settleLoad(t, [art('x', 4)], { ...settleCtx, replicaVersion: () => 4 });
    expect(d.kind).toBe('take');
    if (d.kind !== 'take') return;
    expect(d.best.get('x')?.version).toBe(5);
    expect(d.dropLocalReplicas).toEqual(['x']);
    expect(d.unavailable).toBe(false);
  });

  it('settleLoad - busy anywhere gives everything back (2.18.1)', () => {
    expect(settleLoad(tally({ busy: true, found: [{ from: 'b:1', items: [art('x')] }] }), [], settleCtx)).toEqual({ kind: 'busy' });
  });

  it('settleLoad - by id, nothing is taken when a member is silent, the view is young, or an answer came from another view', () => {
    expect(settleLoad(tally({ awaited: new Set(['c:1']) }), [], settleCtx).kind).toBe('give-back');
    expect(settleLoad(tally({ missing: true }), [], settleCtx).kind).toBe('give-back');
    expect(settleLoad(tally(), [], { ...settleCtx, lastViewAt: 9_900 }).kind).toBe('give-back');
    expect(settleLoad(tally({ otherView: true }), [], settleCtx).kind).toBe('give-back');
    expect(settleLoad(tally(), [], { ...settleCtx, viewId: 'v2' }).kind).toBe('give-back');
    // a children load takes what it found, marked unavailable
    expect(settleLoad(tally({ missing: true, found: [{ from: 'b:1', items: [art('c')] }] }), [], { ...settleCtx, byId: false })).toMatchObject({ kind: 'take', unavailable: true });
  });

  it('commitLateAnswer - a late copy is removed only if not newer than the one taken', () => {
    expect(commitLateAnswer(new Map([['x', 3]]), [art('x', 3)])).toBe(true);
    expect(commitLateAnswer(new Map([['x', 3]]), [art('x', 4)])).toBe(false);
    expect(commitLateAnswer(null, [art('x', 1)])).toBe(false);
    expect(commitLateAnswer(undefined, [art('x', 1)])).toBe(false);
  });
});

describe('load rules: the answering member', () => {
  const base = { locked: () => false, arriving: () => false, reloadUnsorted: false };

  it('answerLoad - copies found (active and replica), or a negative acknowledgement', () => {
    const c = caches([{ a: art('x', 2), suspect: false }], [{ a: art('y'), suspect: false }]);
    const r = answerLoad({ id: 'x' }, { ...c, ...base });
    expect(r.result === 'found' && r.entries.map((e) => e.a.id)).toEqual(['x']);
    expect(answerLoad({ id: 'z' }, { ...c, ...base })).toEqual({ result: 'nack' });
  });

  it('answerLoad - busy for a locked copy, one in transfer, one arriving, an unsorted reloaded copy (2.18.1)', () => {
    const c = caches([{ a: art('x'), suspect: false }, { a: art('s'), suspect: true }], [{ a: art('t'), suspect: false, transfer: { req: 'r', until: 1 } }]);
    expect(answerLoad({ id: 'x' }, { ...c, ...base, locked: (id) => id === 'x' })).toEqual({ result: 'busy' });
    expect(answerLoad({ id: 't' }, { ...c, ...base })).toEqual({ result: 'busy' });
    expect(answerLoad({ id: 'q' }, { ...c, ...base, arriving: () => true })).toEqual({ result: 'busy' });
    expect(answerLoad({ id: 's' }, { ...c, ...base, reloadUnsorted: true })).toEqual({ result: 'busy' });
    // a suspect copy once sorted is handed out (the requester's load settles it); a suspect replica never is
    expect(answerLoad({ id: 's' }, { ...c, ...base }).result).toBe('found');
  });

  it('answerLoad - a children load collects the children of the parent from both caches', () => {
    const c = caches([{ a: art('p/1', 1, { parentId: 'p' }), suspect: false }], [{ a: art('p/2', 1, { parentId: 'p' }), suspect: false }]);
    const r = answerLoad({ parentId: 'p' }, { ...c, ...base });
    expect(r.result === 'found' && r.entries.map((e) => e.a.id).sort()).toEqual(['p/1', 'p/2']);
  });

  it('planCommit - remove drops the copies in this transfer; a home copy taken elsewhere enters the expat list', () => {
    const tr = { req: 'r1', until: 1 };
    const c = caches([{ a: art('x', 3), suspect: false, transfer: tr }], [{ a: art('x', 4), suspect: false, transfer: tr }, { a: art('y'), suspect: false, transfer: { req: 'other', until: 1 } }]);
    const plan = planCommit(['x', 'y'], 'r1', true, { ...c, isHome: () => true, expatVersion: () => undefined });
    expect(plan).toEqual({ dropActive: ['x'], dropReplica: ['x'], release: [], expat: [['x', 4]] });
    expect(planCommit(['x'], 'r1', true, { ...c, isHome: () => false, expatVersion: () => undefined }).expat).toEqual([]);
    expect(planCommit(['x'], 'r1', true, { ...c, isHome: () => true, expatVersion: () => 9 }).expat).toEqual([]);
  });

  it('planCommit - give back (remove false) ends the transfer and keeps the copies', () => {
    const tr = { req: 'r1', until: 1 };
    const ae: ActiveEntry = { a: art('x'), suspect: false, transfer: tr };
    const plan = planCommit(['x'], 'r1', false, { ...caches([ae]), isHome: () => true, expatVersion: () => undefined });
    expect(plan).toEqual({ dropActive: [], dropReplica: [], release: [ae], expat: [] });
  });
});
