import type { SsrMessage } from '../messages';
import { answerLoad, planCommit } from './load-rules';
import type { NodeParts } from './node-parts';
import { isHomeHere } from './placement';

/**
 * The answering side of load requests (2.13, 2.18): copies found are held in transfer until the requester commits
 * (removes them here) or gives them back; a transfer nobody commits comes back by itself after transferTimeoutMs.
 */
export class LoadAnswers {
  constructor(private readonly n: NodeParts) {}

  onLoad(m: Extract<SsrMessage, { t: 'load' }>): void {
    const s = this.n.s;
    const ans = answerLoad(m, {
      active: s.active,
      replica: s.replica,
      locked: (id) => s.idLocks.has(id),
      arriving: (id) => s.isArriving(id),
      reloadUnsorted: s.reloadUnsorted,
    });
    const viewId = s.view.id;
    if (ans.result === 'busy') {
      s.sendTo(m.from, { t: 'loadr', from: s.key, to: m.from, req: m.req, result: 'busy', viewId });
      return;
    }
    const items = ans.result === 'found' ? ans.entries.map((e) => e.a) : [];
    if (ans.result === 'found') {
      const until = s.clock.now() + s.o.transferTimeoutMs;
      for (const e of ans.entries) e.transfer = { req: m.req, until };
      s.transfers.set(m.req, { ids: [...new Set(items.map((a) => a.id))], until });
    }
    s.log?.debug({ req: m.req, id: m.id, parent: m.parentId, found: items.map((a) => `${a.id}@${a.version}`).slice(0, 4) }, 'load answered');
    s.sendTo(
      m.from,
      items.length ? { t: 'loadr', from: s.key, to: m.from, req: m.req, result: 'found', items, viewId } : { t: 'loadr', from: s.key, to: m.from, req: m.req, result: 'nack', viewId },
    );
  }

  onCommit(m: Extract<SsrMessage, { t: 'commit' }>): void {
    const s = this.n.s;
    const t = s.transfers.get(m.req);
    if (!t) {
      if (m.from) s.log?.debug({ req: m.req, remove: m.remove }, 'commit for an unknown transfer');
      return;
    }
    s.log?.debug({ req: m.req, remove: m.remove, ids: t.ids.slice(0, 4) }, 'commit');
    s.transfers.delete(m.req);
    const plan = planCommit(t.ids, m.req, m.remove, {
      active: s.active,
      replica: s.replica,
      isHome: (a) => isHomeHere(s.router, a, s.name),
      expatVersion: (id) => s.expat.version(id),
    });
    for (const id of plan.dropActive) s.dropActive(id);
    for (const e of plan.release) delete e.transfer;
    for (const id of plan.dropReplica) s.dropReplica(id);
    for (const [id, version] of plan.expat) s.expat.takenElsewhere(id, version);
  }

  /** Transfers whose requester never committed come back (given back, as a commit with remove: false). */
  sweepTransfers(): void {
    const s = this.n.s;
    const now = s.clock.now();
    for (const [req, t] of s.transfers) {
      if (t.until > now) continue;
      this.onCommit({ t: 'commit', from: '', to: s.key, req, remove: false });
    }
  }
}
