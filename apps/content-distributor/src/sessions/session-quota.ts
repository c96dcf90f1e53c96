import { ClientQuota, clientKeyOf, type QuotaLimits } from './client-quota';

/**
 * The defaults: one client, 32 sessions and 64 MiB of batches in flight on a distributor; all clients, 1,000
 * sessions (the indexer takes 10,000, so two distributors full of sessions leave it room; and one client's 32 leave
 * room for 30 others at their limit).
 */
export const DEFAULT_QUOTA_LIMITS: QuotaLimits = { perClient: { sessions: 32, bytes_in_flight: 64 * 1024 * 1024 }, global: { sessions: 1000 } };
/** A session with no call and no callback taken for this long is reaped (10 min; the Lease Timeout is 5). */
export const DEFAULT_SESSION_IDLE_MS = 600_000;

interface Held {
  client: string;
  /** Batches accepted and not yet reported processed or lost, by first operation id. */
  batches: Map<number, { last: number; bytes: number }>;
}

/**
 * What each feeding session of this node holds of its client's quota (./client-quota): the session itself, and the
 * bytes of its batches in flight. The session host admits a session and releases it when it goes; the batch intake
 * takes a batch's bytes before dispatch; the session directory settles them when the batch is processed or lost.
 *
 *   const q = new SessionQuota({ perClient: { sessions: 32, bytes_in_flight: 64 << 20 }, global: { sessions: 2000 } });
 *   q.admit(7, ownerHash);              // QuotaExceeded at a limit
 *   q.takeBatch(7, 0, 99, 120_000);     // before dispatch; QuotaExceeded: refused, nothing taken
 *   q.settled(7, 0, 99);                // processed: the bytes are the client's again
 *   q.release(7);                       // destroyed or reaped
 */
export class SessionQuota {
  readonly quota: ClientQuota;
  private readonly sessions = new Map<number, Held>();

  constructor(limits: QuotaLimits) {
    this.quota = new ClientQuota(limits);
  }

  /** Counts session `id` against its client; `force`: a session that already was the client's (reactivated). */
  admit(id: number, owner: string | undefined, force = false): void {
    if (this.sessions.has(id)) return;
    const client = clientKeyOf(owner);
    this.quota.take(client, 'sessions', 1, force);
    this.sessions.set(id, { client, batches: new Map() });
  }

  /** The session is gone: its place and its bytes in flight are its client's again. */
  release(id: number): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    let bytes = 0;
    for (const b of s.batches.values()) bytes += b.bytes;
    this.quota.give(s.client, 'bytes_in_flight', bytes);
    this.quota.give(s.client, 'sessions');
  }

  clientOf(id: number): string | undefined {
    return this.sessions.get(id)?.client;
  }

  /** Takes a batch's bytes for the session's client (QuotaExceeded: nothing taken, the batch is refused). */
  takeBatch(id: number, first: number, last: number, bytes: number): void {
    const s = this.sessions.get(id);
    if (!s) return;
    const again = s.batches.get(first);
    if (again) this.settle(s, first, again);
    this.quota.take(s.client, 'bytes_in_flight', bytes);
    s.batches.set(first, { last, bytes });
  }

  /** Batches within [first, last] were processed (or refused): their bytes are given back. */
  settled(id: number, first: number, last: number): void {
    const s = this.sessions.get(id);
    if (!s || !s.batches.size) return;
    for (const [f, b] of s.batches) if (f <= last && b.last >= first) this.settle(s, f, b);
  }

  /** Operations reported lost: the batches holding them are given back. */
  lost(id: number, opIds: readonly number[]): void {
    if (!opIds.length) return;
    this.settled(id, Math.min(...opIds), Math.max(...opIds));
  }

  private settle(s: Held, first: number, b: { bytes: number }): void {
    s.batches.delete(first);
    this.quota.give(s.client, 'bytes_in_flight', b.bytes);
  }
}
