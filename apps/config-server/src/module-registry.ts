/**
 * The config server's registered modules: bounded in number, and a module that stops renewing its registration
 * (every module registers again at an interval) expires, so a flood of registrations cannot grow the server without
 * end and a dead module stops receiving alerts.
 */
import { XmlRpcFault } from '@esp/codecs';
import type { ModuleRecord } from '@esp/interfaces';

/** RegisterModule of a new module while the registry is full. */
export const FAULT_REGISTRY_FULL = 3;
export const DEFAULT_MAX_MODULES = 1_000;
/** Four times the modules' own renewal interval (30 s). */
export const DEFAULT_MODULE_TTL_MS = 120_000;

export interface ModuleRegistryOptions {
  maxModules?: number;
  ttlMs?: number;
  now?: () => number;
}

type ModuleKey = Pick<ModuleRecord, 'type' | 'name' | 'host' | 'port'>;

function keyOf(m: ModuleKey): string {
  return `${m.type}\u0000${m.name}\u0000${m.host}\u0000${m.port}`;
}

export class ModuleRegistry {
  private readonly modules = new Map<string, { record: ModuleRecord; renewedAt: number }>();
  private readonly max: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(opts: ModuleRegistryOptions = {}) {
    this.max = opts.maxModules ?? DEFAULT_MAX_MODULES;
    this.ttlMs = opts.ttlMs ?? DEFAULT_MODULE_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** Registers or renews; returns true for a module not known before. A new module while full is a fault. */
  register(m: Omit<ModuleRecord, 'registered_at'>): boolean {
    const now = this.now();
    const key = keyOf(m);
    const known = this.modules.get(key);
    if (!known) {
      this.expire(now);
      if (this.modules.size >= this.max) throw new XmlRpcFault(FAULT_REGISTRY_FULL, `the module registry is full (${this.max} modules); try again once modules expire`);
    }
    this.modules.set(key, { record: { ...m, registered_at: known?.record.registered_at ?? now }, renewedAt: now });
    return !known;
  }

  unregister(m: ModuleKey): boolean {
    return this.modules.delete(keyOf(m));
  }

  /** The modules that renewed within the TTL, oldest registration first. */
  active(): ModuleRecord[] {
    this.expire(this.now());
    return [...this.modules.values()].map((e) => e.record).sort((a, b) => a.registered_at - b.registered_at);
  }

  get size(): number {
    return this.modules.size;
  }

  private expire(now: number): void {
    for (const [key, e] of this.modules) if (now - e.renewedAt > this.ttlMs) this.modules.delete(key);
  }
}
