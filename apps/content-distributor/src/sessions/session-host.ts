import { randomBytes } from 'node:crypto';
import {
  coreSessionFactoryInterface,
  EXTERNAL_SESSION_PORT_OFFSET,
  INDEXING_DISPATCHER_NAME,
  INTERNAL_PORT_OFFSET,
  processingSessionInterface,
  ShuttingDown,
  SystemResourceError,
  UnknownCollection,
  UnknownSession,
  type Aor,
  type SessionGuarantees,
} from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import type { Artifact } from '@esp/ssr';
import type { Clock, IdleReaper } from '@esp/timers';
import type { CollectionHolder } from '../collection-holder';
import type { Dispatcher } from '../dispatch/dispatcher';
import { BatchIntake } from './batch-intake';
import { clientCallbacks } from './client-callbacks';
import { FeedingSession } from './feeding-session';
import { Redispatch } from './redispatch';
import { batchesToRedispatch, decodeSessionArtifact, guaranteesOf, guaranteeStrings } from './session-artifact';
import type { SessionDirectory } from './session-directory';
import type { SessionQuota } from './session-quota';
import { sessionReaper } from './session-reaper';
import { assertOwner, INTERNAL, ownerOf, type SessionCaller } from './session-owner';
import { createSessionStore, type SessionReplicationOptions } from './session-replication';
import type { SessionStore } from './session-store';

export interface SessionHostOptions {
  mw: Middleware;
  log: Logger;
  nodeId: number;
  basePort: number;
  collections: CollectionHolder;
  sessions: SessionDirectory;
  dispatcher: Dispatcher;
  /** Where the indexing session's callbacks go when the client gave none (a recreate). */
  callbackSink: Aor;
  /** Feeding sessions in session replication; undefined: off (a session lives and dies with its distributor). */
  replication: SessionReplicationOptions | undefined;
  /** Per-client quotas: sessions (and, through the intake, bytes in flight); undefined: none. */
  quota?: SessionQuota;
  /** A session with no call and no callback taken by its client for this long is destroyed (ms); undefined: never. */
  idleMs?: number;
  clock?: Clock;
}

/**
 * The feeding sessions of this node (MS-FSCDFT 3.5.4, dispatcher_node): create, recreate, destroy; with session
 * replication, reactivation of a session from its replica, by a client's call or by the replica's timer (SSR 2.13,
 * 2.14), with its batches in flight dispatched again.
 */
export class SessionHost {
  readonly store: SessionStore | undefined;
  readonly intake: BatchIntake;
  private readonly redispatch: Redispatch;
  /** Session opens (create / recreate / reactivation) under way, by id: one at a time per session. */
  private readonly opening = new Map<number, Promise<Aor>>();
  private stopping = false;
  /** Sessions reactivated here from their SSR artifact. */
  reactivated = 0;
  /** Destroys sessions whose client is gone: no call and no callback taken for idleMs (undefined: never). */
  readonly reaper: IdleReaper<number> | undefined;

  constructor(private readonly o: SessionHostOptions) {
    this.store = o.replication ? createSessionStore(o.mw, o.log, o.nodeId, o.replication, (a) => this.onSessionTimer(a)) : undefined;
    this.intake = new BatchIntake(o.dispatcher, () => this.stopping, o.quota);
    this.reaper = o.idleMs
      ? sessionReaper({ idleMs: o.idleMs, clock: o.clock, sessions: o.sessions, quota: o.quota, log: o.log, destroy: (id) => this.destroy(id), stopping: () => this.stopping })
      : undefined;
    this.redispatch = new Redispatch({ log: o.log, dispatcher: o.dispatcher, sessions: o.sessions, stopping: () => this.stopping, deadlineMs: o.replication?.redispatchDeadlineMs ?? 60_000 });
  }

  /** Joins the session replication cluster (when on). */
  async start(): Promise<void> {
    this.reaper?.start();
    if (!this.store) return;
    await this.store.node.start();
    this.o.log.info({ cluster: this.o.replication?.cluster ?? 'feeding', name: this.store.node.name, mode: 'ack' }, 'feeding sessions in session replication');
  }

  get redispatchCounters(): Redispatch['counters'] {
    return this.redispatch.counters;
  }

  /**
   * One open at a time per session id: a client's re-open and the session's replica timer may race for it. An
   * existing session (held here or saved in SSR) is opened again only for the caller that proves it created it
   * (./session-owner); for anyone else SessionNotOwned, and the session, its callback and its batches stay as they
   * were. `recreate`: the indexer's recreate (MS-FSCDFT 3.5.4.3) rather than its create. `guarantees`: those of a
   * new session (a session that exists, here or in SSR, keeps its own).
   */
  open(id: number, collection: string, callback: Aor | undefined, external: boolean, caller: SessionCaller & { recreate?: boolean; guarantees?: SessionGuarantees }): Promise<Aor> {
    const prev = this.opening.get(id) ?? Promise.resolve(undefined as unknown as Aor);
    const guarantees = caller.guarantees ?? { priority: undefined };
    const next = prev.catch(() => undefined).then(() => this.openNow(id, collection, callback, external, caller, caller.recreate === true, guarantees));
    this.opening.set(id, next);
    void next.catch(() => undefined).finally(() => {
      if (this.opening.get(id) === next) this.opening.delete(id);
    });
    return next;
  }

