/**
 * The node scheduler's side of the duplicate server protocol (MS-FSCMT 3.1.5.22 to 3.1.5.27) as a promise API:
 * PPDUP_SET_CONFIG with the link's vector clock, PPDUP_ADD / PPDUP_REMOVE answered by PPDUP_ADD_OK / PPDUP_REMOVE_OK
 * (or PPDUP_ERROR), keep-alives answered, PPDUP_PROMOTE_REQ handed to a callback. Many operations may be in flight
 * (pipelining); answers are matched by collection and URI, the key the spec's answers carry.
 *
 *   const dup = await DuplicateServerClient.start(mw.bus, { self, server: dupAddress, node: 'node1' });
 *   await dup.setConfig('web', configDict);
 *   const { ownUri } = await dup.add('web', 'http://a/1', checksum);   // ownUri !== uri: a duplicate
 */
import {
  buildFscmtDuplicateServerMessage,
  FSCMT_KEYS,
  readFscmtNodeSchedulerMessage,
  type FscmtDuplicateServerMessage,
  type FscmtPriority,
  type FswcuDict,
} from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { CrawlEndpoint, type CrawlInbound } from './crawl-endpoint';
import type { CrawlPeer } from './crawl-subjects';

export class DuplicateServerError extends Error {
  override readonly name = 'DuplicateServerError';
  readonly code = 'duplicate_server_error';
  constructor(
    message: string,
    readonly collection: string,
  ) {
    super(message);
  }
}

export class DuplicateServerTimeout extends Error {
  override readonly name = 'DuplicateServerTimeout';
  readonly code = 'duplicate_server_timeout';
  readonly retryable = true;
}

interface Waiter {
  resolve: (v: { ownUri: string }) => void;
  reject: (e: Error) => void;
  collection: string;
  uri: string;
  /** The next operation on the same URI, answered after this one (the server answers them in order). */
  next: Waiter | undefined;
  /** performance.now() after which the operation times out. */
  deadline: number;
  done: boolean;
}

export interface DuplicateServerClientOptions {
  self: CrawlPeer;
  /** The duplicate server's address. */
  server: string;
  /** PKT_ID of this node scheduler. */
  node: string;
  timeoutMs?: number;
  onPromote?: (collection: string, csum: Uint8Array) => void;
  log?: Logger;
  /** Share an endpoint instead of opening one (a node scheduler talks to several servers through one address). */
  endpoint?: CrawlEndpoint;
}

export class DuplicateServerClient {
  /**
   * collection -> URI -> the oldest unanswered operation on it (the others follow through `next`). Two levels rather
   * than one key made of both: building and hashing that string for every add and every answer showed in profiles.
   */
  private readonly waiters = new Map<string, Map<string, Waiter>>();
  /**
   * Every operation in the order sent. All share one timeout, so deadlines grow along this list and one timer at
   * the head serves them all: a timer per operation (set, then cleared at the answer) cost more CPU than the rest
   * of the client's work on an add. Settled waiters leave from the head.
   */
  private timeline: Waiter[] = [];
  private timelineHead = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Unacknowledged PPDUP_SET_CONFIGs by vector clock, with their collection. */
  private readonly configWaiters = new Map<number, { collection: string; done: () => void }>();
  /** The vector clock of the link: +1 for every message sent over it (2.2.2.1 PKT_VCLOCK), not per configuration. */
  private vclock = 0;
  /** collection -> vector clock of its most recent PPDUP_SET_CONFIG: only the answer to that one counts (3.1.5.22). */
  private readonly latestConfig = new Map<string, number>();
  private endpoint!: CrawlEndpoint;
  private ownsEndpoint = false;

  private constructor(private readonly opts: DuplicateServerClientOptions) {}

  static async start(bus: RawBus, opts: DuplicateServerClientOptions): Promise<DuplicateServerClient> {
    const c = new DuplicateServerClient(opts);
    if (opts.endpoint) c.endpoint = opts.endpoint;
    else {
      c.endpoint = await CrawlEndpoint.start(bus, { self: opts.self, onBatch: (b) => c.onBatch(b), log: opts.log });
      c.ownsEndpoint = true;
    }
    return c;
  }

