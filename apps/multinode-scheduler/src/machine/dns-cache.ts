/**
 * The DNS answers the multinode scheduler holds for its node schedulers: a CMD_UM_DNS_REQUEST is answered from the
 * cache while the answer lives (its TTL), otherwise one lookup per host goes out through `resolve` and every node
 * that asked meanwhile gets the answer when it comes back. Each answer is written through the store.
 */
import type { FscmtAddrinfoResult } from '@esp/codecs';
import type { Clock } from '@esp/timers';
import type { SchedulerStore, StoredDns } from '../scheduler-store';
import type { NodeSend } from './node-send';

export const DEFAULT_DNS_TTL_S = 3600;

export interface DnsEntry {
  addrinfo: FscmtAddrinfoResult;
  resolvedAt: number;
  ttl: number;
  expires: number;
}

export interface DnsCacheDeps {
  clock: Clock;
  store: SchedulerStore;
  send: NodeSend;
  /** Starts a lookup; the answer comes back through `resolved`. */
  resolve: (host: string) => void;
}

export class DnsCache {
  private readonly answers = new Map<string, DnsEntry>();
  /** Hosts with a lookup under way. */
  private readonly resolving = new Set<string>();
  /** host -> address of a node that asked -> how many times it asked */
  private readonly waiters = new Map<string, Map<string, number>>();

  constructor(private readonly deps: DnsCacheDeps) {}

  restore(dns: StoredDns[]): void {
    for (const d of dns) this.answers.set(d.host, { addrinfo: d.addrinfo, resolvedAt: d.resolvedAt, ttl: d.ttl, expires: d.expires });
  }

  /** The answer for the host while it lives, or undefined. */
  fresh(host: string): DnsEntry | undefined {
    const e = this.answers.get(host);
    return e && e.expires > this.deps.clock.now() ? e : undefined;
  }

  /** What a CMD_UM_ADD_ROUTE carries of the host: the answer held (even expired) and the seconds it has left. */
  forRoute(host: string): { addrinfo: FscmtAddrinfoResult; ttl: number } {
    const dns = this.answers.get(host);
    const ttl = dns ? Math.max(0, Math.round((dns.expires - this.deps.clock.now()) / 1000)) : 0;
    return { addrinfo: dns?.addrinfo ?? null, ttl };
  }

  /** A node's CMD_UM_DNS_REQUEST: answered now from the cache, or once the lookup comes back. */
  request(from: string, host: string): void {
    const cached = this.fresh(host);
    if (cached) return this.reply(from, host, cached);
    const waiters = this.waiters.get(host) ?? new Map<string, number>();
    waiters.set(from, (waiters.get(from) ?? 0) + 1);
    this.waiters.set(host, waiters);
    this.lookup(host);
  }

  lookup(host: string): void {
    if (this.resolving.has(host)) return;
    this.resolving.add(host);
    this.deps.resolve(host);
  }

  /** A lookup came back: the answer is cached and stored, and every node that asked for it gets it. */
  resolved(host: string, addrinfo: FscmtAddrinfoResult, ttl: number): void {
    this.resolving.delete(host);
    const now = this.deps.clock.now();
    const entry = { addrinfo, resolvedAt: Math.floor(now / 1000), ttl, expires: now + ttl * 1000 };
    this.answers.set(host, entry);
    this.deps.store.putDns({ host, ...entry });
    for (const [address, waiting] of this.waiters.get(host) ?? []) {
      for (let i = 0; i < waiting; i++) this.reply(address, host, entry);
    }
    this.waiters.delete(host);
  }

  private reply(to: string, host: string, e: DnsEntry): void {
    this.deps.send(to, { command: 'CMD_UM_DNS_REPLY', dspecName: '', data: { hostname: host, addrinfo: e.addrinfo, resolvedAt: e.resolvedAt, ttl: e.ttl } }, 1);
  }
}
