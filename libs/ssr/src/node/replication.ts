import type { Artifact } from '../artifact';
import type { ActiveEntry, ReplicaEntry } from '../caches';
import { memberKey, type Member } from '../membership';
import type { SsrMessage } from '../messages';
import type { NodeParts } from './node-parts';
import { acceptsRemove, acceptsReplica, applySlot, bodyBytes, inBatches, purgeVictims, resendPlan, waitsForAck, type BuddyChange } from './replication-rules';
import { slotItem } from './versions';

/**
 * Replication to the buddy (2.7, 2.12) and its receiving side: full objects ('rep'), removals ('rm'), slots
 * ('slot'), each acknowledged by sequence number; resending what is not acknowledged; purge of a former buddy and
 * repair-under-load of a new one (2.17, 2.19, 2.22.2.1).
 */
export class Replication {
  constructor(private readonly n: NodeParts) {}

  replicate(items: Artifact[], wait: boolean): Promise<boolean> {
    const s = this.n.s;
    const b = s.buddy;
    if (!b || items.length === 0 || !s.o.replication) return Promise.resolve(false);
    const seq = ++s.seqOut;
    s.o.transport.send(b.name, { t: 'rep', from: s.key, to: memberKey(b), seq, items });
    s.unacked.push({ seq, at: s.clock.now(), ids: items.map((a) => a.id) });
    return wait ? this.waitAck(seq) : Promise.resolve(true);
  }

  sendRemove(ids: string[], wait: boolean): Promise<boolean> {
    const s = this.n.s;
    const b = s.buddy;
    if (!b || !s.o.replication) return Promise.resolve(false);
    const seq = ++s.seqOut;
    s.o.transport.send(b.name, { t: 'rm', from: s.key, to: memberKey(b), seq, ids });
    return wait ? this.waitAck(seq) : Promise.resolve(true);
  }

  /** The externalized slots only (2.4.2.2): no new version, no body on the wire. */
  async sendSlots(a: Artifact, wait: boolean): Promise<void> {
    const s = this.n.s;
    const b = s.buddy;
    if (!b || !s.o.replication) return;
    const seq = ++s.seqOut;
    s.o.transport.send(b.name, { t: 'slot', from: s.key, to: memberKey(b), seq, items: [slotItem(a)] });
    if (wait) await this.waitAck(seq);
  }

  /** Resolves once the buddy acknowledged everything sent so far (or after ackTimeoutMs). */
  flush(): Promise<boolean> {
    const s = this.n.s;
    if (!s.buddy || s.acked >= s.seqOut) return Promise.resolve(true);
    return this.waitAck(s.seqOut);
  }

  /** See resendPlan: what the buddy has not acknowledged in time goes again, at its current version. */
  resendUnacked(): void {
    const s = this.n.s;
    const plan = resendPlan(s.unacked, s.acked, s.clock.now(), s.o.ackTimeoutMs, !!s.buddy);
    s.unacked = plan.keep;
    if (!plan.resend || !s.buddy) return;
    const items = plan.resend
      .map((id) => s.active.get(id))
      .filter((e): e is ActiveEntry => !!e && !e.suspect && !e.transfer)
      .map((e) => e.a);
    s.log?.warn({ buddy: s.buddy.name, artifacts: items.length }, 'replication not acknowledged in time; sent again');
    for (const batch of inBatches(items, s.o.repairBatch, bodyBytes, s.o.repairBatchBytes)) void this.replicate(batch, waitsForAck('resend', s.o.waitForAck));
  }

