import type { Artifact } from '../artifact';
import type { ActiveEntry } from '../caches';
import type { NodeParts } from './node-parts';
import { waitsForAck } from './replication-rules';
import { childLoadStep, orphanStep } from './tree-rules';

/**
 * Reactivation and migration (1.3, 2.12, 2.13): a loaded copy becomes the active one here, is replicated to the
 * buddy, and brings its tree along (2.4.2.5: a root loads its children; a child makes sure of its parent, 2.14.1).
 */
export class Activation {
  constructor(private readonly n: NodeParts) {}

  /** Makes a loaded copy active here (reactivation or migration): this instance owns it now and replicates it. */
  async activate(a: Artifact): Promise<ActiveEntry> {
    const s = this.n.s;
    const old = s.active.get(a.id);
    if (old?.timer) s.clock.clearTimeout(old.timer);
    s.log?.debug({ id: a.id, version: a.version, from: a.owner }, 'activated from a load');
    a.owner = s.key;
    const e: ActiveEntry = { a, suspect: false };
    s.active.set(e);
    s.arriving.delete(a.id);
    s.dropOwnReplica(a.id);
    s.expat.forget(a.id);
    s.counters.reactivated++;
    // the loaded copies were removed everywhere: replicate now, or the artifact has one copy until its next change
    await this.n.replication.replicate([a], waitsForAck('activate', s.o.waitForAck));
    this.n.timers.armActive(e);
    if (a.depth === 0) this.startChildLoad(a.id);
    else if (a.parentId !== undefined && !s.active.has(a.parentId)) void this.ensureParent(a);
    return e;
  }

  private startChildLoad(parentId: string): void {
    const s = this.n.s;
    const p = this.loadChildren(parentId).finally(() => {
      if (s.childLoads.get(parentId) === p) s.childLoads.delete(parentId);
    });
    s.childLoads.set(parentId, p);
  }

  private async loadChildren(parentId: string): Promise<void> {
    const s = this.n.s;
    try {
      const r = await this.n.loads.load({ parentId });
      // all children become active in this turn (activate sets the entry before it waits for the buddy): the load
      // has removed them everywhere else, so a find for one of them must not meet an instant with no copy
      await Promise.all(
        r.items.map((c) => {
          const mine = s.active.get(c.id);
          if (childLoadStep(mine, c.version) === 'activate' || !mine) return this.activate(c);
          // already active here: the load removed its replica on the buddy too, so replicate it again
          s.arriving.delete(c.id);
          return this.n.replication.replicate([mine.a], waitsForAck('children', s.o.waitForAck));
        }),
      );
    } catch (err) {
      s.log?.debug({ err, parentId }, 'children load failed; they come with their own timers or traffic');
    }
  }

  /** 2.14.1: no child outlives its parent (see orphanStep). */
  private async ensureParent(child: Artifact, second = false): Promise<void> {
    const s = this.n.s;
    const pid = child.parentId as string;
    try {
      const p = await s.withIdLock(pid, () => this.n.loads.find(pid, 'get'));
      const step = orphanStep(!!p, second);
      if (step === 'check-again') s.after(s.o.graceMs, () => void this.ensureParent(child, true));
      if (step !== 'remove') return;
      await s.withIdLock(child.id, async () => {
        if (!s.active.has(child.id)) return;
        s.dropActive(child.id);
        await this.n.replication.sendRemove([child.id], waitsForAck('orphan', s.o.waitForAck));
      });
      s.log?.info({ id: child.id, parent: pid }, 'orphan child removed');
    } catch {
      /* busy / unavailable: the parent is somewhere; leave the child */
    }
  }
}
