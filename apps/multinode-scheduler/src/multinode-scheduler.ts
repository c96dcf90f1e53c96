/**
 * The multinode scheduler on the crawl bus: its address is mns/<id>; DNS through the operating system's resolver
 * (node:dns lookup; the TTL is --dns-ttl because getaddrinfo does not report one).
 *
 *   const mns = await startMultinodeScheduler(mw.bus, { cluster: 'default', id: 'main', collections });
 */
import { lookup } from 'node:dns/promises';
import { CrawlEndpoint } from '@esp/crawl-bus';
import type { FscmtAddrinfo, FswcuDict } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { systemClock, type Clock } from '@esp/timers';
import { MultinodeSchedulerMachine } from './multinode-scheduler-machine';

export interface CollectionConfig {
  name: string;
  dspec: FswcuDict;
  startUris: string[];
}

export interface MultinodeSchedulerOptions {
  cluster: string;
  id: string;
  collections: CollectionConfig[];
  dnsTtlS?: number;
  keepaliveMs?: number;
  maxSitesPerIp?: number;
  minNodes?: number;
  /** Resolver override (tests): host -> IP addresses. */
  resolveHost?: (host: string) => Promise<string[]>;
  clock?: Clock;
  log?: Logger;
}

export interface MultinodeScheduler {
  readonly address: string;
  readonly machine: MultinodeSchedulerMachine;
  stop(): Promise<void>;
}

export async function startMultinodeScheduler(bus: RawBus, opts: MultinodeSchedulerOptions): Promise<MultinodeScheduler> {
  const link: { endpoint?: CrawlEndpoint } = {};
  const early: Array<[string, FswcuDict, 0 | 1]> = [];
  const resolveHost = opts.resolveHost ?? (async (host: string) => (await lookup(host, { all: true })).map((a) => a.address));
  const machine: MultinodeSchedulerMachine = new MultinodeSchedulerMachine({
    clock: opts.clock ?? systemClock,
    log: opts.log,
    keepaliveMs: opts.keepaliveMs,
    maxSitesPerIp: opts.maxSitesPerIp,
    minNodes: opts.minNodes,
    send: (to, dict, priority) => (link.endpoint ? link.endpoint.send(to, dict, priority) : early.push([to, dict, priority])),
    resolve: (host) => {
      resolveHost(host).then(
        (ips) => machine.dnsResolved(host, ips.map((ip): FscmtAddrinfo => ({ family: ip.includes(':') ? 10 : 2, socktype: 1, proto: 6, canonname: '', address: { host: ip, port: 0 } })), opts.dnsTtlS),
        (err: Error) => {
          opts.log?.info({ host, err: err.message }, 'host name did not resolve');
          machine.dnsResolved(host, null, Math.min(opts.dnsTtlS ?? 3600, 300));
        },
      );
    },
  });
  const endpoint = await CrawlEndpoint.start(bus, {
    self: { cluster: opts.cluster, role: 'mns', id: opts.id },
    log: opts.log,
    onBatch: (batch) => {
      for (const m of batch) machine.handle(m.from, m.dict, m.priority);
    },
  });
  link.endpoint = endpoint;
  for (const [to, dict, priority] of early.splice(0)) endpoint.send(to, dict, priority);
  for (const c of opts.collections) machine.addCollection(c.name, c.dspec, c.startUris);
  machine.start();
  return {
    address: endpoint.address,
    machine,
    async stop() {
      machine.stop();
      await endpoint.stop();
    },
  };
}
