import { InFlightQuotaExceeded, QuotaExceeded } from '@esp/interfaces';

/**
 * What one client may hold on this distributor, and what all of them together may (docs/security.md, "Quotas"), so
 * that one client at its limit is refused while the others go on. A client is known by the owner token of its
 * sessions (decision 0013): its SHA-256, kept with each session. nats-server 2.9 tells a server nothing of the sender
 * of a request (no identity in headers within one account), so the token is the only proof of "the same client" a
 * distributor has; callers that send none share one key, `no-owner-token`.
 *
 * Generic over resources: `sessions` (open here), `bytes_in_flight` (batches accepted and not yet reported
 * processed), and whatever else is counted per client later (content bytes, say). A resource without a limit is
 * counted and never refused.
 *
 *   const quota = new ClientQuota({ perClient: { sessions: 32 }, global: { sessions: 2000 } });
 *   quota.take(clientKeyOf(owner), 'sessions');       // QuotaExceeded when at a limit; nothing taken then
 *   quota.give(clientKeyOf(owner), 'sessions');
 */
export type QuotaResource = 'sessions' | 'bytes_in_flight' | (string & {});

export interface QuotaLimits {
  /** The most one client may hold, per resource. */
  perClient: Partial<Record<QuotaResource, number>>;
  /** The most all clients together may hold, per resource (keep it well above perClient: room for the others). */
  global: Partial<Record<QuotaResource, number>>;
}

/** The key of callers that sent no owner token: they are one client as far as quotas go. */
export const NO_OWNER_KEY = 'no-owner-token';

/** A client's key from its session's owner hash: a short prefix of the hash is enough to tell clients apart in logs. */
export function clientKeyOf(owner: string | undefined): string {
  return owner === undefined ? NO_OWNER_KEY : `owner:${owner.slice(0, 16)}`;
}

/**
 * Resources a client gets back by itself (its batches are processed): at the limit the call is retryable
 * (InFlightQuotaExceeded, in_flight_quota_exceeded), so a feed waits instead of failing its documents. The others
 * (sessions) come back only when the client closes something or the reaper does: QuotaExceeded, not retryable.
 */
const COMES_BACK = new Set<string>(['bytes_in_flight']);

/** How a limit is named where an operator changes it. */
const FLAGS: Record<string, { client: string; global: string }> = {
  sessions: { client: '--client-max-sessions', global: '--max-sessions' },
  bytes_in_flight: { client: '--client-max-bytes-in-flight', global: '--max-bytes-in-flight' },
};

export class ClientQuota {
  private readonly held = new Map<string, Map<string, number>>();
  private readonly totals = new Map<string, number>();
  /** Refusals since start, per resource and scope (`sessions/client`, `sessions/global`...). */
  readonly refusals = new Map<string, number>();

  constructor(readonly limits: QuotaLimits) {}

  heldBy(client: string, resource: QuotaResource): number {
    return this.held.get(resource)?.get(client) ?? 0;
  }

  total(resource: QuotaResource): number {
    return this.totals.get(resource) ?? 0;
  }

  /** Clients holding some of the resource. */
  clients(resource: QuotaResource): number {
    return this.held.get(resource)?.size ?? 0;
  }

  /**
   * Takes `amount` of the resource for the client, or throws QuotaExceeded and takes nothing: first the client's own
   * limit, then the global one. `force`: taken whatever the limits (a session reactivated from its replica is
   * already the client's; refusing it would lose its batches).
   */
  take(client: string, resource: QuotaResource, amount = 1, force = false): void {
    const mine = this.heldBy(client, resource);
    const all = this.total(resource);
    if (!force) {
      const own = this.limits.perClient[resource];
      if (own !== undefined && mine + amount > own) this.refuse(client, resource, 'client', own, mine, amount);
      const global = this.limits.global[resource];
      if (global !== undefined && all + amount > global) this.refuse(client, resource, 'global', global, all, amount);
    }
    let byClient = this.held.get(resource);
    if (!byClient) this.held.set(resource, (byClient = new Map()));
    byClient.set(client, mine + amount);
    this.totals.set(resource, all + amount);
  }

  /** Gives back what take() took (never below zero). */
  give(client: string, resource: QuotaResource, amount = 1): void {
    const byClient = this.held.get(resource);
    const mine = byClient?.get(client) ?? 0;
    const back = Math.min(mine, amount);
    if (back <= 0) return;
    if (mine - back === 0) byClient?.delete(client);
    else byClient?.set(client, mine - back);
    this.totals.set(resource, Math.max(0, this.total(resource) - back));
  }

  private refuse(client: string, resource: QuotaResource, scope: 'client' | 'global', limit: number, held: number, amount: number): never {
    const key = `${resource}/${scope}`;
    this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1);
    const flag = FLAGS[resource]?.[scope];
    const setBy = flag ? ` (${flag})` : '';
    const what = resource === 'sessions' ? 'sessions' : `${resource.replace(/_/g, ' ')}`;
    const message =
      scope === 'client'
        ? `client ${client} holds ${held} ${what} on this content distributor, its most${setBy}; ${resource === 'sessions' ? 'close sessions, or wait until idle ones are reaped' : 'wait until its batches are processed'}`
        : `this content distributor holds ${held} ${what} of all clients, the most it takes${setBy}; retry later`;
    const data = { resource, scope, client, limit, held, requested: amount };
    throw COMES_BACK.has(resource) ? new InFlightQuotaExceeded(message, data) : new QuotaExceeded(message, data);
  }
}
