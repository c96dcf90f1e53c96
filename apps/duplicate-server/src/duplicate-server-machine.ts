/**
 * The duplicate server of MS-FSCMT 3.3 (and, for messages forwarded by another duplicate server, the replica of
 * 3.4) as a state machine: messages in, messages out through `send`, the checksum store behind an interface, time
 * from a Clock. No transport here; `duplicate-server.ts` wires it to the crawl bus and wraps each batch of messages
 * in one store transaction, so that every answer leaves only after what it acknowledges is committed.
 *
 *   const m = new DuplicateServerMachine({ id: 'dup1', replica: replicaAddress, store, clock, send });
 *   m.handle(from, dict, priority);   // PPDUP_SET_CONFIG, PPDUP_ADD, PPDUP_REMOVE, ...
 *
 * With a replica, a checksum add or remove is forwarded to it (with PKT_PPDUP_ID and PKT_DBNAME) and the node
 * scheduler is answered only once the replica acknowledged (3.3.5.4, 3.3.5.5). Messages about the same checksum
 * that arrive meanwhile wait in that checksum's queue and are processed, in order, after the acknowledgement. A
 * replica that does not acknowledge within `replicaTimeoutMs` fails the operation with PPDUP_ERROR (carrying PKT_URI
 * so the node scheduler knows which one): every operation ends in exactly one answer.
 */
import {
  buildFscmtDuplicateServerMessage,
  decodeFswcu,
  encodeFswcu,
  FSCMT_COMMANDS,
  FSCMT_KEYS,
  FswcuDict,
  readFscmtDuplicateServerMessage,
  type FscmtDuplicateServerMessage,
  type FscmtPriority,
} from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { Clock, TimerHandle } from '@esp/timers';
import type { ChecksumStore } from './checksum-store';

export const CHECKSUM_BYTES = 16;
export const DEFAULT_KEEPALIVE_MS = 120_000;
export const DEFAULT_REPLICA_TIMEOUT_MS = 10_000;
/** Keep-alive rounds a peer may miss before it no longer counts as connected. */
const MISSED_KEEPALIVES_BEFORE_GONE = 3;

type Add = Extract<FscmtDuplicateServerMessage, { command: 'PPDUP_ADD' }>;
type Remove = Extract<FscmtDuplicateServerMessage, { command: 'PPDUP_REMOVE' }>;

interface Queued {
  from: string | undefined;
  dict: FswcuDict;
  priority: FscmtPriority;
}

interface Pending {
  kind: 'add' | 'remove';
  from: string | undefined;
  msg: Add | Remove;
  /** For removes: whether this server's mapping was removed (then the node schedulers are asked to promote). */
  removed: boolean;
  queued: Queued[];
  timer: TimerHandle;
}

interface Collection {
  config: FswcuDict;
  state: 'active' | 'removing';
  /** Node schedulers that talked to us about this collection (receivers of PPDUP_PROMOTE_REQ). */
  nodes: Set<string>;
}

export type ReplicaState = 'none' | 'normal' | 'transition' | 'awaiting-ack';

export interface DuplicateServerMachineOptions {
  /** This server's node identifier (PKT_PPDUP_ID in what it forwards). */
  id: string;
  /** Address of this server's replica, if it has one. */
  replica?: string;
  store: ChecksumStore;
  clock: Clock;
  send: (to: string, dict: FswcuDict, priority: FscmtPriority) => void;
  log?: Logger;
  keepaliveMs?: number;
  replicaTimeoutMs?: number;
}

export interface DuplicateServerStats {
  adds: number;
  duplicates: number;
  removes: number;
  promotes: number;
  errors: number;
  replicated: number;
  discarded: number;
}

