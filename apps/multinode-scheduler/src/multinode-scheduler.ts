/**
 * The multinode scheduler on the crawl bus: its address is mns/<id>; DNS through the operating system's resolver
 * (node:dns lookup; the TTL is --dns-ttl because getaddrinfo does not report one).
 *
 *   const mns = await startMultinodeScheduler(mw.bus, { cluster: 'default', id: 'main', collections, dataDir: '.esp/mns' });
 *
 * With a data directory the state lives in SQLite (sqlite-scheduler-store.ts) and survives kill -9: each batch of
 * messages (and each DNS answer) is one transaction, and what the machine sends meanwhile is held back until the
 * commit, so a node scheduler is never answered about something that is not on disk (a CMD_UM_KEEPALIVE_ACK
 * therefore vouches for every CMD_UM_URI the node sent before its keep-alive). An entry handed to a node stays in
 * the store until a NATS flush round trip shows the CMD_UM_URI reached the server; killed before that, the
 * restarted scheduler sends it again and the node scheduler drops it as seen.
 */
import { lookup } from 'node:dns/promises';
import { CrawlEndpoint, parseCrawlAddress } from '@esp/crawl-bus';
import type { FscmtAddrinfo, FscmtQueueEntry, FswcuDict } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { systemClock, type Clock } from '@esp/timers';
import type { CollectionConfig } from './collection-types';
import { reconcile } from './collections';
import { MultinodeSchedulerMachine } from './multinode-scheduler-machine';
import { NullSchedulerStore, type SchedulerStore } from './scheduler-store';
import { SqliteSchedulerStore } from './sqlite-scheduler-store';

export interface MultinodeSchedulerOptions {
  cluster: string;
  id: string;
  collections: CollectionConfig[];
  dnsTtlS?: number;
  keepaliveMs?: number;
  maxSitesPerIp?: number;
  minNodes?: number;
  /** Keep-alive rounds unanswered in a row after which a node scheduler is dropped (default 3). */
  maxMissedKeepalives?: number;
  /** Keep the state here (SQLite) and take it back at start; without it the scheduler forgets everything on exit. */
  dataDir?: string;
  /** How long every node must report itself idle before a crawl is done (default 3000 ms). */
  settleMs?: number;
  /** Resolver override (tests): host -> IP addresses. */
  resolveHost?: (host: string) => Promise<string[]>;
  clock?: Clock;
  log?: Logger;
}

export interface MultinodeScheduler {
  readonly address: string;
  readonly machine: MultinodeSchedulerMachine;
  /** Runs `fn` on the machine as one transaction of the state store; what it sends leaves after the commit. */
  atomically(fn: () => void): void;
  stop(): Promise<void>;
}

