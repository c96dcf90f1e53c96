import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isOwnAddress } from './module-address';
import { FAULT_REGISTRY_FULL, ModuleRegistry } from './module-registry';

const mod = (port: number, host = '10.0.0.5') => ({ port, type: 'ProcessorServer', version: '1.0', name: 'ProcessorServer', alerts: ['collection'], host });

describe('module registry', () => {
  it('is bounded: a new module while full is refused, a renewal is not', () => {
    const r = new ModuleRegistry({ maxModules: 3 });
    for (const p of [1, 2, 3]) expect(r.register(mod(p))).toBe(true);
    expect(() => r.register(mod(4))).toThrow(expect.objectContaining({ faultCode: FAULT_REGISTRY_FULL }));
    expect(r.register(mod(2))).toBe(false);
    expect(r.size).toBe(3);
  });
  it('a module that stops renewing expires, and its place is free again', () => {
    let now = 0;
    const r = new ModuleRegistry({ maxModules: 2, ttlMs: 1000, now: () => now });
    r.register(mod(1));
    r.register(mod(2));
    now = 600;
    r.register(mod(1)); // renewed: keeps its first registration time
    now = 1_300;
    expect(r.active().map((m) => m.port)).toEqual([1]);
    expect(r.active()[0]!.registered_at).toBe(0);
    expect(r.register(mod(3))).toBe(true);
  });
  it('20,000 registrations from a flood leave at most the bound, and they all expire', () => {
    let now = 0;
    const r = new ModuleRegistry({ maxModules: 1000, ttlMs: 120_000, now: () => now });
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      try {
        r.register(mod(1 + (i % 60_000), `10.1.${i >> 8}.${i & 255}`));
      } catch {
        refused++;
      }
    }
    expect(r.size).toBe(1000);
    expect(refused).toBe(19_000);
    now = 121_000;
    expect(r.active()).toEqual([]);
    expect(r.size).toBe(0);
  });
});

describe('a module registers only its own address', () => {
  const dns = (table: Record<string, string[]>) => async (name: string) => {
    const a = table[name];
    if (!a) throw new Error('ENOTFOUND');
    return a;
  };
  it('its IP, or a name that resolves to it', async () => {
    expect(await isOwnAddress('10.0.0.5', '10.0.0.5', dns({}))).toBe(true);
    expect(await isOwnAddress('node-controller', '172.18.0.4', dns({ 'node-controller': ['172.18.0.4'] }))).toBe(true);
  });
  it('not another address, nor a name that resolves elsewhere or not at all', async () => {
    expect(await isOwnAddress('203.0.113.9', '10.0.0.5', dns({}))).toBe(false);
    expect(await isOwnAddress('evil.example', '10.0.0.5', dns({ 'evil.example': ['203.0.113.9'] }))).toBe(false);
    expect(await isOwnAddress('nowhere.example', '10.0.0.5', dns({}))).toBe(false);
    // a remote caller may not name this machine's loopback
    expect(await isOwnAddress('127.0.0.1', '10.0.0.5', dns({}))).toBe(false);
  });
  it('a caller on this machine may name this machine: localhost, its host name, or a name resolving to loopback', async () => {
    expect(await isOwnAddress('localhost', '127.0.0.1', dns({}))).toBe(true);
    expect(await isOwnAddress(hostname(), '127.0.0.1', dns({}))).toBe(true);
    expect(await isOwnAddress('me.local', '127.0.0.1', dns({ 'me.local': ['127.0.1.1'] }))).toBe(true);
    expect(await isOwnAddress('evil.example', '127.0.0.1', dns({ 'evil.example': ['203.0.113.9'] }))).toBe(false);
  });
});
