import type { Aor } from '@esp/interfaces';
import type { DocumentId, OperationSet } from '@esp/codecs';

/** One operation handed to an item processor: what the item operation holder, item identifier holder and session mapper keep. */
export interface InFlightOperation {
  opId: number;
  docId: DocumentId | undefined;
  sessionId: number;
}

export interface ProcessorEntry {
  name: string;
  proxy: Aor;
  host: string;
  pid: number;
  busy: boolean;
  /** Refuses work (shutting_down) until it registers again. */
  terminating: boolean;
  lastUsed: number;
  /** Lease Timeout of this processor in ms (renew sets it). */
  leaseMs: number;
  /** The item operation holder entry of this processor. */
  inFlight: InFlightOperation[];
  /** Session of the batch in flight (the session mapper keyed by this processor's operations). */
  batchSessionId: number | undefined;
  /** The batch in flight as it was sent (one per processor): what goes to another processor if this one dies. */
  batch: OperationSet | undefined;
  /** Declared dead by PPP liveness: gets no batches until it heartbeats again. */
  dead: boolean;
}

/**
 * The procserver_handler's abstract data model (MS-FSDPD 3.5.1) in one place: item processing component holder, pid
 * holder, item operation holder, item identifier holder, session mapper and busy state. Pure: no I/O, no timers.
 * Which processor gets a batch is the dispatch rule's (./dispatch-rule).
 */
export class ProcessorPool {
  private readonly byName = new Map<string, ProcessorEntry>();
  private tick = 0;

  constructor(private readonly defaultLeaseMs: number) {}

  register(name: string, proxy: Aor, host: string, pid: number): ProcessorEntry {
    const previous = this.byName.get(name);
    const entry: ProcessorEntry = {
      name,
      proxy,
      host,
      pid,
      busy: false,
      terminating: false,
      lastUsed: 0,
      leaseMs: previous?.leaseMs ?? this.defaultLeaseMs,
      inFlight: [],
      batchSessionId: undefined,
      batch: undefined,
      dead: false,
    };
    this.byName.set(name, entry);
    return entry;
  }

  /** Removes the processor; returns the operations it still held (they have no final status yet). */
  unregister(name: string): InFlightOperation[] {
    const e = this.byName.get(name);
    this.byName.delete(name);
    return e?.inFlight ?? [];
  }

  get(name: string): ProcessorEntry | undefined {
    return this.byName.get(name);
  }

  all(): ProcessorEntry[] {
    return [...this.byName.values()];
  }

  get size(): number {
    return this.byName.size;
  }

  /** Marks busy and records the batch's operations in the holders. */
  assign(e: ProcessorEntry, sessionId: number, ops: InFlightOperation[], batch?: OperationSet): void {
    e.busy = true;
    e.lastUsed = ++this.tick;
    e.inFlight = ops;
    e.batchSessionId = sessionId;
    e.batch = batch;
  }

  /** Undoes assign when the processor refused the batch before taking it. */
  release(e: ProcessorEntry): void {
    e.busy = false;
    e.inFlight = [];
    e.batchSessionId = undefined;
    e.batch = undefined;
  }

  /**
   * processed(name, ...): busy false; drops first..last from the item operation holder and session mapper. Returns
   * the operations that were dropped.
   */
  processed(name: string, firstOpId: number, lastOpId: number): InFlightOperation[] {
    const e = this.byName.get(name);
    if (!e) return [];
    const done = e.inFlight.filter((o) => o.opId >= firstOpId && o.opId <= lastOpId);
    e.inFlight = e.inFlight.filter((o) => o.opId < firstOpId || o.opId > lastOpId);
    e.busy = false;
    if (e.inFlight.length === 0) {
      e.batchSessionId = undefined;
      e.batch = undefined;
    }
    return done;
  }

  /** Lease Timeout: takes every operation the processor holds (they are now lost) and frees it. */
  expire(name: string): InFlightOperation[] {
    const e = this.byName.get(name);
    if (!e) return [];
    const lost = e.inFlight;
    e.inFlight = [];
    e.busy = false;
    e.batchSessionId = undefined;
    e.batch = undefined;
    return lost;
  }

  /**
   * Declared dead (PPP liveness): no more batches for it; takes the batch it held, with its operations and session,
   * so that it can go to another processor.
   */
  declareDead(name: string): { sessionId: number; batch: OperationSet | undefined; ops: InFlightOperation[] } | undefined {
    const e = this.byName.get(name);
    if (!e) return undefined;
    e.dead = true;
    const held = e.inFlight.length && e.batchSessionId !== undefined ? { sessionId: e.batchSessionId, batch: e.batch, ops: e.inFlight } : undefined;
    e.inFlight = [];
    e.busy = false;
    e.batchSessionId = undefined;
    e.batch = undefined;
    return held;
  }

  get inFlightBatches(): number {
    let n = 0;
    for (const e of this.byName.values()) if (e.busy) n++;
    return n;
  }
}