export async function startMultinodeScheduler(bus: RawBus, opts: MultinodeSchedulerOptions): Promise<MultinodeScheduler> {
  const link: { endpoint?: CrawlEndpoint } = {};
  const early: Array<[string, FswcuDict, 0 | 1]> = [];
  const store: SchedulerStore = opts.dataDir ? new SqliteSchedulerStore(opts.dataDir) : new NullSchedulerStore();
  // sends made inside a transaction wait here for its commit
  let held: Array<[string, FswcuDict, 0 | 1]> | undefined;
  const out = (to: string, dict: FswcuDict, priority: 0 | 1): void => {
    if (held) held.push([to, dict, priority]);
    else if (link.endpoint) link.endpoint.send(to, dict, priority);
    else early.push([to, dict, priority]);
  };
  const atomically = (fn: () => void): void => {
    const mine: Array<[string, FswcuDict, 0 | 1]> = [];
    held = mine;
    try {
      store.transaction(fn);
    } catch (err) {
      // nothing of this batch was answered; the process cannot go on with a store it cannot write
      opts.log?.fatal({ err: (err as Error).message }, 'state store write failed');
      throw err;
    } finally {
      held = undefined;
    }
    for (const [to, dict, priority] of mine) out(to, dict, priority);
  };
  // entries handed to nodes, retired from the store once a flush round trip shows their messages reached NATS
  const handed: Array<{ key: number; collection: string; entry: FscmtQueueEntry }> = [];
  let retiring: Promise<void> | undefined;
  let retireScheduled = false;
  const drain = async (): Promise<void> => {
    while (handed.length > 0 && link.endpoint) {
      const items = handed.splice(0);
      try {
        await link.endpoint.flush();
      } catch (err) {
        // the bus could not confirm them (a NATS reconnect): they may be lost, so they are sent again a little
        // later (a node drops a URI it has seen), with whatever was handed out during the failed flush; they stay
        // in the store meanwhile
        items.push(...handed.splice(0));
        opts.log?.warn({ err: (err as Error).message, entries: items.length }, 'handed-out entries not confirmed by the bus: sent again');
        setTimeout(() => atomically(() => machine.requeue(items)), 1000).unref();
        return;
      }
      store.transaction(() => {
        for (const it of items) store.deleteEntry(it.key);
      });
    }
  };
  const retire = (): Promise<void> => {
    retiring ??= drain().finally(() => {
      retiring = undefined;
    });
    return retiring;
  };
  const resolveHost = opts.resolveHost ?? (async (host: string) => (await lookup(host, { all: true })).map((a) => a.address));
  const machine: MultinodeSchedulerMachine = new MultinodeSchedulerMachine({
    clock: opts.clock ?? systemClock,
    log: opts.log,
    keepaliveMs: opts.keepaliveMs,
    maxSitesPerIp: opts.maxSitesPerIp,
    minNodes: opts.minNodes,
    maxMissedKeepalives: opts.maxMissedKeepalives,
    settleMs: opts.settleMs,
    store,
    // a gateway connection is closed by the gateway when told (a peer on NATS has no connection to close; it hears
    // no answer and registers again)
    onRefused: (address, reason) => {
      if (parseCrawlAddress(address)?.role === 'tcp') link.endpoint?.sendControl(address, { kind: 'refused', reason });
    },
    onHandedOut: opts.dataDir
      ? (key, collection, entry) => {
          handed.push({ key, collection, entry });
          if (!retireScheduled) {
            retireScheduled = true;
            setImmediate(() => {
              retireScheduled = false;
              void retire();
            });
          }
        }
      : undefined,
    send: out,
    resolve: (host) => {
      resolveHost(host).then(
        (ips) =>
          atomically(() =>
            machine.dnsResolved(host, ips.map((ip): FscmtAddrinfo => ({ family: ip.includes(':') ? 10 : 2, socktype: 1, proto: 6, canonname: '', address: { host: ip, port: 0 } })), opts.dnsTtlS),
          ),
        (err: Error) => {
          opts.log?.info({ host, err: err.message }, 'host name did not resolve');
          atomically(() => machine.dnsResolved(host, null, Math.min(opts.dnsTtlS ?? 3600, 300)));
        },
      );
    },
  });
  const stored = store.load();
  machine.restore(stored);
  if (opts.dataDir) {
    opts.log?.info(
      { dataDir: opts.dataDir, collections: stored.collections.length, entries: stored.entries.length, routes: stored.routes.length, ips: stored.ips.length },
      'state restored',
    );
  }
  const endpoint = await CrawlEndpoint.start(bus, {
    self: { cluster: opts.cluster, role: 'mns', id: opts.id },
    log: opts.log,
    // the gateway tells when a TCP peer's connection closed: the node it registered is dropped at once
    onControl: (msg) => {
      if (msg.kind === 'peer-gone') atomically(() => machine.peerGone(msg.peer, msg.reason));
    },
    onBatch: (batch) => {
      atomically(() => {
        for (const m of batch) machine.handle(m.from, m.dict, m.priority);
      });
    },
  });
  link.endpoint = endpoint;
  for (const [to, dict, priority] of early.splice(0)) endpoint.send(to, dict, priority);
  // the configured collections against the stored ones: new ones added (start URIs queued), changed ones updated
  // (epoch + 1), gone ones removed; unchanged ones go on where they were
  atomically(() => reconcile(machine, opts.collections));
  machine.start();
  const offConnection = bus.onConnectionChange((change) => {
    if (change === 'reconnect') machine.busReconnected();
    else machine.busDisconnected();
  });
  return {
    address: endpoint.address,
    machine,
    atomically,
    async stop() {
      offConnection();
      machine.stop();
      await retire();
      await endpoint.stop();
      store.close();
    },
  };
}
