/**
 * A duplicate server with a replica, as seen by a node scheduler: operations go to the primary until it is taken
 * for dead, then to the replica for good. MS-FSCMT says the replica is there for fault tolerance (1.3, 3.4) but
 * not how a node scheduler moves to it; this is the design used here.
 *
 *   const dup = DuplicateServerFailover.start({ primary, replica, clock, deadAfterMs: 10_000, probe, log });
 *   const { ownUri } = await dup.add('web', uri, csum);    // retried on the replica if the primary died meanwhile
 *
 * Dead means: operations have been waiting for `deadAfterMs` and nothing at all came from the primary meanwhile
 * (halfway through, a PPDUP_KEEPALIVE probes it: a primary that is only slow, for example waiting for its replica,
 * answers the probe and is not left). Then every operation still waiting on the primary is failed there and sent
 * again to the replica, after the collections' configurations (PPDUP_SET_CONFIG). That is safe because the primary
 * answers an add only after its replica stored it (3.3.5.4): the replica has every checksum a node was told about,
 * so a checksum owned before keeps its owner, and an add the primary never answered is decided by the replica, once.
 * There is no way back to the primary (it may come back with a store that missed what the replica took since).
 */
import { DuplicateServerTimeout, type CrawlInbound, type DuplicateServerClient } from '@esp/crawl-bus';
import type { FswcuDict } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Clock, TimerHandle } from '@esp/timers';
import { PrimaryWatch } from './primary-watch';

export interface DuplicateServerFailoverOptions {
  primary: DuplicateServerClient;
  primaryAddress: string;
  replica: DuplicateServerClient;
  replicaAddress: string;
  clock: Clock;
  deadAfterMs: number;
  /** Sends a PPDUP_KEEPALIVE to the primary (its PPDUP_KEEPALIVE_ACK counts as hearing from it). */
  probe: () => void;
  log?: Logger;
}

export class DuplicateServerFailover {
  private active: DuplicateServerClient;
  private failedOver = false;
  private readonly watch: PrimaryWatch;
  private readonly configs = new Map<string, FswcuDict>();
  private timer: TimerHandle | undefined;

  private constructor(private readonly opts: DuplicateServerFailoverOptions) {
    this.active = opts.primary;
    this.watch = new PrimaryWatch(opts.deadAfterMs);
  }

  static start(opts: DuplicateServerFailoverOptions): DuplicateServerFailover {
    const f = new DuplicateServerFailover(opts);
    f.tick();
    return f;
  }

  /** Which server operations go to now. */
  get serving(): 'primary' | 'replica' {
    return this.failedOver ? 'replica' : 'primary';
  }

  setConfig(collection: string, config: FswcuDict): Promise<void> {
    this.configs.set(collection, config);
    return this.active.setConfig(collection, config);
  }

  add(collection: string, uri: string, csum: Uint8Array): Promise<{ ownUri: string }> {
    return this.operation((c) => c.add(collection, uri, csum));
  }

  remove(collection: string, uri: string, csum: Uint8Array): Promise<{ ownUri: string }> {
    return this.operation((c) => c.remove(collection, uri, csum));
  }

  confRemove(collection: string): void {
    this.active.confRemove(collection);
  }

  confRemove2(collection: string): void {
    this.configs.delete(collection);
    this.active.confRemove2(collection);
  }

  /** Messages from either server; false for anything else. */
  handle(m: CrawlInbound): boolean {
    if (m.from === this.opts.primaryAddress) {
      this.watch.heard(this.opts.clock.now());
      return this.opts.primary.handle(m);
    }
    if (m.from === this.opts.replicaAddress) return this.opts.replica.handle(m);
    return false;
  }

  async stop(): Promise<void> {
    if (this.timer) this.opts.clock.clearTimeout(this.timer);
    await this.opts.primary.stop();
    await this.opts.replica.stop();
  }

  private async operation(op: (c: DuplicateServerClient) => Promise<{ ownUri: string }>): Promise<{ ownUri: string }> {
    if (this.failedOver) return op(this.opts.replica);
    if (this.opts.primary.inFlight === 0) this.watch.busy(this.opts.clock.now());
    try {
      return await op(this.opts.primary);
    } catch (err) {
      // failed on the primary because it was left (or it timed out): the replica decides
      if (!(err instanceof DuplicateServerTimeout)) throw err;
      if (!this.failedOver) this.failOver('an operation timed out');
      return op(this.opts.replica);
    }
  }

  private tick(): void {
    if (this.failedOver) return;
    const verdict = this.watch.check(this.opts.clock.now(), this.opts.primary.inFlight);
    if (verdict === 'probe') this.opts.probe();
    if (verdict === 'dead') this.failOver(`no answer from the primary for ${this.opts.deadAfterMs} ms`);
    else this.timer = this.opts.clock.setTimeout(() => this.tick(), Math.max(10, Math.floor(this.opts.deadAfterMs / 4)));
  }

  private failOver(why: string): void {
    this.failedOver = true;
    this.active = this.opts.replica;
    if (this.timer) this.opts.clock.clearTimeout(this.timer);
    this.opts.log?.warn({ primary: this.opts.primaryAddress, replica: this.opts.replicaAddress, why, inFlight: this.opts.primary.inFlight }, 'duplicate server primary taken for dead: the replica serves from now on');
    // configurations first (priority 1 overtakes the operations sent again below)
    for (const [collection, config] of this.configs) {
      this.opts.replica.setConfig(collection, config).catch((err: Error) => this.opts.log?.warn({ collection, err: err.message }, 'replica did not take the configuration'));
    }
    // every operation waiting on the primary fails with DuplicateServerTimeout and is sent again to the replica
    void this.opts.primary.stop();
  }
}