  private waitAck(seq: number): Promise<boolean> {
    const s = this.n.s;
    if (s.acked >= seq) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = s.clock.setTimeout(() => {
        s.ackWaiters = s.ackWaiters.filter((w) => w.timer !== timer);
        resolve(false);
      }, s.o.ackTimeoutMs);
      s.ackWaiters.push({ seq, resolve, timer });
    });
  }

  /** Every waiter resolves false (a new buddy, or the instance stops). */
  abandonWaiters(): void {
    const s = this.n.s;
    for (const w of s.ackWaiters.splice(0)) {
      s.clock.clearTimeout(w.timer);
      w.resolve(false);
    }
  }

  onAck(m: Extract<SsrMessage, { t: 'ack' }>): void {
    const s = this.n.s;
    if (!s.buddy || m.from !== memberKey(s.buddy)) return;
    if (m.seq > s.acked) s.acked = m.seq;
    const done = s.ackWaiters.filter((w) => w.seq <= s.acked);
    if (!done.length) return;
    s.ackWaiters = s.ackWaiters.filter((w) => w.seq > s.acked);
    for (const w of done) {
      s.clock.clearTimeout(w.timer);
      w.resolve(true);
    }
  }

  onReplicate(m: Extract<SsrMessage, { t: 'rep' }>): void {
    const s = this.n.s;
    for (const a of m.items) {
      const old = s.replica.get(a.id);
      if (!acceptsReplica(old, a)) continue;
      if (old?.timer) s.clock.clearTimeout(old.timer);
      const e: ReplicaEntry = { a, suspect: false, seq: m.seq };
      s.replica.set(e);
      this.n.timers.armReplica(e);
    }
    s.sendTo(m.from, { t: 'ack', from: s.key, to: m.from, seq: m.seq });
  }

  onRemove(m: Extract<SsrMessage, { t: 'rm' }>): void {
    const s = this.n.s;
    for (const id of m.ids) if (acceptsRemove(s.replica.get(id), m.from)) s.dropReplica(id);
    s.sendTo(m.from, { t: 'ack', from: s.key, to: m.from, seq: m.seq });
  }

  onSlot(m: Extract<SsrMessage, { t: 'slot' }>): void {
    const s = this.n.s;
    for (const item of m.items) {
      const r = s.replica.get(item.id);
      if (applySlot(r, item)) this.n.timers.armReplica(r);
    }
    s.sendTo(m.from, { t: 'ack', from: s.key, to: m.from, seq: m.seq });
  }

  /** 2.17 / 2.19: tells a former buddy (if still a member) to drop the replicas sent to it so far (see purgeVictims). */
  sendPurge(old: Member): void {
    const s = this.n.s;
    if (!s.view.members.some((m) => memberKey(m) === memberKey(old))) return;
    s.sendTo(memberKey(old), { t: 'purge', from: s.key, to: memberKey(old), owner: s.key, beforeSeq: s.seqOut + 1 });
  }

  onPurge(m: Extract<SsrMessage, { t: 'purge' }>): void {
    const s = this.n.s;
    const ids = purgeVictims(s.replica.values(), m.owner, m.beforeSeq);
    for (const id of ids) s.dropReplica(id);
    s.counters.purged += ids.length;
    s.log?.info({ owner: m.owner, purged: ids.length }, 'stale replicas purged');
  }

  /** 2.22.1.2 triggerReplication: the source replicates the ids its buddy asks for. */
  onPull(m: Extract<SsrMessage, { t: 'pull' }>): void {
    const s = this.n.s;
    const items = m.ids
      .map((id) => s.active.get(id))
      .filter((e): e is ActiveEntry => !!e && !e.suspect)
      .map((e) => e.a);
    for (const batch of inBatches(items, s.o.repairBatch, bodyBytes, s.o.repairBatchBytes)) void this.replicate(batch, waitsForAck('pull', s.o.waitForAck));
  }

  /** A reshape changed the buddy: acknowledgements start over; repair the new one and purge the old (buddyChange). */
  buddyChanged(nb: Member | undefined, change: Extract<BuddyChange, { changed: true }>): void {
    const s = this.n.s;
    s.buddy = nb;
    s.acked = s.seqOut;
    s.unacked = [];
    this.abandonWaiters();
    if (change.repairTo) void this.repairTo(change.repairTo, change.purge);
    else if (change.purge) this.sendPurge(change.purge);
  }

  /** 2.22.2.1 repair-under-load: the whole active cache to the new buddy, then purge of the old buddy (2.19). */
  private async repairTo(nb: Member, old: Member | undefined): Promise<void> {
    const s = this.n.s;
    s.repairs++;
    try {
      const all = [...s.active.values()].filter((e) => !e.suspect).map((e) => e.a);
      for (const chunk of inBatches(all, s.o.repairBatch, bodyBytes, s.o.repairBatchBytes)) {
        if (s.buddy?.name !== nb.name || s.stopped) return;
        const batch = chunk.filter((a) => s.active.get(a.id)?.a === a);
        if (batch.length && !(await this.replicate(batch, waitsForAck('repair', s.o.waitForAck)))) s.log?.warn({ buddy: nb.name }, 'repair batch not acknowledged');
      }
      s.counters.repaired += all.length;
      // the buddy may have changed while the last batch waited for its acknowledgement (the new buddy failed, say,
      // and the old one is the buddy again, with a repair of its own already on the wire): purging it now would
      // drop the replicas that repair just sent, leaving one copy of everything this instance holds
      if (s.stopped || !s.buddy || memberKey(s.buddy) !== memberKey(nb)) return;
      if (old) this.sendPurge(old);
    } finally {
      s.repairs--;
    }
  }
}
