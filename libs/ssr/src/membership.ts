import { hashKey } from './artifact';

/**
 * Group membership (the GMS of 1.3) as a pure state machine over heartbeats: each instance publishes a heartbeat
 * every `heartbeatMs`; one silent for `suspectAfterMs` is suspected (a *temporary failure*, 1.3 / 2.8: still in the
 * view, its range is not re-routed, replica timers do not fire), one silent for `failAfterMs` has *failed
 * permanently* and leaves the view (a reshape, 2.11). A planned leave (heartbeat state "leaving", 2.15) reshapes at
 * once. A restarted instance comes back under the same name with a new incarnation: its caches are empty, so the
 * old incarnation is treated as failed and the new one as joined, in one reshape.
 *
 * The ring order is the members sorted by name: every instance that sees the same set computes the same ring, and
 * the view id is a digest of it, so instances can tell whether they agree.
 */
export interface Member {
  name: string;
  incarnation: string;
}

export const memberKey = (m: Member): string => `${m.name}:${m.incarnation}`;
export const nameOfKey = (key: string): string => key.slice(0, key.lastIndexOf(':'));

export interface View {
  id: string;
  /** Ring order (clockwise): each member replicates to the next (1.3 "Replication partner"). */
  members: readonly Member[];
}

export type MembershipEvent =
  | { type: 'suspect'; member: Member }
  | { type: 'unsuspect'; member: Member }
  | { type: 'view'; view: View; joined: Member[]; failed: Member[]; left: Member[] };

export interface MembershipOptions {
  suspectAfterMs: number;
  failAfterMs: number;
}

interface Peer {
  member: Member;
  lastSeen: number;
  suspected: boolean;
}

export function makeView(members: Member[]): View {
  const sorted = [...members].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { id: hashKey(sorted.map(memberKey).join(',')).toString(16), members: sorted };
}

export class Membership {
  private held = false;
  private readonly peers = new Map<string, Peer>(); // by name
  private current: View;

  constructor(
    private readonly self: Member | undefined,
    private readonly opts: MembershipOptions,
    now: number,
  ) {
    if (opts.failAfterMs <= opts.suspectAfterMs) throw new Error('failAfterMs must exceed suspectAfterMs');
    if (self) this.peers.set(self.name, { member: self, lastSeen: now, suspected: false });
    this.current = makeView(self ? [self] : []);
  }

  get view(): View {
    return this.current;
  }

  /** A heartbeat (or any message) from `m`. */
  heard(m: Member, state: 'up' | 'leaving', now: number): MembershipEvent[] {
    if (this.self && m.name === this.self.name) return [];
    const p = this.peers.get(m.name);
    if (state === 'leaving') {
      if (!p || p.member.incarnation !== m.incarnation) return [];
      this.peers.delete(m.name);
      return [this.reshape([], [], [m])];
    }
    if (!p) {
      this.peers.set(m.name, { member: m, lastSeen: now, suspected: false });
      return [this.reshape([m], [], [])];
    }
    if (p.member.incarnation !== m.incarnation) {
      const old = p.member;
      this.peers.set(m.name, { member: m, lastSeen: now, suspected: false });
      return [this.reshape([m], [old], [])];
    }
    p.lastSeen = now;
    if (p.suspected) {
      p.suspected = false;
      return [{ type: 'unsuspect', member: m }];
    }
    return [];
  }

  /**
   * Our own link is down (the bus reconnecting): silence is ours, so nobody fails permanently until `release` (they
   * may be suspected: a temporary failure changes no view).
   */
  hold(): void {
    this.held = true;
  }

  /** The link is back: every peer's silence starts over from now, a full failAfterMs to be heard of again. */
  release(now: number): void {
    if (!this.held) return;
    this.held = false;
    for (const p of this.peers.values()) p.lastSeen = Math.max(p.lastSeen, now);
  }

  /** Called periodically: suspicion, then permanent failure. */
  tick(now: number): MembershipEvent[] {
    const out: MembershipEvent[] = [];
    const failed: Member[] = [];
    for (const [name, p] of this.peers) {
      if (this.self && name === this.self.name) continue;
      const silent = now - p.lastSeen;
      if (silent >= this.opts.failAfterMs && !this.held) {
        this.peers.delete(name);
        failed.push(p.member);
      } else if (silent >= this.opts.suspectAfterMs && !p.suspected) {
        p.suspected = true;
        out.push({ type: 'suspect', member: p.member });
      }
    }
    if (failed.length) out.push(this.reshape([], failed, []));
    return out;
  }

  isSuspected(name: string): boolean {
    return this.peers.get(name)?.suspected ?? false;
  }

  private reshape(joined: Member[], failed: Member[], left: Member[]): MembershipEvent {
    this.current = makeView([...this.peers.values()].map((p) => p.member));
    return { type: 'view', view: this.current, joined, failed, left };
  }
}

/** The replication partner of `name`: the next member clockwise (1.3), or undefined when alone. */
export function buddyOf(view: View, name: string): Member | undefined {
  const i = view.members.findIndex((m) => m.name === name);
  if (i < 0 || view.members.length < 2) return undefined;
  return view.members[(i + 1) % view.members.length];
}

/** The active partner (replication source) of `name`: the next member counter-clockwise (1.3). */
export function sourceOf(view: View, name: string): Member | undefined {
  const i = view.members.findIndex((m) => m.name === name);
  if (i < 0 || view.members.length < 2) return undefined;
  return view.members[(i - 1 + view.members.length) % view.members.length];
}
