/**
 * The indexing dispatcher: `coreprocessing::session_factory` 5.0. Creates, recreates and closes indexing sessions,
 * each a server object of its own (`indexing-session-<id>`) on the indexer's port, and brings them back after a
 * restart from the journal in the collections' databases (same AOR, same finals, the callbacks still owed).
 *
 *   const d = new IndexingDispatcher(collections, { mw, port: 16390, ... });
 *   await d.restore();
 *   const aor = await d.create(7, 'news', clientCallbackAor);   // then mw.proxy(coreSessionInterface, aor).process(batch)
 *   await d.close(7);                                           // after its batches are written and reported
 */
import {
  operationCallbackInterface,
  coreSessionInterface,
  SystemResourceError,
  UnknownCollection,
  ShuttingDown,
  type Aor,
  type Implementation,
  type coreSessionFactoryInterface,
} from '@esp/interfaces';
import { CallbackSender, type CallbackRetry } from '@esp/content-client';
import type { Logger } from '@esp/logging';
import { BadParameter, type Middleware, type ServerObject } from '@esp/middleware';
import { IdleReaper, systemClock, type Clock } from '@esp/timers';
import { giveUpWhenGone } from './callback-give-up';
import type { Db, DocumentStore } from './collection-store';
import type { CollectionWriter } from './collection-writer';
import { ContentResolver } from './content-resolver';
import { IndexingSession, type SessionLimits } from './indexing-session';
import type { OutboxEntry, SessionJournal } from './session-journal';

/** Everything of one collection. */
export interface CollectionContext {
  name: string;
  db: Db;
  docs: DocumentStore;
  journal: SessionJournal;
  writer: CollectionWriter;
}

export interface DispatcherOptions {
  mw: Middleware;
  /** Port of the session objects' AORs (base port + 390). */
  port: number;
  limits: SessionLimits;
  maxSessions: number;
  retry: CallbackRetry;
  /** Deadline of each callback call (ms). */
  callbackTimeoutMs: number;
  /** How long close(id) waits for the session's callbacks to be delivered before it returns anyway (ms). */
  closeWaitMs: number;
  /** Processed content that came by reference over this size fails its operation (default 100 MiB). */
  maxDocumentBytes?: number;
  /**
   * A session with no open, no batch written and no callback delivered for this long is forgotten, journal included
   * (ms; undefined or 0: never). Its client is gone: a live one feeds, or takes its callbacks.
   */
  idleMs?: number;
  /**
   * Statuses owed to a callback object that nobody serves (object_not_exist) for this long are given up: deleted
   * from the outbox, logged and counted (ms; undefined or 0: retried for ever).
   */
  callbackGiveUpMs?: number;
  clock?: Clock;
  log: Logger;
}

export function sessionObjectId(id: number): string {
  return `indexing-session-${id}`;
}

function sameCallback(a: Aor, b: Aor): boolean {
  return a.host === b.host && a.port === b.port && a.object_id === b.object_id && a.interface_version === b.interface_version;
}

export class IndexingDispatcher implements Implementation<typeof coreSessionFactoryInterface> {
  readonly sessions = new Map<number, IndexingSession>();
  private readonly objects = new Map<number, ServerObject<typeof coreSessionInterface>>();
  private readonly busy = new Map<number, Promise<unknown>>();
  private stopping = false;
  private readonly reaper: IdleReaper<number> | undefined;
  private readonly clock: Clock;
  /** Sessions reaped (idle), and statuses given up (their callback object gone), since start. */
  readonly counters = { reaped: 0, callbacksGivenUp: 0 };

  constructor(
    private readonly collections: ReadonlyMap<string, CollectionContext>,
    private readonly opts: DispatcherOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
    this.reaper = opts.idleMs
      ? new IdleReaper<number>({
          idleMs: opts.idleMs,
          clock: this.clock,
          // batches written and callbacks delivered are signs of life; a batch being written is work under way
          progress: (id) => {
            const s = this.sessions.get(id);
            return s && s.counts.batches + s.sender.delivered;
          },
          busy: (id) => (this.sessions.get(id)?.unreported ?? 0) > 0,
          reap: (id, idleFor) => this.reap(id, idleFor),
          onError: (id, err) => opts.log.warn({ session: id, err: (err as Error).message }, 'idle session not reaped; trying again later'),
        })
      : undefined;
    this.reaper?.start();
  }

