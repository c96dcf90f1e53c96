import { retry } from '@esp/timers';
import type { Artifact } from '../artifact';
import { SsrBusy, SsrUnavailable } from '../errors';
import { buddyOf, memberKey, nameOfKey, sourceOf, type Member } from '../membership';
import type { IdVersion, SsrMessage } from '../messages';
import type { NodeParts } from './node-parts';
import { missingOnBuddy, sortReloadedActives, sortReloadedReplicas, versionListOf } from './repair-rules';
import { bodyBytes, inBatches, waitsForAck } from './replication-rules';

/** Reloaded copies settled by a load this many at a time. */
const SETTLE_CONCURRENCY = 16;

/**
 * Repair from the partners (2.22.1) after a reload from disk, or after this instance was declared failed while
 * alive (2.9, 2.10 in the small); and the check before a save (2.16). The sorting is repair-rules.ts.
 */
export class Repair {
  constructor(private readonly n: NodeParts) {}

  /**
   * 2.22.1.1: an active copy reloaded from disk stays only if the buddy still holds our replica of it (else it was
   * reactivated elsewhere or removed meanwhile). 2.22.1.2: a replica stays only if the source still has it active;
   * newer or missing ones are pulled from the source.
   */
  async fromPartners(): Promise<void> {
    const s = this.n.s;
    s.repairs++;
    try {
      const b = buddyOf(s.view, s.name);
      const confirmed: Artifact[] = [];
      if (b) {
        // asked again if it does not come: without it the reloaded copies cannot be told from deleted ones
        const list = await this.listWithRetries(b);
        if (list) {
          const { check, drop } = sortReloadedActives([...s.active.values()], list);
          for (const a of drop) s.dropActive(a.id);
          s.reloadUnsorted = false;
          const dropped = drop.map((a) => `${a.id}@${a.version}`);
          s.log?.info({ kept: check.length, dropped: dropped.length, ids: dropped.slice(0, 20) }, 'reloaded active copies the buddy holds no replica of were dropped');
          // what the buddy still holds is settled by a load request per artifact, as an access to a suspect copy
          // would (2.22.1.1): the highest version anywhere wins and every other copy goes, so a stale duplicate
          // that the buddy's list happens to match cannot come back as the active copy
          await this.settleByLoads(check);
        }
      } else {
        for (const e of s.active.values()) {
          if (!e.suspect) continue;
          e.suspect = false;
          confirmed.push(e.a);
          this.n.timers.armActive(e);
        }
      }
      // no buddy, or no list from it: the copies stay suspect and every access settles its id by a load
      s.reloadUnsorted = false;
      for (const batch of inBatches(confirmed, s.o.repairBatch, bodyBytes, s.o.repairBatchBytes)) await this.n.replication.replicate(batch, waitsForAck('repair', s.o.waitForAck));
      const src = sourceOf(s.view, s.name);
      if (src) {
        const list = await this.versionList(src, 'actives');
        if (list) {
          const { drop, confirm, pull } = sortReloadedReplicas([...s.replica.values()], list, src, (id) => s.replica.has(id));
          for (const id of drop) s.dropReplica(id);
          for (const e of confirm) {
            e.suspect = false;
            e.a.owner = memberKey(src);
            this.n.timers.armReplica(e);
          }
          if (pull.length) s.sendTo(memberKey(src), { t: 'pull', from: s.key, to: memberKey(src), ids: pull });
        }
      } else {
        for (const e of [...s.replica.values()]) if (e.suspect) s.dropReplica(e.a.id);
      }
      this.n.expat.send();
      s.log?.info({ active: s.active.size, replica: s.replica.size }, 'repair from partners done');
    } finally {
      s.repairs--;
    }
  }

  /** Up to five rounds, a load timeout apart: what is busy or unavailable in one round is tried in the next. */
  private async settleByLoads(ids: string[]): Promise<void> {
    const s = this.n.s;
    let check = ids;
    await retry(
      async () => {
        if (!check.length || s.stopped) return;
        let next = 0;
        const worker = async (): Promise<void> => {
          while (next < check.length && !s.stopped) {
            const id = check[next++] as string;
            try {
              await s.withIdLock(id, () => this.n.loads.find(id, 'get'));
            } catch {
              /* busy or unavailable: tried again next round (and any access loads it meanwhile) */
            }
          }
        };
        await Promise.all(Array.from({ length: SETTLE_CONCURRENCY }, worker));
        check = check.filter((id) => s.active.get(id)?.suspect);
        if (check.length && !s.stopped) throw new SsrBusy(`${check.length} reloaded copies not settled yet`);
      },
      { attempts: 5, initialMs: s.o.loadTimeoutMs, maxMs: s.o.loadTimeoutMs, clock: s.clock },
    ).catch(() => undefined);
  }