  private async openNow(id: number, collection: string, callback: Aor | undefined, external: boolean, caller: SessionCaller, recreate: boolean, asked: SessionGuarantees): Promise<Aor> {
    const { mw, log, sessions, collections } = this.o;
    if (!(await collections.has(collection))) {
      throw new UnknownCollection(`collection "${collection}" is not configured (known: ${collections.names().join(', ') || 'none'})`, { collection });
    }
    if (this.stopping) throw new ShuttingDown('content distributor is shutting down');
    const existing = sessions.get(id);
    if (existing) {
      this.checkOwner(id, existing.owner, caller);
      this.reaper?.touch(id);
      if (existing.collection !== collection) throw new SystemResourceError(`session id ${id} is in use for collection "${existing.collection}"`, { session: id });
      if (callback && existing.callbacks?.callback.object_id !== callback.object_id) {
        void existing.callbacks?.close();
        existing.callbacks = clientCallbacks(mw, callback, log.child({ session: id }));
        existing.callback = callback;
        if (this.store) await existing.save();
      }
      return existing.object.aor;
    }
    // with session replication: the session may have lived on a distributor that died; its artifact (here, on a
    // replica, or on another instance) is reactivated here by a load request (SSR 2.13, lazy reactivation)
    const saved = this.store ? await this.store.load(id) : undefined;
    if (saved) this.checkOwner(id, saved.owner, caller);
    const guarantees = saved ? guaranteesOf(saved.guarantees) : asked;
    if (saved && saved.collection !== collection) throw new SystemResourceError(`session id ${id} is in use for collection "${saved.collection}"`, { session: id });
    // a new session counts against its client's quota (a reactivated one already was its client's: taken whatever)
    this.admit(id, saved ? saved.owner : ownerOf(caller), saved !== undefined);
    try {
      return await this.activateSession(id, collection, callback, external, caller, recreate, saved);
    } catch (err) {
      this.o.quota?.release(id);
      throw err;
    }
  }

