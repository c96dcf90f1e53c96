import { createServer } from 'node:net';
import type { ContainerRuntimeClient } from 'testcontainers';

let host: Promise<string> | undefined;

function ipv4(address: string): number | undefined {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

function firstAddress(cidr: string): string | undefined {
  const [base = ''] = cidr.split('/');
  const n = ipv4(base);
  if (n === undefined) return undefined;
  const a = n + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(a / 2 ** shift) % 256).join('.');
}

/** An address of this machine is one a socket can listen on (a bridge without containers is down, but has it). */
function isOurs(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(0, address, () => srv.close(() => resolve(true)));
  });
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
    // this machine's address on the bridge: its gateway, which IPAM.Config names, or else is the subnet's first address
    const configs = (bridge?.IPAM?.Config ?? []) as { Subnet?: string; Gateway?: string }[];
    const candidates = configs.flatMap((c) => [c.Gateway, c.Subnet && firstAddress(c.Subnet)]).filter((a): a is string => !!a);
    for (const address of candidates) if (await isOurs(address)) return address;
    return '127.0.0.1';
  })();
  return host;
}
