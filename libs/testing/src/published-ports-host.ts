import { networkInterfaces } from 'node:os';
import type { ContainerRuntimeClient } from 'testcontainers';

let host: Promise<string> | undefined;

function ipv4(address: string): number | undefined {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

function inSubnet(address: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  const a = ipv4(address);
  const b = ipv4(base);
  if (a === undefined || b === undefined) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(a / size) === Math.floor(b / size);
}

/**
 * The address clients use for published ports. On loopback, Docker's userland proxy relays each connection and
 * passes a client's death on to the server late: a test that kills a client and at once expects the server to have
 * dropped its subscriptions then fails now and then. An address of this machine that is not loopback (its
 * address on the default bridge, the bridge's gateway) is NATed by the kernel straight into the container, as
 * direct as a local process. So that address when the engine runs here, else the engine's host (a "localhost"
 * engine as 127.0.0.1).
 */
export function publishedPortsHost(engine: ContainerRuntimeClient): Promise<string> {
  host ??= (async () => {
    const given = engine.info.containerRuntime.host;
    const local = given === 'localhost' || given === '127.0.0.1';
    if (!local) return given;
    const bridge = await engine.network
      .getById('bridge')
      .inspect()
      .catch(() => undefined);
    // the gateway is this machine's address on the bridge (not always in IPAM.Config): find it by the subnet
    const subnets = ((bridge?.IPAM?.Config ?? []) as { Subnet?: string }[]).map((c) => c.Subnet).filter((c): c is string => !!c);
    const ours = Object.values(networkInterfaces())
      .flat()
      .find((a) => a?.family === 'IPv4' && !a.internal && subnets.some((c) => inSubnet(a.address, c)));
    return ours?.address ?? '127.0.0.1';
  })();
  return host;
}
