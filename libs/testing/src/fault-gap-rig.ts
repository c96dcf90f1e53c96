import { longestGap, unexpectedRestarts, type Gap, type RigLogLine } from './fault-gap';
import { gapDocument, type GapDocument } from './fault-gap-documents';
import { type Fault, type FaultGapStack } from './fault-gap-stack';
import { waitFor } from './wait-for';

/**
 * The fault-gap rig: the stack of `npm start` (name server, config server, and a node controller running the indexer,
 * two content distributors and two item processors) on a real nats-server, one fault in the middle of a feed, and
 * the longest time in which the content client saw no document finish.
 *
 *   const stack = await FaultGapStack.start();
 *   const r = await runFaultGap(stack, { fault: 'kill-indexer', docs: 20_000, open });   // open: a FeedingClient
 *   r.gap.ms; r.problems;                                                               // [] when all was kept
 *   await stack.stop();
 *
 * The content client comes from the caller (`open`), so that this lib needs neither the middleware nor the client.
 */

/** What the rig needs of a content client: a FeedingClient of @esp/content-client fits. */
export interface GapFeedClient {
  feed(doc: GapDocument): Promise<void>;
  drain(timeoutMs: number): Promise<{ stats: { duplicateFinals: number; lost: number; resubmitted: number; failovers: number }; unfinished: string[] }>;
  close(): Promise<void>;
}

