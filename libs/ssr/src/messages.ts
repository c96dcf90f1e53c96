import type { Artifact } from './artifact';
import type { Member } from './membership';

/**
 * Every message between SSR instances. `from` / `to` are member keys (name:incarnation): a message addressed to an
 * older incarnation of a restarted instance is dropped by the new one. Direct messages travel on the target's
 * subject, `hb` and `load` are broadcast (subjects.ts).
 */
export type IdVersion = [id: string, version: number];

export type SsrMessage =
  /** membership heartbeat (1.3 GMS) */
  | { t: 'hb'; from: Member; state: 'up' | 'leaving' }
  /** replication to the buddy (2.7): full objects; `seq` is acknowledged by `ack` */
  | { t: 'rep'; from: string; to: string; seq: number; items: Artifact[] }
  /** removal of replicas on the buddy (no zombies, 2.2.2) */
  | { t: 'rm'; from: string; to: string; seq: number; ids: string[] }
  /** externalized slots only (2.4.2.2) */
  | { t: 'slot'; from: string; to: string; seq: number; items: { id: string; version: number; lastAccess: number; nextFire?: number }[] }
  | { t: 'ack'; from: string; to: string; seq: number }
  /** load request, broadcast (2.13): by id (version-aware when minVersion is set) or all children of a parent */
  | { t: 'load'; from: string; req: string; id?: string; parentId?: string; minVersion?: number; viewId?: string }
  /**
   * one answer per instance: negative acknowledgement, busy (2.18.1), or the copies found (now held in transfer);
   * `viewId` is the answering instance's view (the requester takes nothing from an answer made in another view)
   */
  | { t: 'loadr'; from: string; to: string; req: string; result: 'nack' | 'busy' | 'found'; items?: Artifact[]; viewId?: string }
  /** second step of the load (2.18 "not removed until the reception is acknowledged"): remove (commit) or keep */
  | { t: 'commit'; from: string; to: string; req: string; remove: boolean }
  /** expat list for the home instance `to` after a reshape (2.13 "find vs create") */
  | { t: 'expat'; from: string; to: string; viewId: string; items: IdVersion[] }
  /** load advisory from a replica whose timer expired (2.14); answer drop = the home holds it, remove the replica */
  | { t: 'adv'; from: string; to: string; req: string; id: string; version: number }
  | { t: 'advr'; from: string; to: string; req: string; outcome: 'drop' | 'taken' | 'retry' }
  /**
   * purge of stale replicas on the former buddy (2.17, 2.19): those of `owner` written by its replication messages
   * with a sequence number below `beforeSeq` (absent: all of them, as senders before it was added did)
   */
  | { t: 'purge'; from: string; to: string; owner: string; beforeSeq?: number }
  /** repair after reload (2.22.1): the version list of the buddy's replicas owned by `from`'s name, or of the source's actives */
  | { t: 'vlist'; from: string; to: string; req: string; kind: 'replicas-of-mine' | 'actives' }
  | { t: 'vlistr'; from: string; to: string; req: string; items: IdVersion[] }
  /** targeted replication request (2.22.1.2 triggerReplication) */
  | { t: 'pull'; from: string; to: string; ids: string[] }
  /**
   * to a member heard again under the same incarnation after `from` had declared it failed (a stall or a network
   * split, not a restart): its artifacts may have been reactivated elsewhere meanwhile, so it settles its own copies
   */
  | { t: 'rejoined'; from: string; to: string };

export type MessageType = SsrMessage['t'];
const TYPES = new Set<string>(['hb', 'rep', 'rm', 'slot', 'ack', 'load', 'loadr', 'commit', 'expat', 'adv', 'advr', 'purge', 'vlist', 'vlistr', 'pull', 'rejoined']);

/** Minimal shape check of a message from the network (the sender is another instance, but the bus is shared). */
export function isSsrMessage(v: unknown): v is SsrMessage {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  if (typeof m['t'] !== 'string' || !TYPES.has(m['t'])) return false;
  if (m['t'] === 'hb') {
    const f = m['from'] as Record<string, unknown> | undefined;
    return typeof f === 'object' && f !== null && typeof f['name'] === 'string' && typeof f['incarnation'] === 'string';
  }
  return typeof m['from'] === 'string';
}
