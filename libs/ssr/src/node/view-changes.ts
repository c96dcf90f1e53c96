import { ConsistentHashRouter } from '../consistent-hash';
import { buddyOf, memberKey, type MembershipEvent } from '../membership';
import type { NodeParts } from './node-parts';
import { tellsRejoined } from './repair-rules';
import { buddyChange } from './replication-rules';

/**
 * Membership events (1.3 GMS, 2.8, 2.11): a suspicion stops the loads waiting for the member; a reshape moves the
 * ring (homes and buddy), starts the replica timers of the gone owners, resets the expat list, repairs the new buddy
 * and purges the old one, and sends this instance's expat lists.
 */
export class ViewChanges {
  constructor(private readonly n: NodeParts) {}

  handle(events: MembershipEvent[]): void {
    const s = this.n.s;
    for (const ev of events) {
      if (ev.type === 'suspect') {
        s.log?.warn({ member: ev.member.name }, 'member suspected (temporary failure)');
        this.n.loads.memberSuspected(memberKey(ev.member));
        continue;
      }
      if (ev.type === 'unsuspect') continue;
      this.onView(ev);
    }
  }

  private onView(ev: Extract<MembershipEvent, { type: 'view' }>): void {
    const s = this.n.s;
    const now = s.clock.now();
    s.lastViewAt = now;
    s.view = ev.view;
    s.router = new ConsistentHashRouter(ev.view.members.map((m) => m.name));
    s.expat.newView(ev.view.id);
    s.log?.info({ view: s.describeView(), joined: ev.joined.map((m) => m.name), failed: ev.failed.map((m) => m.name), left: ev.left.map((m) => m.name) }, 'reshape');
    const gone = [...ev.failed, ...ev.left].map(memberKey);
    for (const k of gone) s.ownerGoneAt.set(k, now);
    this.n.loads.membersGone(gone);
    if (gone.length) {
      const set = new Set(gone);
      for (const e of s.replica.values()) if (set.has(e.a.owner)) this.n.timers.armReplica(e);
    }
    // every other member failed at once: most likely this instance stalled (its timers ran before the heartbeats
    // waiting for it), so it is the one the others declared failed, not the reverse
    if (ev.failed.length && ev.view.members.length === 1) s.aloneAt = now;
    for (const m of ev.joined) {
      const k = memberKey(m);
      if (tellsRejoined(s.ownerGoneAt.has(k), now, s.aloneAt, s.o.failAfterMs)) s.sendTo(k, { t: 'rejoined', from: s.key, to: k });
      s.ownerGoneAt.delete(k);
    }
    const nb = buddyOf(ev.view, s.name);
    const change = buddyChange(s.buddy, nb, { repairUnderLoad: s.o.repairUnderLoad, replication: s.o.replication, ready: s.ready });
    if (change.changed) this.n.replication.buddyChanged(nb, change);
    this.n.expat.send();
  }
}