  private async activateSession(
    id: number,
    collection: string,
    callback: Aor | undefined,
    external: boolean,
    caller: SessionCaller,
    recreate: boolean,
    saved: Awaited<ReturnType<SessionStore['load']>>,
  ): Promise<Aor> {
    const { mw, log, sessions } = this.o;
    const { proxy: factory } = await mw.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME, { timeoutMs: 10_000 });
    const clientCallback = callback ?? saved?.callback;
    const sink = clientCallback ?? this.o.callbackSink;
    // 3.5.4.1-3.5.4.3: create_session and create call the indexer's create, recreate its recreate (which takes over
    // the session's callbacks: a recreate carries no callback of its own, so they come to this node). A reactivated
    // session is a recreate: the indexer's outbox then delivers the finals it still owes to the client's callback.
    const coreSession = recreate || saved ? await factory.recreate(id, collection, sink) : await factory.create(id, collection, sink);
    const port = this.o.basePort + (external ? EXTERNAL_SESSION_PORT_OFFSET : INTERNAL_PORT_OFFSET);
    // the object id ends in 96 random bits: its proxy, which create_session gives to the owner alone, is the only way
    // to its process and close (a client that only knows the session's id cannot guess it)
    const objectId = `session_${this.o.nodeId}_${id}_${randomBytes(12).toString('base64url')}`;
    const object = await mw.activate(processingSessionInterface, this.sessionObject(id), { object_id: objectId, port, name: '' });
    const session = new FeedingSession({
      id,
      collection,
      coreSession,
      object,
      callback: clientCallback,
      callbacks: clientCallback ? clientCallbacks(mw, clientCallback, log.child({ session: id })) : undefined,
      // a reactivated session stays its creator's; a new one is the caller's
      owner: saved ? saved.owner : ownerOf(caller),
      guarantees,
      lastAcceptedOpId: saved?.lastAcceptedOpId ?? -1,
      completedOpId: saved?.completedOpId ?? 0,
      store: this.store,
      log,
    });
    const again = saved ? batchesToRedispatch(saved) : [];
    for (const b of again) session.inFlight.set(b.first, b);
    sessions.add(session);
    this.reaper?.touch(id);
    if (this.store) {
      try {
        // this distributor owns the session now (a reactivated one: its new callback and its batches in flight)
        await session.save();
      } catch (err) {
        sessions.remove(session);
        this.reaper?.forget(id);
        await mw.deactivate(session.object).catch(() => undefined);
        session.close();
        throw err;
      }
    }
    if (saved) {
      this.reactivated++;
      const ops = again.reduce((n, b) => n + (b.last - b.first + 1), 0);
      log.warn(
        { session: id, collection, guarantees: saved.guarantees, accepted: saved.lastAcceptedOpId, completed: saved.completedOpId, batches: again.length, ops, first: again[0]?.first, last: again[again.length - 1]?.last },
        'session reactivated from its replica',
      );
      if (again.length) void this.redispatch.send(session, again);
    } else {
      log.info({ session: id, collection, guarantees: guaranteeStrings(guarantees) }, 'session created');
    }
    return session.object.aor;
  }

  /**
   * Counts a new session against its client's quota. A refusal (QuotaExceeded) is logged: the first ten, then every
   * hundredth, so that a flood of refused calls does not flood the log too (each is counted in the quota's refusals).
   */
  private admit(id: number, owner: string | undefined, force: boolean): void {
    try {
      this.o.quota?.admit(id, owner, force);
    } catch (err) {
      const data = (err as { data?: Record<string, unknown> }).data ?? {};
      const refused = this.o.quota?.quota.refusals.get(`sessions/${String(data['scope'])}`) ?? 0;
      if (refused <= 10 || refused % 100 === 0) {
        this.o.log.warn({ session: id, client: data['client'], scope: data['scope'], limit: data['limit'], held: data['held'], refused }, 'session refused: the client is at its quota');
      }
      throw err;
    }
  }

  /** SessionNotOwned unless the caller opened the session; a refusal is logged (an attempt on someone's session). */
  private checkOwner(id: number, owner: string | undefined, caller: SessionCaller): void {
    try {
      assertOwner(id, owner, caller);
    } catch (err) {
      this.o.log.warn({ session: id, err: (err as Error).message }, 'session call refused: the caller is not its owner');
      throw err;
    }
  }

  /** The processing_session object of session `id` (MS-FSDPD 3.3). */
  private sessionObject(id: number) {
    const held = (): FeedingSession => {
      const s = this.o.sessions.get(id);
      if (!s) throw new UnknownSession(`session ${id} is closed`);
      return s;
    };
    return {
      process: (batch: Parameters<BatchIntake['accept']>[1]) => {
        const s = held();
        this.reaper?.touch(id);
        return this.intake.accept(s, batch);
      },
      accepted_op_id: () => {
        const s = held();
        this.reaper?.touch(id);
        return s.lastAcceptedOpId;
      },
      // the close call is in flight on this very object, which deactivation drains: finish after replying
      close: () => {
        setImmediate(() => void this.destroy(id));
      },
    };
  }

  /** Destroys session `id` if it is held here: for its owner (destroy_session), or for the distributor itself. */
  async destroy(id: number, caller: SessionCaller = INTERNAL): Promise<void> {
    const { mw, log, sessions } = this.o;
    const s = sessions.get(id);
    if (!s) return;
    this.checkOwner(id, s.owner, caller);
    sessions.remove(s);
    this.reaper?.forget(id);
    this.o.quota?.release(id);
    s.close();
    await this.store?.remove(id);
    await mw.deactivate(s.object);
    try {
      const { proxy: factory } = await mw.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME, { timeoutMs: 5000 });
      await factory.close(id);
    } catch (err) {
      log.warn({ session: id, err: (err as Error).message }, 'could not close the indexing session');
    }
    log.info({ session: id, collection: s.collection }, 'session destroyed');
  }

  /** Destroys every session of the collection; returns their ids. */
  async removeCollection(collection: string): Promise<number[]> {
    const ids = this.o.sessions
      .all()
      .filter((s) => s.collection === collection)
      .map((s) => s.id);
    for (const id of ids) await this.destroy(id);
    return ids;
  }

  /**
   * A session timer fired on this instance: either the session is held here (it still has batches in flight after
   * the in-flight timer: renew it, the leases deal with the processors) or the session's distributor died and the
   * replica's timer made this, its home, reactivate it (SSR 2.14): open it here, with no client call needed.
   */
  private async onSessionTimer(a: Artifact): Promise<void> {
    const m = /^feeding-session-(\d+)$/.exec(a.id);
    if (!m) return;
    const id = Number(m[1]);
    const held = this.o.sessions.get(id);
    if (held) {
      if (held.inFlight.size) held.saveLater();
      return;
    }
    if (this.stopping) return;
    try {
      const art = decodeSessionArtifact(a.body);
      await this.open(id, art.collection, undefined, false, { ...INTERNAL, recreate: true });
    } catch (err) {
      this.o.log.warn({ session: id, err: (err as Error).message }, 'session timer: reactivation failed; the next call or timer tries again');
    }
  }

  /** Takes no more sessions or batches. */
  beginStop(): void {
    this.stopping = true;
  }

  /** A planned departure: callbacks stop; the others reshape at once and this node's sessions live on in their replicas. */
  async stop(): Promise<void> {
    this.reaper?.stop();
    for (const s of this.o.sessions.all()) void s.callbacks?.close();
    await this.store?.node.leave().catch((err: Error) => this.o.log.warn({ err: err.message }, 'SSR leave failed'));
  }
}