  get inFlight(): number {
    let n = 0;
    for (const byUri of this.waiters.values()) for (const head of byUri.values()) for (let w: Waiter | undefined = head; w; w = w.next) n++;
    return n;
  }

  /**
   * Resolves when the server acknowledged this PPDUP_SET_CONFIG or a later one of the same collection (a later
   * configuration supersedes it); PPDUP_CONFIG_ACK is matched on the vector clock of the most recent one (3.1.5.22).
   */
  setConfig(collection: string, config: FswcuDict): Promise<void> {
    const vclock = this.vclock + 1; // the clock this message is sent with
    this.latestConfig.set(collection, vclock);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.configWaiters.delete(vclock);
        reject(new DuplicateServerTimeout(`no PPDUP_CONFIG_ACK for vector clock ${vclock}`));
      }, this.opts.timeoutMs ?? 10_000);
      this.configWaiters.set(vclock, {
        collection,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      this.send({ command: 'PPDUP_SET_CONFIG', config, vclock, dspecName: collection }, 1);
    });
  }

  /** The link's vector clock: how many messages were sent to the server. */
  get vectorClock(): number {
    return this.vclock;
  }

  /** PPDUP_CONFIG_ACK: a reply to the most recent PPDUP_SET_CONFIG of a collection settles it and those it superseded. */
  private configAcked(vclock: number): void {
    const w = this.configWaiters.get(vclock);
    if (!w || this.latestConfig.get(w.collection) !== vclock) {
      this.opts.log?.debug({ vclock }, 'discarded a PPDUP_CONFIG_ACK that answers no most recent PPDUP_SET_CONFIG');
      return;
    }
    for (const [clock, other] of this.configWaiters) {
      if (other.collection !== w.collection || clock > vclock) continue;
      this.configWaiters.delete(clock);
      other.done();
    }
  }

  add(collection: string, uri: string, csum: Uint8Array, priority: FscmtPriority = 0): Promise<{ ownUri: string }> {
    return this.operation(collection, uri, { command: 'PPDUP_ADD', dspecName: collection, id: this.opts.node, uri, csum }, priority);
  }

  remove(collection: string, uri: string, csum: Uint8Array): Promise<{ ownUri: string }> {
    return this.operation(collection, uri, { command: 'PPDUP_REMOVE', dspecName: collection, id: this.opts.node, uri, csum }, 0);
  }

  /** PPDUP_CONF_REMOVE, at the front of the queue: the server deletes the collection's checksums (3.3.5.2). */
  confRemove(collection: string): void {
    this.send({ command: 'PPDUP_CONF_REMOVE', dspecName: collection }, 1);
  }

  /** PPDUP_CONF_REMOVE2, at the back: everything queued before it is done; the server forgets the collection. */
  confRemove2(collection: string): void {
    this.send({ command: 'PPDUP_CONF_REMOVE2', dspecName: collection }, 0);
  }

  /** Feeds messages received on a shared endpoint. Returns false for messages that are not the duplicate server's. */
  handle(m: CrawlInbound): boolean {
    if (m.from !== this.opts.server) return false;
    let msg;
    try {
      msg = readFscmtNodeSchedulerMessage(m.dict);
    } catch (err) {
      this.opts.log?.warn({ err: (err as Error).message }, 'bad message from the duplicate server');
      return true;
    }
    switch (msg.command) {
      case 'PPDUP_ADD_OK':
        this.settle(msg.dspecName, msg.uri, (w) => w.resolve({ ownUri: msg.ownUri ?? msg.uri }));
        return true;
      case 'PPDUP_REMOVE_OK':
        this.settle(msg.dspecName, msg.uri, (w) => w.resolve({ ownUri: msg.uri }));
        return true;
      case 'PPDUP_ERROR': {
        const ur = m.dict.getText(FSCMT_KEYS.PKT_URI);
        const uri = ur instanceof Uint8Array ? new TextDecoder().decode(ur) : typeof ur === 'string' ? ur : undefined;
        this.opts.log?.warn({ collection: msg.dspecName, why: msg.why, uri }, 'PPDUP_ERROR');
        if (uri !== undefined) this.settle(msg.dspecName, uri, (w) => w.reject(new DuplicateServerError(msg.why, msg.dspecName)));
        return true;
      }
      case 'PPDUP_CONFIG_ACK':
        this.configAcked(msg.vclock);
        return true;
      case 'PPDUP_KEEPALIVE':
        this.send({ command: 'PPDUP_KEEPALIVE_ACK' }, 1);
        return true;
      case 'PPDUP_PROMOTE_REQ':
        this.opts.onPromote?.(msg.dspecName, msg.csum);
        return true;
      default:
        return true;
    }
  }

  async stop(): Promise<void> {
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    for (const byUri of this.waiters.values()) {
      for (const head of byUri.values()) {
        for (let w: Waiter | undefined = head; w; w = w.next) {
          w.done = true;
          w.reject(new DuplicateServerTimeout('client stopped'));
        }
      }
    }
    this.waiters.clear();
    this.timeline = [];
    this.timelineHead = 0;
    if (this.ownsEndpoint) await this.endpoint.stop();
  }

  private onBatch(batch: CrawlInbound[]): void {
    for (const m of batch) this.handle(m);
  }

  private operation(collection: string, uri: string, msg: FscmtDuplicateServerMessage, priority: FscmtPriority): Promise<{ ownUri: string }> {
    const timeoutMs = this.opts.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const w: Waiter = { resolve, reject, collection, uri, next: undefined, deadline: performance.now() + timeoutMs, done: false };
      let byUri = this.waiters.get(collection);
      if (!byUri) this.waiters.set(collection, (byUri = new Map()));
      let tail = byUri.get(uri);
      if (!tail) byUri.set(uri, w);
      else {
        while (tail.next) tail = tail.next;
        tail.next = w;
      }
      this.timeline.push(w);
      this.sweepTimer ??= setTimeout(() => this.sweep(), timeoutMs);
      this.send(msg, priority);
    });
  }

  private settle(collection: string, uri: string, fn: (w: Waiter) => void): void {
    const byUri = this.waiters.get(collection);
    const w = byUri?.get(uri);
    if (!byUri || !w) return;
    if (w.next) byUri.set(uri, w.next);
    else byUri.delete(uri);
    w.next = undefined;
    w.done = true;
    this.dropSettledHead();
    fn(w);
  }

  /** Removes settled waiters from the head of the timeline (answers mostly come in the order sent). */
  private dropSettledHead(): void {
    const t = this.timeline;
    while (this.timelineHead < t.length && t[this.timelineHead]?.done) this.timelineHead++;
    if (this.timelineHead === t.length) {
      this.timeline = [];
      this.timelineHead = 0;
      // nothing left to time out: no timer keeps the process alive
      if (this.sweepTimer) clearTimeout(this.sweepTimer);
      this.sweepTimer = undefined;
    } else if (this.timelineHead > 1024 && this.timelineHead * 2 > t.length) {
      this.timeline = t.slice(this.timelineHead);
      this.timelineHead = 0;
    }
  }

  /** Times out every operation whose deadline passed, then waits for the next deadline. */
  private sweep(): void {
    this.sweepTimer = undefined;
    const now = performance.now();
    const t = this.timeline;
    while (this.timelineHead < t.length) {
      const w = t[this.timelineHead] as Waiter;
      if (!w.done && w.deadline > now) break;
      this.timelineHead++;
      if (w.done) continue;
      w.done = true;
      this.unlink(w);
      w.reject(new DuplicateServerTimeout(`no answer from the duplicate server for ${w.uri}`));
    }
    this.dropSettledHead();
    const head = this.timeline[this.timelineHead];
    if (head) this.sweepTimer = setTimeout(() => this.sweep(), Math.max(1, head.deadline - now));
  }

  /** Takes a timed-out operation out of its URI's chain. */
  private unlink(w: Waiter): void {
    const byUri = this.waiters.get(w.collection);
    const head = byUri?.get(w.uri);
    if (!byUri || !head) return;
    if (head === w) {
      if (w.next) byUri.set(w.uri, w.next);
      else byUri.delete(w.uri);
    } else {
      let p = head;
      while (p.next && p.next !== w) p = p.next;
      if (p.next === w) p.next = w.next;
    }
    w.next = undefined;
  }

  private send(msg: FscmtDuplicateServerMessage, priority: FscmtPriority): void {
    this.vclock++;
    this.endpoint.send(this.opts.server, buildFscmtDuplicateServerMessage(msg), priority);
  }
}
