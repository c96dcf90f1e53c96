/**
 * The dispatch rule (MS-FSDPD 3.5.6 and what this distributor adds to it), in one place: which batch goes next and
 * which item processor gets it. Pure: the state in, a decision out; time is a number the caller reads from its Clock.
 * Changing how batches are dispatched means changing this file and its spec, nothing else.
 *
 *   const p = pickProcessor(pool.all(), tried);              // undefined: none free
 *   for (const w of waitingOrder(queue)) ...                  // batches waiting for a processor, in turn
 *   const why = newBatchMustWait(queue);                      // 'orphans' | 'redispatches' | undefined
 *   if (!p && whenNoneTook(w, pool.all(), clock.now()) === 'lose') reportLost(w);
 */

/** What the rule reads of an item processor (a ProcessorEntry of the pool). */
export interface ProcessorState {
  name: string;
  busy: boolean;
  /** Refuses work (shutting_down) until it registers again. */
  terminating: boolean;
  /** Declared dead by PPP liveness. */
  dead: boolean;
  /** Order of its last assignment (higher: more recent). */
  lastUsed: number;
}

/**
 * A batch waiting for a processor: an orphan (the batch of a processor declared dead) or a re-dispatch (a batch in
 * flight of a session reactivated from its replica).
 */
export interface WaitingState {
  kind: 'orphan' | 'redispatch';
  /** Arrival order among the waiting batches. */
  seq: number;
  /** Orphan: the processor declared dead; it does not get its own batch back. */
  from?: string;
  /** Re-dispatch: the clock time after which a batch no processor took is reported lost. */
  deadline?: number;
}

/** Whether the processor may get a batch now: not busy, not shutting down, not declared dead. */
export function isFree(p: ProcessorState): boolean {
  return !p.busy && !p.terminating && !p.dead;
}

/** Whether the processor takes batches at all (busy or not). */
export function isLive(p: ProcessorState): boolean {
  return !p.dead && !p.terminating;
}

/** The processor that gets the next batch: a free one, least recently used first (MS-FSDPD 3.5.6). */
export function pickProcessor<P extends ProcessorState>(processors: Iterable<P>, exclude: ReadonlySet<string> = new Set()): P | undefined {
  let best: P | undefined;
  for (const p of processors) {
    if (!isFree(p) || exclude.has(p.name)) continue;
    if (!best || p.lastUsed < best.lastUsed) best = p;
  }
  return best;
}

/** Processors that never get this waiting batch. */
export function excludedFor(w: WaitingState): ReadonlySet<string> {
  return new Set(w.from === undefined ? [] : [w.from]);
}

/** The waiting batches in the order they get processors: orphans and re-dispatches alike, in arrival order. */
export function waitingOrder<W extends WaitingState>(waiting: readonly W[]): W[] {
  return [...waiting].sort((a, b) => a.seq - b.seq);
}

/**
 * A new batch of a client goes only when no batch waits: batches already accepted go first. Returns what it waits
 * for (the client hears processors_busy and retries shortly), undefined when it may go.
 */
export function newBatchMustWait(waiting: readonly WaitingState[]): 'orphans' | 'redispatches' | undefined {
  if (waiting.some((w) => w.kind === 'orphan')) return 'orphans';
  if (waiting.some((w) => w.kind === 'redispatch')) return 'redispatches';
  return undefined;
}

/**
 * A waiting batch that no processor took now: 'wait' for one, or 'lose' it (its operations are reported lost to the
 * indexer; the client resubmits them). An orphan waits while another live processor is busy (it takes the batch when
 * done), and is lost when there is none. A re-dispatch waits until its deadline (right after a failover the
 * processors of the dead distributor register again within a heartbeat or two).
 */
export function whenNoneTook(w: WaitingState, processors: Iterable<ProcessorState>, now: number): 'wait' | 'lose' {
  if (w.kind === 'redispatch') return now > (w.deadline ?? Number.POSITIVE_INFINITY) ? 'lose' : 'wait';
  for (const p of processors) if (p.name !== w.from && isLive(p) && p.busy) return 'wait';
  return 'lose';
}
