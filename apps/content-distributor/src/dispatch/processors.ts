import type { OperationStatusInfo } from '@esp/codecs';
import { processorServerIdPrefix, processorServerInterface, type Aor, type BatchSigner } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { BadParameter, type Middleware } from '@esp/middleware';
import { decodeLivenessMessage, HEARTBEAT_INTERVAL_MS, HEARTBEAT_LIVENESS, LivenessTracker } from '@esp/ppp';
import type { Clock } from '@esp/timers';
import type { BatchOwners } from './dispatch-target';
import { Dispatcher } from './dispatcher';
import { HandOver } from './hand-over';
import { Leases } from './leases';
import { ProcessorPool, type ProcessorEntry } from './processor-pool';
import { SilenceProbe } from './silence-probe';

export interface ProcessorsOptions {
  mw: Middleware;
  log: Logger;
  clock: Clock;
  owners: BatchOwners;
  /** Lease Timeout (MS-FSDPD 3.5.2), default 300 s. */
  leaseMs?: number;
  /** Heartbeat interval of the item processors, PPP (default 1000 ms). */
  heartbeatMs?: number;
  /** Silent heartbeat intervals before an item processor is declared dead (default 3). */
  liveness?: number;
  /** Declare a processor whose process is gone (no responders) dead at once (default true; SilenceProbe). */
  goneProbe?: boolean;
  /** The node-controller restart hook: after a Lease Timeout, and when PPP liveness declares a processor dead. */
  restart?: (p: { name: string; pid: number; host: string }) => void | Promise<void>;
  /**
   * Signs each batch handed to a processor (the indexer checks the token). With it (the secured stack), a processor
   * registers only an object of its own name (processor_server/<name>/...), which the bus lets only that processor's
   * identity serve: one identity cannot register as another processor and draw its share of the batches.
   */
  batchSigner?: BatchSigner;
}

/**
 * The item processors of this node (MS-FSDPD 3.5, the procserver_handler's side): their registrations (the pool),
 * Lease Timeouts, PPP liveness, and what becomes of their batches when they fail: lost at a Lease Timeout, to another
 * processor when one is declared dead. Owns the dispatcher that places batches on them.
 */
export class Processors {
  readonly pool: ProcessorPool;
  readonly dispatcher: Dispatcher;
  private readonly leases: Leases;
  private readonly liveness: LivenessTracker;
  private readonly handOver: HandOver;
  private readonly probe: SilenceProbe | undefined;
  private readonly stopWatchingBus: () => void;
  /** name:pid of processors handed to the restart hook (once per process). */
  private readonly restartRequested = new Set<string>();
  /** PPP messages on the liveness subject that were not READY / HEARTBEAT of a processor. */
  malformedLiveness = 0;

  constructor(private readonly o: ProcessorsOptions) {
    this.pool = new ProcessorPool(o.leaseMs ?? 300_000);
    this.leases = new Leases(o.clock, (name) => void this.onLeaseTimeout(name));
    this.liveness = new LivenessTracker({
      intervalMs: o.heartbeatMs ?? HEARTBEAT_INTERVAL_MS,
      liveness: o.liveness ?? HEARTBEAT_LIVENESS,
      clock: o.clock,
      onDead: (name, silentMs) => void this.onDeclaredDead(name, silentMs),
    });
    // a processor silent while our own connection was down is not dead for it: nothing healthy is restarted for an
    // outage of the bus (a processor that died meanwhile is found within liveness x interval of the reconnect)
    this.stopWatchingBus = o.mw.connection.on({
      down: () => this.liveness.hold(),
      up: () => this.liveness.release(),
    });
    this.probe = o.goneProbe === false ? undefined : new SilenceProbe({ mw: o.mw, log: o.log, clock: o.clock, pool: this.pool, liveness: this.liveness, intervalMs: o.heartbeatMs ?? HEARTBEAT_INTERVAL_MS });
    this.handOver = new HandOver({ mw: o.mw, log: o.log, pool: this.pool, leases: this.leases, liveness: this.liveness, signer: o.batchSigner });
    this.dispatcher = new Dispatcher({ log: o.log, clock: o.clock, pool: this.pool, handOver: this.handOver, owners: o.owners });
  }

  register(procserver: Aor, name: string, hostname: string, pid: number): void {
    const own = `${processorServerIdPrefix(name)}/`;
    if (this.o.batchSigner && !procserver.object_id.startsWith(own)) {
      const reason = `the processor_server object of item processor "${name}" must have an id starting with "${own}", not "${procserver.object_id}"`;
      this.o.log.warn({ procserver: name, object_id: procserver.object_id }, 'registration refused: the object is not the named processor\'s');
      throw new BadParameter(reason, { argument: 'procserver', reason });
    }
    const previous = this.pool.get(name);
    // a processor that comes back under the same name lost whatever it held: report it now, not at the lease
    if (previous && previous.inFlight.length) {
      this.leases.cancel(name);
      void this.o.owners.lost(this.pool.expire(name), `item processor ${name} re-registered while holding a batch`);
    }
    this.pool.register(name, procserver, hostname, pid);
    // liveness tracking starts over at its READY
    this.liveness.forget(name);
    this.o.log.info({ procserver: name, host: hostname, pid }, 'item processor registered');
  }

