/**
 * RegisterModule registers only the caller's own address: a module may name a host (the name its peers should use),
 * but that name must lead back to the caller, or the config server would hand out, and POST alerts to, an address
 * chosen by anyone who can reach it.
 */
import { lookup } from 'node:dns/promises';
import { hostname, networkInterfaces } from 'node:os';

const LOOPBACK = /^(127\.|::1$)/;

function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) out.add(a.address);
  return out;
}

/**
 * Is `host` the caller's own address? Yes when it is the caller's IP, or a name that resolves to it. A caller on
 * this machine (loopback) may also name any address of this machine, or its host name.
 */
export async function isOwnAddress(host: string, caller: string, resolve: (name: string) => Promise<string[]> = resolveAll): Promise<boolean> {
  if (host === caller) return true;
  const local = LOOPBACK.test(caller);
  if (local && (host === 'localhost' || host === hostname() || localAddresses().has(host))) return true;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return false;
  }
  if (addresses.includes(caller)) return true;
  if (!local) return false;
  const mine = localAddresses();
  return addresses.some((a) => LOOPBACK.test(a) || mine.has(a));
}

async function resolveAll(name: string): Promise<string[]> {
  return (await lookup(name, { all: true })).map((a) => a.address);
}
