import type { Logger } from '@esp/logging';
import type { Clock } from '@esp/timers';
import type { Artifact } from '../artifact';
import type { SsrSnapshot } from '../snapshot';
import type { SsrTransport } from '../transport';

export interface SsrNodeOptions {
  name: string;
  /** Distinguishes a restarted instance from its previous life; default: random. */
  incarnation?: string;
  transport: SsrTransport;
  clock?: Clock;
  log?: Logger;
  heartbeatMs?: number;
  /** Silence before a member is suspected (temporary failure, 2.8); default 3 heartbeats. */
  suspectAfterMs?: number;
  /** Silence before a member has failed permanently and the cluster reshapes (2.11); default 1500 ms. */
  failAfterMs?: number;
  /** Time to collect heartbeats after start before serving (so the first view is the group's); default 3 heartbeats. */
  joinSettleMs?: number;
  /**
   * Wait for the buddy's acknowledgement before put/remove resolve (default false: asynchronous replication, 2.7.1).
   * Timer firings always wait for it, so that a timer never fires twice (2.14).
   */
  waitForAck?: boolean;
  ackTimeoutMs?: number;
  /** How long a load request waits for the members that have not answered (2.13 "4 seconds"); default 1000 ms. */
  loadTimeoutMs?: number;
  /** A copy handed out by a load request comes back if the requester never commits; default 5000 ms. */
  transferTimeoutMs?: number;
  /** Replica timers fire this long after the expiry, times (1 + depth) (2.14, 2.14.1); must exceed failAfterMs. */
  graceMs?: number;
  /**
   * 2.14.1 reactivation window after a failure: every replica of the failed owner is reactivated on its home
   * between lowMs and highMs after the notification (children later than parents); items whose timer expires
   * earlier go earlier. Undefined: only timers reactivate (and traffic).
   */
  reactivation?: { lowMs: number; highMs: number };
  /** 2.22.2.1 repair-under-load: replicate the whole active cache to a new buddy, then purge the old one (2.19). */
  repairUnderLoad?: boolean;
  repairBatch?: number;
  /** Most body bytes in one replicate message of a repair, resend or pull (default 512 KiB, under NATS's 1 MiB). */
  repairBatchBytes?: number;
  /** false: no buddy replication at all (the baseline of bench:ssr); default true. */
  replication?: boolean;
  /** A timer of an active artifact fired; called once the firing is on the buddy (2.14). */
  onFire?: (a: Artifact) => void | Promise<void>;
  /** Caches reloaded from disk (2.22.1): every entry starts suspect and is repaired from the partners. */
  restore?: SsrSnapshot;
}

export interface PutOptions {
  parentId?: string;
  /** The key whose hash picks the home; default: the parent's home (children live with their parent) or the id. */
  homeKey?: string;
  /** Next firing time (ms epoch); null clears the timer; undefined keeps it. */
  nextFire?: number | null;
}

export interface CensusEntry {
  id: string;
  version: number;
  owner: string;
  where: 'active' | 'replica';
  suspect: boolean;
}

/** The options with every default filled in. */
export type ResolvedOptions = Required<Omit<SsrNodeOptions, 'incarnation' | 'clock' | 'log' | 'onFire' | 'restore' | 'reactivation'>> &
  Pick<SsrNodeOptions, 'reactivation' | 'onFire'>;

export function resolveOptions(opts: SsrNodeOptions): ResolvedOptions {
  const hb = opts.heartbeatMs ?? 200;
  const failAfterMs = opts.failAfterMs ?? 1500;
  const o: ResolvedOptions = {
    name: opts.name,
    transport: opts.transport,
    heartbeatMs: hb,
    suspectAfterMs: opts.suspectAfterMs ?? 3 * hb,
    failAfterMs,
    joinSettleMs: opts.joinSettleMs ?? 3 * hb,
    waitForAck: opts.waitForAck ?? false,
    ackTimeoutMs: opts.ackTimeoutMs ?? 2000,
    loadTimeoutMs: opts.loadTimeoutMs ?? 1000,
    transferTimeoutMs: opts.transferTimeoutMs ?? 5000,
    graceMs: opts.graceMs ?? 2 * failAfterMs,
    reactivation: opts.reactivation,
    repairUnderLoad: opts.repairUnderLoad ?? true,
    repairBatch: opts.repairBatch ?? 200,
    repairBatchBytes: opts.repairBatchBytes ?? 512 * 1024,
    replication: opts.replication ?? true,
    onFire: opts.onFire,
  };
  if (o.graceMs <= failAfterMs) throw new Error('graceMs must exceed failAfterMs (2.8: no replica timer may fire during a temporary failure)');
  return o;
}
