/**
 * The duplicate server on the crawl bus: a CrawlEndpoint in, the state machine in the middle, the SQLite checksum
 * store below. Each batch of messages that arrived in one event-loop turn is handled inside one store transaction
 * and its answers are published only after the commit: a PPDUP_ADD_OK always means "on disk here" (and, with a
 * replica, "acknowledged by the replica", which wrote it to its own disk before answering).
 *
 *   const server = await startDuplicateServer(mw.bus, { cluster: 'default', id: 'dup1', dataDir: '/var/lib/dup1', replica: 'dup1r' });
 */
import { crawlAddress, CrawlEndpoint, type CrawlInbound } from '@esp/crawl-bus';
import { encodeFscmtFrame, type FscmtPriority, type FswcuDict } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { systemClock, type Clock } from '@esp/timers';
import { DuplicateServerMachine } from './duplicate-server-machine';
import { SqliteChecksumStore } from './sqlite-checksum-store';

export interface DuplicateServerOptions {
  cluster: string;
  id: string;
  dataDir: string;
  /** Node id of the replica (a duplicate server on the same cluster, role dup). */
  replica?: string;
  sync?: 'normal' | 'full';
  keepaliveMs?: number;
  replicaTimeoutMs?: number;
  clock?: Clock;
  log?: Logger;
}

export interface DuplicateServer {
  readonly address: string;
  readonly machine: DuplicateServerMachine;
  stop(): Promise<void>;
}

export async function startDuplicateServer(bus: RawBus, opts: DuplicateServerOptions): Promise<DuplicateServer> {
  const store = new SqliteChecksumStore(opts.dataDir, { sync: opts.sync });
  const outbox: Array<{ to: string; frame: Uint8Array }> = [];
  let inBatch = false;
  // set once subscribed; a batch may arrive before start() returns, its answers then wait in the outbox
  const link: { endpoint?: CrawlEndpoint } = {};
  const flushOutbox = (): void => {
    if (!link.endpoint) return;
    for (const o of outbox) link.endpoint.sendFrame(o.to, o.frame);
    outbox.length = 0;
  };
  const send = (to: string, dict: FswcuDict, priority: FscmtPriority): void => {
    const frame = encodeFscmtFrame(dict, priority);
    // inside a batch, answers wait for the commit; timer-driven sends (keep-alives, timeouts) go at once
    if (inBatch || !link.endpoint) outbox.push({ to, frame });
    else link.endpoint.sendFrame(to, frame);
  };
  const machine = new DuplicateServerMachine({
    id: opts.id,
    replica: opts.replica === undefined ? undefined : crawlAddress({ cluster: opts.cluster, role: 'dup', id: opts.replica }),
    store,
    clock: opts.clock ?? systemClock,
    send,
    log: opts.log,
    keepaliveMs: opts.keepaliveMs,
    replicaTimeoutMs: opts.replicaTimeoutMs,
  });
  const onBatch = (batch: CrawlInbound[]): void => {
    inBatch = true;
    try {
      store.transaction(() => {
        for (const m of batch) machine.handle(m.from, m.dict, m.priority);
      });
    } catch (err) {
      // nothing of the batch was committed: drop its answers, the senders will time out and resend
      outbox.length = 0;
      opts.log?.error({ err: (err as Error).message, messages: batch.length }, 'checksum store transaction failed');
      return;
    } finally {
      inBatch = false;
    }
    flushOutbox();
  };
  const endpoint = await CrawlEndpoint.start(bus, { self: { cluster: opts.cluster, role: 'dup', id: opts.id }, onBatch, log: opts.log });
  link.endpoint = endpoint;
  flushOutbox();
  machine.start();
  return {
    address: endpoint.address,
    machine,
    async stop() {
      machine.stop();
      await endpoint.stop();
      store.close();
    },
  };
}
