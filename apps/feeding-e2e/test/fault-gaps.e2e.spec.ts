import { FeedingClient } from '@esp/content-client';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { FAULT_GAP_GOALS_MS, FAULTS, FaultGapStack, formatTimeline, runFaultGap, type OpenGapFeed } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Faults cost seconds, not a call timeout: the stack of `npm start` (node controller with the indexer, two content
 * distributors and two item processors) under a feed, one fault each, and the longest time in which the content
 * client saw no document finish. The same rig as `npm run bench:faults` (20,000 documents a fault, as the bench), with
 * one stack for the four faults, in this order (the master change last), to stay within a few minutes on two cores.
 */
const DOCS = 20_000;

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

describe('fault gaps: the longest time without a final status after one fault (stack of npm start, separate processes)', () => {
  let stack: FaultGapStack;
  beforeAll(async () => {
    stack = await FaultGapStack.start();
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  for (const fault of FAULTS) {
    it(`${fault}: every operation ends once, every completed document is found, no healthy process restarted, and the gap is at most ${FAULT_GAP_GOALS_MS[fault]} ms`, async () => {
      const r = await runFaultGap(stack, { fault, docs: DOCS, open, drainMs: 120_000, feedTimeoutMs: 200_000 });
      process.stdout.write(
        `${fault}: gap ${r.gap.ms} ms (+${r.gap.start}..+${r.gap.end}; goal ${FAULT_GAP_GOALS_MS[fault]} ms; before the fault ${r.baseline.ms} ms), fault at ${r.faultAtMs} ms of ${r.feedMs} ms, ` +
          `session on ${r.sessionOn ?? '?'} (item processors on ${Object.entries(r.processorsOn).map(([p, d]) => `${p}: ${d}`).join(', ')}), victim ${r.victim ?? '-'}${r.heldBatch ? ` (holding operations ${r.heldBatch.first}-${r.heldBatch.last})` : ''}, lost ${r.lost}, resubmitted ${r.resubmitted}, failovers ${r.failovers}, repeated finals ${r.duplicateFinals}\n`,
      );
      if (r.gap.ms > FAULT_GAP_GOALS_MS[fault] || r.problems.length) process.stdout.write(`${formatTimeline(r.timeline).join('\n')}\n`);
      // both are reported when both fail
      expect.soft(r.problems).toEqual([]);
      expect(r.gap.ms).toBeLessThanOrEqual(FAULT_GAP_GOALS_MS[fault]);
    }, 240_000);
  }
});