  /** Brings back the sessions of the journals: objects activated again, owed callbacks resent. */
  async restore(): Promise<void> {
    let restored = 0;
    let owed = 0;
    const ids: number[] = [];
    for (const coll of this.collections.values()) {
      const outbox = coll.journal.outbox();
      for (const row of coll.journal.sessions()) {
        const other = this.sessions.get(row.id);
        if (other) {
          this.opts.log.error({ session: row.id, collection: coll.name, other: other.collection }, 'session id found in two collections; keeping the first');
          continue;
        }
        const s = this.newSession(coll, row.id, row.callback);
        s.closed = row.closed;
        // restored sessions are reaped too when nobody comes back for them (a client gone for good, or flooding)
        this.reaper?.touch(row.id);
        const entries = outbox.filter((e) => e.session === row.id);
        owed += entries.length;
        s.sender.enqueue(entries);
        if (!s.closed) await this.activate(s);
        else this.forgetIfDone(s);
        restored++;
        if (ids.length < 1000) ids.push(row.id);
      }
    }
    if (restored > 0) this.opts.log.info({ sessions: restored, callbacks_owed: owed, ids }, 'sessions restored from the journal');
  }

  create(id: number, collection: string, callback: Aor): Promise<Aor> {
    return this.serialized(id, () => this.open(id, collection, callback, false));
  }

  recreate(id: number, collection: string, callback: Aor): Promise<Aor> {
    return this.serialized(id, () => this.open(id, collection, callback, true));
  }

