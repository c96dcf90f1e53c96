/**
 * bench:faults — the longest time a content client sees no document finish after one fault, on the stack of `npm
 * start` (name server, config server, a node controller running the indexer, two content distributors and two item
 * processors; real processes on a real nats-server). Each run starts a fresh stack, feeds small documents (300 B to
 * 32 KB, text and HTML) and injects its fault once 30 % of them have their final status:
 *
 *   nats-restart     nats-server stopped, down 2 s, started again on the same port and store
 *   kill-processor   SIGKILL of item-processor-1 (the node controller restarts it)
 *   kill-indexer     SIGKILL of the indexer (the node controller restarts it)
 *   kill-master      SIGKILL of the master content distributor (the backup takes over; the node controller restarts it)
 *
 *   npm run bench:faults [-- --fault nats-restart|kill-processor|kill-indexer|kill-master|all --runs 5 --docs 20000 --timeline]
 *
 * Each run must keep everything (exactly one final status per operation, every completed document found by the
 * indexer's search, no process restarted but the victim) or the bench exits 1. Prints per run the gap, the gap
 * before the fault (the load alone) and, with --timeline or when a gap is over its goal, the log lines of the stack
 * around it; last line <fault>_gap_ms_max=... for each fault run. Goals: nats-restart <= 5 s, kill-processor <= 4 s,
 * kill-indexer <= 5 s, kill-master <= 3 s.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { FeedingClient } from '@esp/content-client';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { FAULT_GAP_GOALS_MS, FAULTS, FaultGapStack, FaultGapTimeout, formatTimeline, runFaultGap, type Fault, type OpenGapFeed } from '@esp/testing';
import { fmt, median } from './stats';

const { values } = parseArgs({ options: { fault: { type: 'string', default: 'all' }, runs: { type: 'string', default: '5' }, docs: { type: 'string', default: '20000' }, timeline: { type: 'boolean', default: false } } });
const faults: Fault[] = values.fault === 'all' ? [...FAULTS] : [values.fault as Fault];
if (!faults.every((f) => FAULTS.includes(f))) {
  console.error(`--fault must be one of ${FAULTS.join(', ')} or all, got "${values.fault}"`);
  process.exit(2);
}
const RUNS = Number(values.runs);
const DOCS = Number(values.docs);

/** A FeedingClient on its own connection, and the indexer's search interface to check what was kept. */
const open: OpenGapFeed = async ({ natsUrl, collection, onFinal, logs }) => {
  const log = createLogger('fault-gap-client', {}, { level: 'info', destination: logs });
  const mw = await Middleware.connect({ name: 'fault-gap-client', servers: natsUrl, logger: log });
  const client = await FeedingClient.open({ mw, collection, log, onOutcome: (id, o) => onFinal(id, o.kind === 'completed') });
  // resolved at each use: the indexer may have been restarted since
  const search = async () => (await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME)).proxy;
  return {
    client,
    count: async () => (await search()).count(collection),
    missing: async (ids) => {
      const s = await search();
      const out: string[] = [];
      for (let k = 0; k < ids.length; k += 200) {
        const chunk = ids.slice(k, k + 200);
        const found = await Promise.all(chunk.map((id) => s.get(collection, id)));
        chunk.forEach((id, j) => found[j] === null && out.push(id));
      }
      return out;
    },
    close: () => mw.close(),
  };
};

const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

async function main(): Promise<number> {
  const gaps = new Map<Fault, number[]>();
  let failures = 0;
  for (let run = 1; run <= RUNS; run++) {
    for (const fault of faults) {
      const stack = await FaultGapStack.start();
      try {
        const r = await runFaultGap(stack, { fault, docs: DOCS, open });
        gaps.set(fault, [...(gaps.get(fault) ?? []), r.gap.ms]);
        const over = r.gap.ms > FAULT_GAP_GOALS_MS[fault];
        console.log(
          `run ${run} ${fault}: gap ${fmt(r.gap.ms, 0)} ms (+${r.gap.start}..+${r.gap.end})${over ? ` (over the goal of ${FAULT_GAP_GOALS_MS[fault]})` : ''}, before the fault ${fmt(r.baseline.ms, 0)} ms; ` +
            `docs ${r.docs}, fault at ${r.faultAtMs} ms, all final at ${r.feedMs} ms; session on ${r.sessionOn ?? '?'} (item processors on ${Object.entries(r.processorsOn).map(([p, d]) => `${p}: ${d}`).join(', ')}), victim ${r.victim ?? '-'}${r.heldBatch ? ` (holding operations ${r.heldBatch.first}-${r.heldBatch.last})` : ''}; lost ${r.lost}, resubmitted ${r.resubmitted}, failovers ${r.failovers}, repeated finals ${r.duplicateFinals}; load ${load()}`,
        );
        for (const p of r.problems) console.log(`  NOT KEPT: ${p}`);
        if (r.problems.length) failures++;
        if (values.timeline || over || r.problems.length) for (const line of formatTimeline(r.timeline)) console.log(`  ${line}`);
      } catch (err) {
        // a run that never ended counts as a failure with what the stack said; the next run starts fresh
        if (!(err instanceof FaultGapTimeout)) throw err;
        failures++;
        gaps.set(fault, [...(gaps.get(fault) ?? []), Infinity]);
        console.log(`run ${run} ${fault}: ${err.message}; load ${load()}`);
        for (const line of formatTimeline(err.timeline)) console.log(`  ${line}`);
      } finally {
        await stack.stop();
      }
    }
  }
  for (const [fault, g] of gaps) console.log(`${fault}: runs ${g.length}, gap median ${fmt(median(g), 0)} ms, max ${fmt(Math.max(...g), 0)} ms (goal ${FAULT_GAP_GOALS_MS[fault]} ms)`);
  console.log(`docs=${DOCS} runs=${RUNS} failures=${failures} load=${load()}`);
  console.log([...gaps].map(([fault, g]) => `${fault.replace('-', '_')}_gap_ms_max=${fmt(Math.max(...g), 0)}`).join(' '));
  return failures ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