  /** The buddy's list of our replicas, asked up to three times. */
  private listWithRetries(b: Member): Promise<IdVersion[] | undefined> {
    const s = this.n.s;
    return retry(
      async () => {
        const list = s.stopped ? undefined : await this.versionList(b, 'replicas-of-mine');
        if (!list) throw new SsrUnavailable(`no version list from ${b.name}`);
        return list;
      },
      { attempts: 3, initialMs: 0, maxMs: 0, clock: s.clock, retryable: () => !s.stopped },
    ).catch(() => undefined);
  }

  /**
   * Before a save (2.16, 2.22.1): the reload keeps an active copy only if the buddy holds our replica of it, so the
   * buddy's list is checked now and whatever it lacks (or holds at another version) is replicated again, with
   * acknowledgement. An acknowledgement alone does not prove the replica is still there when the save happens.
   */
  async confirmReplicas(): Promise<void> {
    const s = this.n.s;
    // checked again after a resend (or a change of buddy meanwhile), at most three lists in all
    await retry(
      async () => {
        const b = s.buddy;
        if (s.stopped || !s.o.replication || !b) return;
        const list = await this.versionList(b, 'replicas-of-mine');
        if (!list) return; // a silent buddy: the reload will settle what it can by loads
        if (s.buddy !== b) throw new SsrUnavailable('the buddy changed while it listed its replicas');
        const missing = missingOnBuddy(s.active.values(), list);
        if (!missing.length) return;
        s.log?.warn({ buddy: b.name, artifacts: missing.length, ids: missing.slice(0, 5).map((a) => `${a.id}@${a.version}`) }, 'quiesce: the buddy lacked replicas of active copies; sent again');
        for (const batch of inBatches(missing, s.o.repairBatch, bodyBytes, s.o.repairBatchBytes)) await this.n.replication.replicate(batch, waitsForAck('confirm', s.o.waitForAck));
        throw new SsrUnavailable(`${missing.length} replicas sent again to ${b.name}: its list is checked once more`);
      },
      { attempts: 3, initialMs: 0, maxMs: 0, clock: s.clock },
    ).catch(() => undefined);
  }

  /**
   * This instance was declared failed by another and is back without a restart (2.9, 2.10 in the small: a stall
   * longer than the failure time, or a short network split). Its artifacts may have been reactivated elsewhere while
   * it was out of the view, so its active copies are treated as if reloaded from disk (2.22.1.1): dropped unless the
   * buddy still holds a replica of them, else settled by a load, the highest version anywhere winning.
   */
  onRejoined(m: Extract<SsrMessage, { t: 'rejoined' }>): void {
    const s = this.n.s;
    if (s.resettling || !s.ready || s.quiescing) return;
    s.log?.warn({ by: nameOfKey(m.from) }, 'declared failed while alive: active copies settled again with the partners');
    s.resettling = true;
    for (const e of s.active.values()) {
      if (e.transfer) continue;
      if (e.timer) s.clock.clearTimeout(e.timer);
      delete e.timer;
      e.suspect = true;
    }
    s.reloadUnsorted = true;
    void this.fromPartners().finally(() => {
      s.resettling = false;
    });
  }

  private async versionList(m: Member, kind: 'replicas-of-mine' | 'actives'): Promise<IdVersion[] | undefined> {
    const s = this.n.s;
    const req = s.nextReq('vl.');
    const r = await s.rpc(memberKey(m), req, { t: 'vlist', from: s.key, to: memberKey(m), req, kind }, 5000);
    if (r?.t !== 'vlistr') {
      s.log?.warn({ partner: m.name, kind }, 'no version list from partner; entries stay suspect');
      return undefined;
    }
    return r.items;
  }

  onVersionList(m: Extract<SsrMessage, { t: 'vlist' }>): void {
    const s = this.n.s;
    const items = versionListOf(m.kind, nameOfKey(m.from), s.active, s.replica);
    s.sendTo(m.from, { t: 'vlistr', from: s.key, to: m.from, req: m.req, items });
  }
}
