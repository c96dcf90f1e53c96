import type { ActiveEntry } from '../caches';
import { SsrBusy, SsrUnavailable } from '../errors';
import type { SsrMessage } from '../messages';
import { commitLateAnswer, findStep, loadOutcome, localCopies, openTally, settleLoad, tallyAnswer, tallyGone, tallySuspect, type LoadQuery, type LoadResult } from './load-rules';
import type { NodeParts } from './node-parts';
import type { PendingLoad } from './node-state';

/**
 * The requesting side of load requests (2.12, 2.13): an access finds the active copy or broadcasts a load, collects
 * one answer per member, takes the best copy and commits (removes) or gives back every copy found (2.18).
 */
export class LoadRequests {
  constructor(private readonly n: NodeParts) {}

  /** The active copy, or a reactivated / migrated one; undefined when the artifact exists nowhere. */
  async find(id: string, mode: 'get' | 'create'): Promise<ActiveEntry | undefined> {
    const s = this.n.s;
    const e = s.active.get(id);
    const expatVersion = s.expat.version(id);
    const step = findStep(id, e, {
      mode,
      reloadUnsorted: s.reloadUnsorted,
      arriving: !e && s.isArriving(id),
      expatReady: s.expatReady(),
      expatVersion,
      hasReplica: s.replica.get(id) !== undefined,
    });
    if (step.kind === 'busy') throw new SsrBusy(step.reason);
    if (step.kind === 'here') return e;
    if (step.kind === 'absent') return undefined;
    const t0 = s.clock.now();
    const r = await this.load(step.minVersion !== undefined ? { id, minVersion: step.minVersion } : { id });
    s.loadLatencies.push(s.clock.now() - t0);
    if (s.loadLatencies.length > 5000) s.loadLatencies.splice(0, 2500);
    const out = loadOutcome(id, r, mode, expatVersion);
    if (out.kind === 'unavailable') throw new SsrUnavailable(out.reason);
    if (out.kind === 'missing') {
      s.expat.forget(id);
      return undefined;
    }
    // version-aware load: the expat list promised a newer copy than any that answered (lost with a failure?)
    if (out.olderThanExpat) s.log?.warn({ id, expected: expatVersion, got: out.a.version }, 'load found an older version than the expat list');
    return this.n.activation.activate(out.a);
  }

  /**
   * Broadcasts a load request and collects one answer per member (negative acknowledgements make a missing artifact
   * cost one round, not a timeout). The best copy wins; every copy found is then removed where it was (2.13, 2.18:
   * no duplicate active copies), or given back if a member answered busy (2.18.1).
   */
  load(q: LoadQuery): Promise<LoadResult> {
    const s = this.n.s;
    const req = `${s.name}.${s.self.incarnation}.${++s.reqSeq}`;
    s.counters.loads++;
    const local = localCopies(q, s.active, s.replica);
    const tally = openTally(s.view, s.name, (name) => s.membership.isSuspected(name));
    return new Promise<LoadResult>((resolve, reject) => {
      const p: PendingLoad = {
        ...tally,
        finish: () => {
          if (!s.loads.has(req)) return;
          s.loads.delete(req);
          s.clock.clearTimeout(timer);
          const finders = p.found.map((f) => f.from);
          const d = settleLoad(p, local, {
            byId: q.id !== undefined,
            now: s.clock.now(),
            lastViewAt: s.lastViewAt,
            suspectAfterMs: s.o.suspectAfterMs,
            viewId: s.view.id,
            replicaVersion: (id) => s.replica.get(id)?.a.version,
          });
          if (d.kind !== 'take') {
            for (const f of finders) s.sendTo(f, { t: 'commit', from: s.key, to: f, req, remove: false });
            s.doneLoads.set(req, null);
            this.forgetLoadLater(req);
            if (d.kind === 'busy') {
              s.counters.busy++;
              reject(new SsrBusy(`${q.id ?? `children of ${q.parentId}`} is locked by an access on another instance; retry`));
            } else resolve({ items: [], unavailable: true });
            return;
          }
          for (const f of finders) s.sendTo(f, { t: 'commit', from: s.key, to: f, req, remove: true });
          for (const id of d.best.keys()) s.arriving.set(id, s.clock.now());
          for (const id of d.dropLocalReplicas) s.dropReplica(id);
          if (p.found.length === 0 && local.length === 0) s.counters.loadNacksOnly++;
          s.doneLoads.set(req, new Map([...d.best].map(([id, a]) => [id, a.version])));
          this.forgetLoadLater(req);
          resolve({ items: [...d.best.values()].map((a) => ({ ...a })), unavailable: d.unavailable });
        },
      };
      const timer = s.clock.setTimeout(() => p.finish(), s.o.loadTimeoutMs);
      s.loads.set(req, p);
      const m: SsrMessage = { t: 'load', from: s.key, req, viewId: p.viewId };
      if (q.id !== undefined) m.id = q.id;
      if (q.parentId !== undefined) m.parentId = q.parentId;
      if (q.minVersion !== undefined) m.minVersion = q.minVersion;
      if (p.awaited.size === 0) p.finish();
      else s.o.transport.broadcast(m);
    });
  }

  onLoadReply(m: Extract<SsrMessage, { t: 'loadr' }>): void {
    const s = this.n.s;
    const p = s.loads.get(m.req);
    if (!p) {
      // late answer to a finished load: commit if what it holds is not newer than what was taken, else give it back
      if (m.result !== 'found') return;
      const remove = commitLateAnswer(s.doneLoads.get(m.req), m.items ?? []);
      s.sendTo(m.from, { t: 'commit', from: s.key, to: m.from, req: m.req, remove });
      return;
    }
    if (tallyAnswer(p, m)) p.finish();
  }

  /** A member suspected (2.8): the loads waiting for it stop waiting, and answer unavailable. */
  memberSuspected(key: string): void {
    for (const p of this.n.s.loads.values()) if (tallySuspect(p, key)) p.finish();
  }

  /** Members gone from the view: the loads waiting only for them finish. */
  membersGone(keys: string[]): void {
    for (const k of keys) for (const p of this.n.s.loads.values()) if (tallyGone(p, k)) p.finish();
  }

  /**
   * A finished load is remembered as long as a responder may still hold a copy in transfer for it, so that a late
   * 'found' is committed (removed) or given back rather than left to come back on its own as a second copy.
   */
  private forgetLoadLater(req: string): void {
    const s = this.n.s;
    s.after(s.o.transferTimeoutMs + s.o.loadTimeoutMs, () => s.doneLoads.delete(req));
  }
}