  close(id: number): Promise<void> {
    return this.serialized(id, async () => {
      const s = this.sessions.get(id);
      if (!s || s.closed) return;
      s.closed = true;
      s.writer.journal.setClosed(id, true, new Date().toISOString());
      // bounded: the caller has a deadline; what is not done yet is finished in the background
      const deadline = Date.now() + this.opts.closeWaitMs;
      const written = await Promise.race([s.drained().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), this.opts.closeWaitMs).unref())]);
      const delivered = written && (await s.sender.idle(Math.max(0, deadline - Date.now())));
      await this.deactivate(id);
      if (delivered) {
        this.forgetIfDone(s);
        this.opts.log.info({ session: id, collection: s.collection, ...s.counts }, 'session closed');
      } else {
        this.opts.log.warn(
          { session: id, collection: s.collection, batches_queued: s.queue.length, callbacks_owed: s.sender.backlog },
          'session closed with work still owed; finishing it in the background',
        );
      }
    });
  }

  /** Stops taking calls on every session object (their queued batches are still written). */
  async shutdown(): Promise<void> {
    this.stopping = true;
    this.reaper?.stop();
    await Promise.all([...this.objects.keys()].map((id) => this.deactivate(id)));
  }

  private serialized<T>(id: number, fn: () => Promise<T>): Promise<T> {
    const prev = this.busy.get(id) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const settled = next.catch(() => undefined);
    this.busy.set(id, settled);
    void settled.then(() => {
      if (this.busy.get(id) === settled) this.busy.delete(id);
    });
    return next;
  }

  private async open(id: number, collection: string, callback: Aor, recreate: boolean): Promise<Aor> {
    const coll = this.collections.get(collection);
    if (!coll) {
      const served = [...this.collections.keys()];
      throw new UnknownCollection(`collection "${collection}" is not served by this indexer (it serves: ${served.join(', ')})`, { collection, served });
    }
    if (this.stopping) throw new ShuttingDown('the indexer is shutting down');
    const now = new Date().toISOString();
    let s = this.sessions.get(id);
    if (s) {
      if (s.collection !== collection) {
        const reason = `session ${id} is a session of collection "${s.collection}", not "${collection}"`;
        throw new BadParameter(reason, { argument: 'collection', reason });
      }
      if (!sameCallback(callback, s.sender.callback)) {
        if (recreate || s.closed) {
          s.sender.setTarget(this.checkedCallback(callback));
          coll.journal.setCallback(id, callback, now);
        } else {
          this.opts.log.warn({ session: id }, 'create of an existing session with another callback: the callback is kept (recreate changes it)');
        }
      }
      if (s.closed) {
        s.closed = false;
        coll.journal.setClosed(id, false, now);
      }
    } else {
      if (this.sessions.size >= this.opts.maxSessions) {
        throw new SystemResourceError(`the indexer holds ${this.sessions.size} sessions, the most it takes; close some`, { sessions: this.sessions.size });
      }
      this.checkedCallback(callback);
      coll.journal.openSession(id, callback, now);
      s = this.newSession(coll, id, callback);
      this.opts.log.info({ session: id, collection, callback: `${callback.host}:${callback.port}/${callback.object_id}` }, recreate ? 'session recreated (new)' : 'session created');
    }
    this.reaper?.touch(id);
    return (await this.activate(s)).aor;
  }

  /** A session idle for the reaper's time: its object, its callbacks owed and its journal rows are gone. */
  private reap(id: number, idleFor: number): Promise<void> {
    return this.serialized(id, async () => {
      const s = this.sessions.get(id);
      if (!s || this.stopping) return;
      if (s.unreported > 0) {
        this.reaper?.touch(id);
        return;
      }
      await this.deactivate(id);
      const owed = s.sender.backlog;
      await s.sender.stop();
      if (this.sessions.get(id) === s) this.sessions.delete(id);
      s.writer.journal.deleteSession(id);
      this.counters.reaped++;
      this.opts.log.warn(
        { session: id, collection: s.collection, idle_ms: idleFor, closed: s.closed, callbacks_dropped: owed, reaped: this.counters.reaped },
        'session reaped: no open, no batch and no callback delivered for the idle time (journal rows deleted)',
      );
    });
  }

  /** Refuses at once a callback of an incompatible version (the proxy checks the version rule). */
  private checkedCallback(aor: Aor): Aor {
    this.opts.mw.proxy(operationCallbackInterface, aor);
    return aor;
  }

  private newSession(coll: CollectionContext, id: number, callback: Aor): IndexingSession {
    const log = this.opts.log.child({ session: id, collection: coll.name });
    const holder: { s?: IndexingSession } = {};
    const giveUpMs = this.opts.callbackGiveUpMs;
    // the statuses are durable in the outbox: no bound, each acknowledged once delivered; given up only when their
    // callback object has been gone (nobody serves it) for callbackGiveUpMs
    const sender = new CallbackSender<OutboxEntry>({
      proxy: (aor) => this.opts.mw.proxy(operationCallbackInterface, aor, { timeoutMs: this.opts.callbackTimeoutMs }),
      target: callback,
      statusOf: (entry) => entry.status,
      onDelivered: (entry) => {
        coll.writer.ack(entry.seq);
        if (holder.s) this.forgetIfDone(holder.s);
      },
      retry: this.opts.retry,
      clock: this.clock,
      ...(giveUpMs
        ? {
            giveUp: giveUpWhenGone(giveUpMs, this.clock),
            onGivenUp: (entries: OutboxEntry[]) => {
              for (const e of entries) coll.writer.ack(e.seq);
              this.counters.callbacksGivenUp += entries.length;
              const first = entries[0]?.status;
              log.error(
                { callback: `${sender.callback.host}:${sender.callback.port}/${sender.callback.object_id}`, statuses: entries.length, first_op_id: first?.first_op_id, gone_ms: giveUpMs, given_up_total: this.counters.callbacksGivenUp },
                'callback object gone: statuses given up (deleted from the outbox)',
              );
              if (holder.s) this.forgetIfDone(holder.s);
            },
          }
        : {}),
      log,
    });
    const content = new ContentResolver({ store: (bucket) => this.opts.mw.blobs({ bucket }), maxBytes: this.opts.maxDocumentBytes ?? 100 * 1024 * 1024, log });
    const s = new IndexingSession(id, coll.writer, sender, this.opts.limits, log, content);
    holder.s = s;
    this.sessions.set(id, s);
    return s;
  }

  private async activate(s: IndexingSession): Promise<ServerObject<typeof coreSessionInterface>> {
    const existing = this.objects.get(s.id);
    if (existing) return existing;
    const obj = await this.opts.mw.activate(coreSessionInterface, s, { object_id: sessionObjectId(s.id), port: this.opts.port });
    this.objects.set(s.id, obj);
    return obj;
  }

  private async deactivate(id: number): Promise<void> {
    const obj = this.objects.get(id);
    if (!obj) return;
    this.objects.delete(id);
    await this.opts.mw.deactivate(obj as unknown as ServerObject<never>);
  }

  /** A closed session whose batches are written and callbacks delivered is forgotten (journal rows too). */
  private forgetIfDone(s: IndexingSession): void {
    if (!s.closed || s.unreported > 0 || s.sender.backlog > 0 || this.objects.has(s.id)) return;
    if (this.sessions.get(s.id) !== s) return;
    void s.sender.stop();
    this.reaper?.forget(s.id);
    this.sessions.delete(s.id);
    s.writer.journal.deleteSession(s.id);
  }
}
