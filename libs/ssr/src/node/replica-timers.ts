import type { Artifact } from '../artifact';
import type { ActiveEntry, ReplicaEntry } from '../caches';
import { memberKey } from '../membership';
import type { SsrMessage } from '../messages';
import type { NodeParts } from './node-parts';
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
  type AdvisoryOutcome,
} from './replica-timer-rules';
import { waitsForAck } from './replication-rules';
import { firedArtifact } from './versions';

/**
 * Timers (2.14, 2.14.1) on the Clock: the active copy's timer fires there, recorded and acknowledged by the buddy
 * before onFire runs; a replica whose owner is gone expires and sends a load advisory to the home, which reactivates
 * the artifact or tells the replica to go. The decisions are replica-timer-rules.ts.
 */
export class ReplicaTimers {
  constructor(private readonly n: NodeParts) {}

  armActive(e: ActiveEntry): void {
    const s = this.n.s;
    if (e.timer) s.clock.clearTimeout(e.timer);
    delete e.timer;
    const delay = activeTimerDelay(e.a, s.clock.now(), s.ready && !s.stopped);
    if (delay === undefined) return;
    const id = e.a.id;
    e.timer = s.clock.setTimeout(() => void this.fireActive(id), delay);
  }

  /**
   * A timer fires on the active copy. The firing is recorded (nextFire cleared, new version) and acknowledged by the
   * buddy before onFire runs, so a failure of this instance afterwards cannot make the replica fire it again.
   */
  private async fireActive(id: string): Promise<void> {
    const s = this.n.s;
    let fired: Artifact | undefined;
    try {
      await s.withIdLock(id, async () => {
        const e = s.active.get(id);
        const step = activeFiring(e, s.clock.now());
        if (step === 'skip' || !e) return;
        if (step === 'rearm') return this.armActive(e);
        const a = firedArtifact(e.a, s.clock.now());
        s.active.set({ a, suspect: false });
        await this.n.replication.replicate([a], waitsForAck('fire', s.o.waitForAck));
        fired = a;
      });
    } catch (err) {
      s.log?.warn({ err, id }, 'timer firing failed');
      return;
    }
    if (!fired) return;
    s.counters.fired++;
    try {
      await s.o.onFire?.(fired);
    } catch (err) {
      s.log?.warn({ err, id }, 'onFire handler failed');
    }
  }

  /** Arms a replica's timer while its owner is gone (2.14): see replicaDueAt. */
  armReplica(e: ReplicaEntry): void {
    const s = this.n.s;
    if (e.timer) s.clock.clearTimeout(e.timer);
    delete e.timer;
    if (!replicaTimerRuns(e, s.isMember(e.a.owner), s.stopped)) return;
    const due = replicaDueAt(e.a, s.ownerGoneAt.get(e.a.owner), s.clock.now(), s.o);
    if (due === undefined) return;
    const id = e.a.id;
    e.timer = s.clock.setTimeout(() => void this.replicaDue(id), Math.max(0, due - s.clock.now()));
  }

  /** The replica's timer expired with its owner gone: a load advisory to the home instance (2.14). */
  private async replicaDue(id: string): Promise<void> {
    const s = this.n.s;
    const e = s.replica.get(id);
    if (!e || s.stopped) return;
    delete e.timer;
    const step = replicaExpiry(e, { ownerIsMember: s.isMember(e.a.owner), home: s.router.home(e.a.homeHash), selfName: s.name, view: s.view });
    if (step.kind === 'ignore') return;
    if (step.kind === 'wait-transfer') {
      e.timer = s.clock.setTimeout(() => void this.replicaDue(id), s.o.transferTimeoutMs);
      return;
    }
    let outcome: AdvisoryOutcome = 'retry';
    if (step.kind === 'advise-self') outcome = await this.handleAdvisory(id, e.a.version);
    else if (step.kind === 'advise') {
      const to = memberKey(step.home);
      const req = s.nextReq('adv.');
      const r = await s.rpc(to, req, { t: 'adv', from: s.key, to, req, id, version: e.a.version }, s.o.loadTimeoutMs * 3);
      outcome = r?.t === 'advr' ? r.outcome : 'retry';
    }
    if (dropsReplicaAfterAdvisory(outcome, e.a, s.replica.get(id))) s.dropReplica(id);
    const left = s.replica.get(id);
    if (left && needsOrphanTimer(left, s.isMember(left.a.owner))) left.timer = s.clock.setTimeout(() => void this.replicaDue(id), s.o.graceMs);
  }

  onAdvisory(m: Extract<SsrMessage, { t: 'adv' }>): void {
    const s = this.n.s;
    void this.handleAdvisory(m.id, m.version).then((outcome) => s.sendTo(m.from, { t: 'advr', from: s.key, to: m.from, req: m.req, outcome }));
  }

  /** On the home: see advisoryOnHome. */
  private async handleAdvisory(id: string, version: number): Promise<AdvisoryOutcome> {
    const s = this.n.s;
    s.counters.advisories++;
    if (!acceptsAdvisory(s.ready, s.quiescing)) return 'retry';
    try {
      return await s.withIdLock(id, async () => {
        const e = s.active.get(id);
        const step = advisoryOnHome(e, version);
        if (step === 'settle-by-load' && e) {
          s.log?.warn({ id, here: e.a.version, advised: version }, 'advising replica newer than the active copy here: settled by a load');
          e.suspect = true;
          try {
            const got = await this.n.loads.find(id, 'get');
            return got ? 'taken' : 'drop';
          } finally {
            const now = s.active.get(id);
            if (now === e && e.suspect) {
              e.suspect = false;
              this.armActive(e);
            }
          }
        }
        if (step === 'keep-active' && e) {
          // the advising replica goes; make sure the buddy holds a replica under this incarnation (the advising
          // one may have been it, under a former incarnation of this instance)
          e.a.owner = s.key;
          await this.n.replication.replicate([e.a], waitsForAck('advisory-keep', s.o.waitForAck));
          return 'drop';
        }
        const got = await this.n.loads.find(id, 'get');
        return got ? 'taken' : 'drop';
      });
    } catch {
      return 'retry';
    }
  }
}