export class DuplicateServerMachine {
  readonly stats: DuplicateServerStats = { adds: 0, duplicates: 0, removes: 0, promotes: 0, errors: 0, replicated: 0, discarded: 0 };
  private readonly collections = new Map<string, Collection>();
  private readonly pending = new Map<string, Pending>();
  /** Peers seen, with the keep-alive rounds they left unanswered. */
  private readonly peers = new Map<string, number>();
  /** Configurations the replica has not been sent yet (3.3.5.1 transition state). */
  private readonly replicaConfigsToSend = new Set<string>();
  /** PKT_VCLOCK of the last PPDUP_SET_CONFIG sent to the replica and not yet acknowledged. */
  private awaitedVclock: number | undefined;
  /** Messages sent to the replica: the vector clock of that connection. */
  private replicaVclock = 0;
  private keepaliveTimer: TimerHandle | undefined;
  private readonly log: Logger | undefined;
  /**
   * A node scheduler sent a checksum message here directly: if this server is some server's replica, it has been
   * taken over (the node schedulers left a primary they took for dead) and from now on refuses what that primary
   * still forwards, so a primary that was only cut off cannot overwrite owners this server gave out (two owners of
   * one content). Not in the spec (3.4 only says overwrite); kept in memory, so it holds until a restart.
   */
  private servesNodes = false;

  constructor(private readonly opts: DuplicateServerMachineOptions) {
    this.log = opts.log;
    for (const c of opts.store.collections()) {
      const config = decodeFswcu(c.config);
      this.collections.set(c.name, { config: config instanceof FswcuDict ? config : new FswcuDict(), state: c.state, nodes: new Set() });
      // after a restart the replica may lack configurations: send them all before the next forwarded checksum
      if (opts.replica && c.state === 'active') this.replicaConfigsToSend.add(c.name);
    }
    if (opts.replica) this.peers.set(opts.replica, 0);
  }

