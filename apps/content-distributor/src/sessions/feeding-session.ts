import type { processingSessionInterface, Aor, SessionGuarantees } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { ServerObject } from '@esp/middleware';
import type { CallbackSender } from '@esp/content-client';
import { guaranteeStrings, type InFlightBatch, type SessionArtifact } from './session-artifact';
import type { SessionStore } from './session-store';

/** How long a save nobody waits for may wait for the next acknowledged one to carry it. */
const LAZY_SAVE_MS = 200;

export interface FeedingSessionInit {
  id: number;
  collection: string;
  coreSession: Aor;
  object: ServerObject<typeof processingSessionInterface>;
  /** The client's operation_callback as given at creation (kept in the session artifact). */
  callback: Aor | undefined;
  callbacks: CallbackSender | undefined;
  /** SHA-256 (hex) of the client's owner token (./session-owner); undefined: opened without one. */
  owner: string | undefined;
  /** The guarantees it was created with (MS-FSCDFT 3.5.4.1): its feeding priority, kept in its artifact. */
  guarantees: SessionGuarantees;
  lastAcceptedOpId: number;
  completedOpId: number;
  /** Feeding sessions in SSR; undefined when session replication is off. */
  store: SessionStore | undefined;
  log: Logger;
}

/**
 * A feeding session held by this distributor (MS-FSDPD 3.3): its indexing session, its client's callbacks, its
 * operation ids and, with session replication, its batches in flight and the saves of its artifact.
 */
export class FeedingSession {
  readonly id: number;
  readonly collection: string;
  readonly coreSession: Aor;
  readonly object: ServerObject<typeof processingSessionInterface>;
  callback: Aor | undefined;
  callbacks: CallbackSender | undefined;
  /** Whose the session is: the hash of its owner token, kept in its artifact so that it outlives this distributor. */
  readonly owner: string | undefined;
  readonly guarantees: SessionGuarantees;
  lastAcceptedOpId: number;
  completedOpId: number;
  /** With session replication: batches accepted and not yet reported processed, by first operation id. */
  readonly inFlight = new Map<number, InFlightBatch>();
  readonly store: SessionStore | undefined;
  /** A save nobody waits for, deferred so that the next acknowledged save (the next batch) carries it. */
  private lazySave: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly log: Logger;

  constructor(init: FeedingSessionInit) {
    this.id = init.id;
    this.collection = init.collection;
    this.coreSession = init.coreSession;
    this.object = init.object;
    this.callback = init.callback;
    this.callbacks = init.callbacks;
    this.owner = init.owner;
    this.guarantees = init.guarantees;
    this.lastAcceptedOpId = init.lastAcceptedOpId;
    this.completedOpId = init.completedOpId;
    this.store = init.store;
    this.log = init.log;
  }

  /** The artifact of the session as it is now. */
  artifact(): SessionArtifact {
    let accepted = this.lastAcceptedOpId;
    // a batch being accepted counts as accepted in the artifact: it is in it, so a new home sends it on
    for (const b of this.inFlight.values()) if (b.last > accepted) accepted = b.last;
    return { id: this.id, collection: this.collection, callback: this.callback, owner: this.owner, guarantees: guaranteeStrings(this.guarantees), lastAcceptedOpId: accepted, completedOpId: this.completedOpId, inFlight: [...this.inFlight.values()] };
  }

  save(): Promise<void> {
    if (this.lazySave) {
      clearTimeout(this.lazySave);
      this.lazySave = undefined;
    }
    return this.store ? this.store.save(this.id, () => this.artifact()) : Promise.resolve();
  }

  /**
   * A save nobody waits for (a batch left the distributor's hands, or was refused): a stale artifact only means a
   * harmless copy after a death. Deferred by LAZY_SAVE_MS: under a steady feed the next batch's save carries it, which
   * halves the SSR writes (bench:ssr-feed).
   */
  saveLater(): void {
    if (!this.store || this.lazySave || this.closed) return;
    this.lazySave = setTimeout(() => {
      this.lazySave = undefined;
      if (this.closed) return;
      this.save().catch((err: Error) => this.log.debug({ session: this.id, err: err.message }, 'session artifact not updated'));
    }, LAZY_SAVE_MS);
    this.lazySave.unref?.();
  }

  /** Batches within [first, last] are with the indexer now (processed) or reported lost: out of the artifact. */
  forgetInFlight(first: number, last: number): void {
    if (!this.store || !this.inFlight.size) return;
    const gone: InFlightBatch[] = [];
    for (const [k, b] of this.inFlight) {
      if (b.first >= first && b.last <= last) {
        this.inFlight.delete(k);
        gone.push(b);
      }
    }
    if (!gone.length) return;
    this.store.retire(this.id, gone);
    this.saveLater();
  }

  /** No longer held here: no more callbacks, no more deferred saves. */
  close(): void {
    this.closed = true;
    void this.callbacks?.close();
    if (this.lazySave) clearTimeout(this.lazySave);
    this.lazySave = undefined;
  }
}