export interface GapFeedConnection {
  client: GapFeedClient;
  /** Documents the collection holds. */
  count(): Promise<number>;
  /** Of these ids, those the index does not find. */
  missing(ids: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

/** Connects a content client to the stack; `onFinal` is called once per final status, `logs` takes its JSON log lines. */
export type OpenGapFeed = (o: { natsUrl: string; collection: string; onFinal: (docId: string, completed: boolean) => void; logs: NodeJS.WritableStream }) => Promise<GapFeedConnection>;

export interface FaultGapResult {
  fault: Fault;
  docs: number;
  victim: string | undefined;
  /** The content distributor that created the client's session (a master kill costs most when it is the master). */
  sessionOn: string | undefined;
  /** Each item processor's content distributor (dispatcher id) when the fault hit. */
  processorsOn: Record<string, number>;
  /** The batch a killed item processor held (operations first..last), if it held one. */
  heldBatch: { first: number; last: number } | undefined;
  /** Longest time without a final status from the fault to the last one (start and end: ms after the fault). */
  gap: Gap;
  /** The same before the fault, after the first tenth of the feed: what the load alone costs (ms after the fault, so negative). */
  baseline: Gap;
  /** ms from the first document sent to the fault, and to the last final status. */
  faultAtMs: number;
  feedMs: number;
  lost: number;
  resubmitted: number;
  failovers: number;
  /** Final callbacks repeated for an operation that had one (at least once across a crash): counted, not applied. */
  duplicateFinals: number;
  /** What was not kept: operations without exactly one final status, documents not found, unexpected restarts. */
  problems: string[];
  /** Log lines from just before the fault to just after the gap (RigLogLine, times relative to the fault). */
  timeline: RigLogLine[];
}

/** The feed did not end in time: the stack did not recover. `timeline` holds what its processes said since the fault. */
export class FaultGapTimeout extends Error {
  override readonly name = 'FaultGapTimeout';
  constructor(
    message: string,
    readonly timeline: RigLogLine[],
  ) {
    super(message);
  }
}

/**
 * Feeds `docs` documents, injects the fault once `faultAfter` of them have their final status, waits for every
 * final status and checks what was kept.
 */
export async function runFaultGap(
  stack: FaultGapStack,
  o: { fault: Fault; docs: number; open: OpenGapFeed; faultAfter?: number; drainMs?: number; prefix?: string; feedTimeoutMs?: number },
): Promise<FaultGapResult> {
  const N = o.docs;
  const prefix = o.prefix ?? `${o.fault}-${Date.now().toString(36)}`;
  const times: number[] = [];
  const finals = new Map<string, number>();
  const failed: string[] = [];
  const opened = Date.now();
  const conn = await o.open({
    natsUrl: stack.ns.url,
    collection: stack.collection,
    logs: stack.clientLogSink(),
    onFinal: (id, completed) => {
      times.push(Date.now());
      finals.set(id, (finals.get(id) ?? 0) + 1);
      if (!completed) failed.push(id);
    },
  });
  try {
    const before = await stack.processes();
    const countBefore = await conn.count();
    const start = Date.now();
    const feeding = (async () => {
      for (let i = 0; i < N; i++) await conn.client.feed(gapDocument(i, prefix));
    })();
    await waitFor(() => times.length >= Math.ceil((o.faultAfter ?? 0.3) * N), { what: `${(o.faultAfter ?? 0.3) * 100} % of the documents final`, timeoutMs: 300_000, intervalMs: 5 });
    const sessionOn = stack.logs.findLast((l) => l.msg === 'session created' && l.time >= opened)?.process;
    const processorsOn = stack.registrations();
    const hit = await stack.inject(o.fault);
    const wholeAt = hit.done.then(() => Date.now());
    wholeAt.catch(() => undefined); // awaited below, after the drain
    const heldBatch = hit.victim?.startsWith('item-processor') ? stack.batchHeldBy(hit.victim) : undefined;
    // a feed that never ends would block here for good: a timeout with what the stack said instead
    let timer: NodeJS.Timeout | undefined;
    const limit = o.feedTimeoutMs ?? 600_000;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FaultGapTimeout(`${o.fault}: the feed did not end within ${limit} ms of the fault (${times.length} of ${N} final)`, stack.timeline(hit.at - 500, Date.now()).map((l) => ({ ...l, time: l.time - hit.at })))), limit);
    });
    const { stats, unfinished } = await Promise.race([feeding.then(() => conn.client.drain(o.drainMs ?? 300_000)), stuck]).finally(() => clearTimeout(timer));
    const last = times[times.length - 1] ?? Date.now();
    const whole = await wholeAt;
    const after = await stack.waitRunning(90_000);
    const problems: string[] = [];
    if (unfinished.length) problems.push(`${unfinished.length} operations without a final status (e.g. ${unfinished.slice(0, 3).join(', ')})`);
    const twice = [...finals].filter(([, n]) => n > 1).length;
    // a final callback repeated (callbacks are at least once across an indexer crash) is counted by the client and
    // not applied; what must hold is one final outcome per document
    if (twice) problems.push(`${twice} documents with more than one final outcome`);
    if (failed.length) problems.push(`${failed.length} documents failed (e.g. ${failed.slice(0, 3).join(', ')})`);
    const failedIds = new Set(failed);
    const completedIds = [...finals.keys()].filter((id) => !failedIds.has(id));
    const missing = await conn.missing(completedIds);
    if (missing.length) problems.push(`${missing.length} completed documents not found by the index (e.g. ${missing.slice(0, 3).join(', ')})`);
    const held = (await conn.count()) - countBefore;
    if (held !== completedIds.length) problems.push(`the collection grew by ${held} documents, ${completedIds.length} completed`);
    problems.push(...unexpectedRestarts(before, after, hit.victim));
    const warm = times[Math.floor(N / 10)] ?? start;
    const gap = longestGap(times, hit.at, last);
    const relative = (g: Gap): Gap => ({ ms: g.ms, start: g.start - hit.at, end: g.end - hit.at });
    return {
      fault: o.fault,
      docs: N,
      victim: hit.victim,
      heldBatch,
      sessionOn,
      processorsOn,
      gap: relative(gap),
      baseline: relative(longestGap(times, warm, hit.at)),
      faultAtMs: hit.at - start,
      feedMs: last - start,
      lost: stats.lost,
      resubmitted: stats.resubmitted,
      failovers: stats.failovers,
      duplicateFinals: stats.duplicateFinals,
      problems,
      timeline: stack.timeline(hit.at - 500, Math.max(gap.end, whole) + 1000).map((l) => ({ ...l, time: l.time - hit.at })),
    };
  } finally {
    await conn.client.close().catch(() => undefined);
    await conn.close().catch(() => undefined);
  }
}