  unregister(name: string): void {
    this.handOver.abandon(name, `item processor ${name} unregistered`);
    this.leases.drop(name);
    this.liveness.forget(name);
    const held = this.pool.unregister(name);
    if (held.length) void this.o.owners.lost(held, `item processor ${name} unregistered while holding a batch`);
    this.o.log.info({ procserver: name }, 'item processor unregistered');
  }

  processed(name: string, completed: boolean, status: OperationStatusInfo): void {
    const { log, owners } = this.o;
    const p = this.pool.get(name);
    if (!p) {
      log.warn({ procserver: name }, 'processed from an unknown item processor; ignored');
      return;
    }
    this.liveness.renew(name);
    if (p.inFlight.length && !p.inFlight.some((o) => o.opId >= status.first_op_id && o.opId <= status.last_op_id)) {
      // a late report of a batch that went to another processor while this one was declared dead
      log.info({ procserver: name, first: status.first_op_id, last: status.last_op_id }, 'late processed of a batch no longer held; ignored');
      return;
    }
    this.leases.cancel(name);
    const sessionId = p.batchSessionId;
    const done = this.pool.processed(name, status.first_op_id, status.last_op_id);
    if (!completed && done.length) {
      // the processor could not hand the batch to indexing: those operations are lost (the indexer arbitrates)
      void owners.lost(done, `item processor ${name} could not submit to indexing`);
    }
    if (sessionId !== undefined) owners.processed(sessionId, status, done);
    this.dispatcher.kick();
  }

  async flush(): Promise<void> {
    await Promise.all(
      this.pool.all().map((p) =>
        this.o.mw
          .proxy(processorServerInterface, p.proxy, { timeoutMs: 30_000 })
          .flush()
          .catch((err: Error) => this.o.log.warn({ procserver: p.name, err: err.message }, 'flush failed')),
      ),
    );
  }

  renew(name: string, period: number): void {
    const p = this.pool.get(name);
    if (!p) return;
    this.liveness.renew(name);
    p.leaseMs = period * 1000;
    this.leases.renew(name, p.leaseMs);
    this.o.log.debug({ procserver: name, period }, 'lease renewed');
  }

  /** [processor name, READY | HEARTBEAT] from an item processor, on this node's liveness subject. */
  onLivenessMessage(data: Uint8Array): void {
    const msg = decodeLivenessMessage(data);
    if (msg.kind === 'malformed') {
      this.malformedLiveness++;
      return;
    }
    const name = msg.name;
    const p = this.pool.get(name);
    if (!p) return; // not registered here (yet): its registration comes first
    const was = this.liveness.track(name);
    if (was === 'revived' || p.dead) {
      p.dead = false;
      this.restartRequested.delete(`${p.name}:${p.pid}`);
      this.o.log.warn({ procserver: name, pid: p.pid, frame: msg.kind }, 'item processor declared dead is alive again; it gets batches again');
      this.dispatcher.kick();
    } else if (msg.kind === 'ready') {
      this.o.log.info({ procserver: name, pid: p.pid }, 'item processor READY');
    }
  }

  stop(): void {
    this.stopWatchingBus();
    this.probe?.stop();
    this.dispatcher.stop();
    this.leases.cancelAll();
    this.liveness.stop();
  }

  /** MS-FSDPD 3.5.5. */
  private async onLeaseTimeout(name: string): Promise<void> {
    const p = this.pool.get(name);
    const lost = this.pool.expire(name);
    this.o.log.warn({ procserver: name, pid: p?.pid, lost: lost.length }, 'Lease Timeout: item processor did not report its batch; its operations are lost');
    await this.o.owners.lost(lost, `Lease Timeout of ${name}`);
    if (p) await this.restart(p);
  }

  /** Silent for liveness x interval: no more batches for it; its batch goes to another processor, or is lost. */
  private async onDeclaredDead(name: string, silentMs: number): Promise<void> {
    const p = this.pool.get(name);
    if (!p) return;
    this.leases.cancel(name);
    const held = this.pool.declareDead(name);
    this.o.log.warn(
      { procserver: name, pid: p.pid, silent_ms: silentMs, proof: silentMs >= this.liveness.deadAfterMs ? 'silence' : 'no process (no responders)', held: held?.ops.length ?? 0, session: held?.sessionId, first: held?.ops[0]?.opId, last: held?.ops[held.ops.length - 1]?.opId },
      'item processor declared dead (PPP liveness): no heartbeat for liveness x interval',
    );
    // whoever waits on the call that gave it its batch (a client's process call) goes on now, not at the deadline
    this.handOver.abandon(name, `item processor ${name} declared dead`);
    if (held) {
      await this.dispatcher.enqueue([{ kind: 'orphan', from: name, ...held, lostWhy: `item processor ${name} declared dead and no other item processor took its batch` }]);
    }
    await this.restart(p);
  }

  /** The node-controller restart hook, once per processor process (a Lease Timeout and a death may both ask). */
  private async restart(p: ProcessorEntry): Promise<void> {
    const key = `${p.name}:${p.pid}`;
    if (this.restartRequested.has(key)) return;
    this.restartRequested.add(key);
    try {
      await this.o.restart?.({ name: p.name, pid: p.pid, host: p.host });
    } catch (err) {
      this.o.log.error({ procserver: p.name, err: (err as Error).message }, 'restart of the item processor failed');
    }
  }
}