  get replicaState(): ReplicaState {
    if (!this.opts.replica) return 'none';
    if (this.replicaConfigsToSend.size > 0) return 'transition';
    return this.awaitedVclock === undefined ? 'normal' : 'awaiting-ack';
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  collectionNames(): string[] {
    return [...this.collections.keys()];
  }

  /** Starts the Keep-Alive timer (3.3.2, 3.3.6). */
  start(): void {
    const every = this.opts.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
    const tick = (): void => {
      this.keepaliveTimeout();
      this.keepaliveTimer = this.opts.clock.setTimeout(tick, every);
    };
    this.keepaliveTimer = this.opts.clock.setTimeout(tick, every);
  }

  stop(): void {
    if (this.keepaliveTimer) this.opts.clock.clearTimeout(this.keepaliveTimer);
    for (const p of this.pending.values()) this.opts.clock.clearTimeout(p.timer);
  }

  handle(from: string | undefined, dict: FswcuDict, priority: FscmtPriority = 0): void {
    if (from !== undefined && !this.peers.has(from)) this.peers.set(from, 0);
    let msg: FscmtDuplicateServerMessage;
    try {
      msg = readFscmtDuplicateServerMessage(dict);
    } catch (err) {
      this.stats.errors++;
      const dn = dict.getText(FSCMT_KEYS.PKT_DSPECNAME);
      const dspecName = typeof dn === 'string' ? dn : dn instanceof Uint8Array ? new TextDecoder().decode(dn) : '';
      this.log?.warn({ from, err: (err as Error).message }, 'refused a malformed duplicate server message');
      this.reply(from, { command: 'PPDUP_ERROR', dspecName, why: (err as Error).message });
      return;
    }
    switch (msg.command) {
      case 'PPDUP_SET_CONFIG':
        return this.setConfig(from, msg);
      case 'PPDUP_CONFIG_ACK':
        return this.configAck(from, msg.vclock);
      case 'PPDUP_CONF_REMOVE':
        return this.confRemove(from, msg.dspecName, msg.ppdupId);
      case 'PPDUP_CONF_REMOVE2':
        return this.confRemove2(msg.dspecName);
      case 'PPDUP_ADD':
      case 'PPDUP_REMOVE': {
        const forwarded = msg.ppdupId !== undefined && msg.ppdupId !== this.opts.id;
        if (forwarded && this.servesNodes) return this.fail(from, msg.dspecName, msg.uri, 'this replica has taken over: it serves the node schedulers now');
        if (!forwarded) this.servesNodes = true;
        if (msg.command === 'PPDUP_ADD') return forwarded ? this.replicaAdd(from, dict, msg) : this.add(from, dict, priority, msg);
        return forwarded ? this.replicaRemove(from, dict, msg) : this.remove(from, dict, priority, msg);
      }
      case 'PPDUP_ADD_OK':
      case 'PPDUP_REMOVE_OK':
        return this.replicaAcknowledged(from, dict, msg.dspecName, msg.uri, msg.command === 'PPDUP_ADD_OK' ? 'add' : 'remove');
      case 'PPDUP_KEEPALIVE':
        return this.reply(from, { command: 'PPDUP_KEEPALIVE_ACK' }, 1);
      case 'PPDUP_KEEPALIVE_ACK':
        if (from !== undefined) this.peers.set(from, 0);
        return;
      case 'PPDUP_ERROR':
        this.log?.warn({ from, collection: msg.dspecName, why: msg.why }, 'PPDUP_ERROR received');
        return;
      case 'PPDUP_PROMOTE_REQ':
        // addressed to node schedulers; a duplicate server has nothing to recrawl
        this.stats.discarded++;
        return;
    }
  }

  // 3.3.5.1 (and 3.4.5.1 on a replica)
  private setConfig(from: string | undefined, msg: Extract<FscmtDuplicateServerMessage, { command: 'PPDUP_SET_CONFIG' }>): void {
    // With PKT_DSPECNAME, PKT_DATA is that collection's configuration; without, a dict of name -> configuration.
    const configs: Array<[string, FswcuDict]> = [];
    if (msg.dspecName !== undefined) configs.push([msg.dspecName, msg.config]);
    else {
      for (const [k, v] of msg.config.entries) {
        const name = typeof k === 'string' ? k : k instanceof Uint8Array ? new TextDecoder().decode(k) : undefined;
        if (name !== undefined && v instanceof FswcuDict) configs.push([name, v]);
      }
    }
    const fromReplica = from !== undefined && from === this.opts.replica;
    for (const [name, config] of configs) {
      const existing = this.collections.get(name);
      if (existing?.state === 'removing') {
        this.stats.discarded++;
        continue;
      }
      this.opts.store.setConfig(name, encodeFswcu(config));
      const c = existing ?? { config, state: 'active' as const, nodes: new Set<string>() };
      c.config = config;
      this.collections.set(name, c);
      if (from !== undefined && !fromReplica) c.nodes.add(from);
      if (this.opts.replica && !fromReplica) this.replicaConfigsToSend.add(name);
    }
    this.reply(from, { command: 'PPDUP_CONFIG_ACK', vclock: msg.vclock }, 1);
  }

  // 3.3.5.8
  private configAck(from: string | undefined, vclock: number): void {
    if (from === undefined || from !== this.opts.replica || vclock !== this.awaitedVclock) {
      this.log?.debug({ from, vclock, awaited: this.awaitedVclock }, 'ignored a PPDUP_CONFIG_ACK that answers no current PPDUP_SET_CONFIG');
      return;
    }
    this.awaitedVclock = undefined;
  }

  /** Before the first checksum message after a configuration change, the replica gets the configuration. */
  private configureReplica(): void {
    const replica = this.opts.replica;
    if (!replica || this.replicaConfigsToSend.size === 0) return;
    for (const name of this.replicaConfigsToSend) {
      const c = this.collections.get(name);
      if (!c || c.state !== 'active') continue;
      const vclock = this.replicaVclock + 1;
      this.sendToReplica({ command: 'PPDUP_SET_CONFIG', config: c.config, vclock, dspecName: name });
      this.awaitedVclock = vclock;
    }
    this.replicaConfigsToSend.clear();
  }

  // 3.3.5.2 / 3.4.5.2
  private confRemove(from: string | undefined, name: string, ppdupId: string | undefined): void {
    if (ppdupId !== undefined && ppdupId !== this.opts.id) {
      // forwarded by the server this one replicates: remove everything now
      this.opts.store.dropCollection(name);
      this.collections.delete(name);
      return;
    }
    const c = this.collections.get(name);
    if (!c) return;
    this.opts.store.clearChecksums(name);
    this.opts.store.setState(name, 'removing');
    c.state = 'removing';
    this.replicaConfigsToSend.delete(name);
    for (const [key, p] of this.pending) {
      if (p.msg.dspecName !== name) continue;
      this.opts.clock.clearTimeout(p.timer);
      this.pending.delete(key);
      for (const op of [p, ...p.queued.map((q) => ({ from: q.from, msg: safeRead(q.dict) }))]) {
        if (op.msg) this.fail(op.from, name, op.msg.uri, 'crawl collection removed');
      }
    }
    if (this.opts.replica) this.sendToReplica({ command: 'PPDUP_CONF_REMOVE', dspecName: name, ppdupId: this.opts.id });
    this.log?.info({ from, collection: name }, 'collection removal started');
  }

  // 3.3.5.3
  private confRemove2(name: string): void {
    if (!this.collections.has(name)) return;
    this.opts.store.dropCollection(name);
    this.collections.delete(name);
    this.log?.info({ collection: name }, 'collection removed');
  }

  /** The collection a checksum message may act on, or undefined after answering / discarding it. */
  private activeCollection(from: string | undefined, name: string, uri: string): Collection | undefined {
    const c = this.collections.get(name);
    if (!c) {
      this.fail(from, name, uri, `unknown crawl collection "${name}" (no PPDUP_SET_CONFIG for it)`);
      return undefined;
    }
    if (c.state === 'removing') {
      this.stats.discarded++;
      return undefined;
    }
    if (from !== undefined) c.nodes.add(from);
    return c;
  }

  // 3.3.5.4
  private add(from: string | undefined, dict: FswcuDict, priority: FscmtPriority, msg: Add): void {
    if (!this.activeCollection(from, msg.dspecName, msg.uri)) return;
    if (msg.csum.length !== CHECKSUM_BYTES) return this.fail(from, msg.dspecName, msg.uri, `PKT_CSUM must be ${CHECKSUM_BYTES} bytes, got ${msg.csum.length}`);
    // without a replica nothing is ever pending: skip building the key on that hot path
    const key = this.pending.size > 0 || this.opts.replica ? pendingKey(msg.dspecName, msg.csum) : '';
    const pending = key ? this.pending.get(key) : undefined;
    if (pending) {
      pending.queued.push({ from, dict, priority });
      return;
    }
    if (!this.opts.replica) {
      // no replica to wait for: insert-or-look-up in one go (inside the batch's transaction, answered after COMMIT)
      const existing = this.opts.store.claim(msg.dspecName, msg.csum, { uri: msg.uri, node: msg.id });
      if (existing) this.stats.duplicates++;
      else this.stats.adds++;
      return this.addOk(from, msg, existing ? existing.uri : msg.uri, priority);
    }
    const owner = this.opts.store.get(msg.dspecName, msg.csum);
    if (owner) {
      this.stats.duplicates++;
      return this.addOk(from, msg, owner.uri, priority);
    }
    this.configureReplica();
    this.sendToReplica({ ...msg, ppdupId: this.opts.id, dbName: this.opts.store.dbName(msg.dspecName) }, priority);
    this.pending.set(key, { kind: 'add', from, msg, removed: false, queued: [], timer: this.replicaTimer(key) });
  }

  // 3.3.5.5
  private remove(from: string | undefined, dict: FswcuDict, priority: FscmtPriority, msg: Remove): void {
    if (!this.activeCollection(from, msg.dspecName, msg.uri)) return;
    const key = pendingKey(msg.dspecName, msg.csum);
    const pending = this.pending.get(key);
    if (pending) {
      pending.queued.push({ from, dict, priority });
      return;
    }
    // Only the owner's remove takes the mapping away; another node's copy of the content never owned it.
    const owner = this.opts.store.get(msg.dspecName, msg.csum);
    const removed = owner !== undefined && owner.uri === msg.uri;
    if (removed) {
      this.opts.store.delete(msg.dspecName, msg.csum);
      this.stats.removes++;
    }
    if (!this.opts.replica || !removed) return this.removeDone(from, msg, removed, priority);
    this.configureReplica();
    this.sendToReplica({ ...msg, ppdupId: this.opts.id, dbName: this.opts.store.dbName(msg.dspecName) }, priority);
    this.pending.set(key, { kind: 'remove', from, msg, removed, queued: [], timer: this.replicaTimer(key) });
  }

  /** PPDUP_ADD_OK / PPDUP_REMOVE_OK from the replica (3.3.5.7, 3.3.5.9). */
  private replicaAcknowledged(from: string | undefined, dict: FswcuDict, name: string, uri: string, kind: 'add' | 'remove'): void {
    if (from === undefined || from !== this.opts.replica) {
      this.log?.debug({ from, collection: name, uri }, `ignored a ${kind} acknowledgement that is not from this server's replica`);
      return;
    }
    const csum = dict.getText(FSCMT_KEYS.PKT_CSUM);
    let key = csum instanceof Uint8Array ? pendingKey(name, csum) : undefined;
    if (key === undefined) {
      // a replica that does not echo PKT_CSUM: find the operation by collection and URI
      for (const [k, p] of this.pending) if (p.msg.dspecName === name && p.msg.uri === uri && p.kind === kind) key = k;
    }
    const p = key === undefined ? undefined : this.pending.get(key);
    if (!p || key === undefined || p.kind !== kind || p.msg.uri !== uri) {
      this.log?.debug({ collection: name, uri, kind }, 'ignored a replica acknowledgement with no pending operation');
      return;
    }
    this.opts.clock.clearTimeout(p.timer);
    this.pending.delete(key);
    this.stats.replicated++;
    if (p.kind === 'add') {
      this.opts.store.put(p.msg.dspecName, p.msg.csum, { uri: p.msg.uri, node: p.msg.id });
      this.stats.adds++;
      this.addOk(p.from, p.msg, p.msg.uri, 0);
    } else {
      this.removeDone(p.from, p.msg, p.removed, 0);
    }
    this.replay(p.queued);
  }

  private replicaTimer(key: string): TimerHandle {
    return this.opts.clock.setTimeout(() => {
      const p = this.pending.get(key);
      if (!p) return;
      this.pending.delete(key);
      this.log?.warn({ replica: this.opts.replica, collection: p.msg.dspecName, uri: p.msg.uri, kind: p.kind }, 'replica did not acknowledge in time');
      if (p.kind === 'remove' && p.removed) {
        // the local mapping is gone already; the node scheduler learns that the replica may still hold it
        this.removeDone(p.from, p.msg, true, 0);
      } else {
        this.fail(p.from, p.msg.dspecName, p.msg.uri, `replica did not acknowledge the ${p.kind} within ${this.opts.replicaTimeoutMs ?? DEFAULT_REPLICA_TIMEOUT_MS} ms`);
      }
      this.replay(p.queued);
    }, this.opts.replicaTimeoutMs ?? DEFAULT_REPLICA_TIMEOUT_MS);
  }

  private replay(queued: Queued[]): void {
    for (const q of queued) this.handle(q.from, q.dict, q.priority);
  }

  private addOk(to: string | undefined, msg: Add | Remove, ownUri: string, priority: FscmtPriority): void {
    this.reply(to, { command: 'PPDUP_ADD_OK', dspecName: msg.dspecName, id: msg.id, uri: msg.uri, ownUri }, priority);
  }

  private removeDone(to: string | undefined, msg: Add | Remove, removed: boolean, priority: FscmtPriority): void {
    if (removed) {
      // 3.3.5.5 step 5: every node scheduler of the collection recrawls its copies, so one of them becomes owner
      const c = this.collections.get(msg.dspecName);
      for (const node of c?.nodes ?? []) {
        this.opts.send(node, buildFscmtDuplicateServerMessage({ command: 'PPDUP_PROMOTE_REQ', dspecName: msg.dspecName, csum: msg.csum }), 0);
        this.stats.promotes++;
      }
    }
    this.reply(to, { command: 'PPDUP_REMOVE_OK', dspecName: msg.dspecName, uri: msg.uri }, priority);
  }

  // 3.4.5.3: overwrite, answer with the same key/value pairs
  private replicaAdd(from: string | undefined, dict: FswcuDict, msg: Add): void {
    this.ensureCollection(msg.dspecName);
    this.opts.store.put(msg.dspecName, msg.csum, { uri: msg.uri, node: msg.id });
    this.stats.adds++;
    this.echo(from, dict, FSCMT_COMMANDS.PPDUP_ADD_OK);
  }

  // 3.4.5.4
  private replicaRemove(from: string | undefined, dict: FswcuDict, msg: Remove): void {
    if (this.opts.store.delete(msg.dspecName, msg.csum)) this.stats.removes++;
    this.echo(from, dict, FSCMT_COMMANDS.PPDUP_REMOVE_OK);
  }

  private ensureCollection(name: string): void {
    if (this.collections.has(name)) return;
    const config = new FswcuDict();
    this.opts.store.setConfig(name, encodeFswcu(config));
    this.collections.set(name, { config, state: 'active', nodes: new Set() });
  }

  private echo(to: string | undefined, dict: FswcuDict, command: number): void {
    if (to === undefined) return;
    const out = new FswcuDict(dict.entries.map(([k, v]) => [k, v]));
    out.setText(FSCMT_KEYS.PKT_CMD, command);
    this.opts.send(to, out, 0);
  }

  private fail(to: string | undefined, dspecName: string, uri: string, why: string): void {
    this.stats.errors++;
    if (to === undefined) return;
    const dict = buildFscmtDuplicateServerMessage({ command: 'PPDUP_ERROR', dspecName, why });
    // PKT_URI is not part of PPDUP_ERROR in 2.2.5.2; it is added so the node scheduler can tell which add failed
    dict.setText(FSCMT_KEYS.PKT_URI, new TextEncoder().encode(uri));
    this.opts.send(to, dict, 0);
  }

  private reply(to: string | undefined, msg: FscmtDuplicateServerMessage, priority: FscmtPriority = 0): void {
    if (to === undefined) return;
    this.opts.send(to, buildFscmtDuplicateServerMessage(msg), priority);
  }

  private sendToReplica(msg: FscmtDuplicateServerMessage, priority: FscmtPriority = 0): void {
    if (this.opts.replica === undefined) return;
    this.replicaVclock++;
    this.opts.send(this.opts.replica, buildFscmtDuplicateServerMessage(msg), priority);
  }

  // 3.3.6
  private keepaliveTimeout(): void {
    for (const [peer, missed] of this.peers) {
      if (missed > 0) this.log?.warn({ peer, missed }, 'no PPDUP_KEEPALIVE_ACK since the previous keep-alive');
      if (missed >= MISSED_KEEPALIVES_BEFORE_GONE && peer !== this.opts.replica) {
        this.peers.delete(peer);
        for (const c of this.collections.values()) c.nodes.delete(peer);
        continue;
      }
      this.peers.set(peer, missed + 1);
      if (peer === this.opts.replica) this.sendToReplica({ command: 'PPDUP_KEEPALIVE' }, 1);
      else this.opts.send(peer, buildFscmtDuplicateServerMessage({ command: 'PPDUP_KEEPALIVE' }), 1);
    }
  }
}

function pendingKey(collection: string, csum: Uint8Array): string {
  return `${collection}\u0000${Buffer.from(csum.buffer, csum.byteOffset, csum.byteLength).toString('hex')}`;
}

function safeRead(dict: FswcuDict): Add | Remove | undefined {
  try {
    const m = readFscmtDuplicateServerMessage(dict);
    return m.command === 'PPDUP_ADD' || m.command === 'PPDUP_REMOVE' ? m : undefined;
  } catch {
    return undefined;
  }
}

