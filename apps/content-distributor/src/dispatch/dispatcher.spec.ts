import { OperationSet } from '@esp/codecs';
import { ProcessorsBusy, type Aor } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { pickProcessor } from './dispatch-rule';
import type { BatchOwners, DispatchTarget } from './dispatch-target';
import { Dispatcher, type WaitingBatch } from './dispatcher';
import type { HandOver } from './hand-over';
import { ProcessorPool, type InFlightOperation } from './processor-pool';

const aor = (id: string): Aor => ({ name: '', object_id: id, host: 'h', port: 1, interface_type: 't', interface_version: '1' });
const ops = (session: number, ...ids: number[]): InFlightOperation[] => ids.map((opId) => ({ opId, sessionId: session, docId: undefined }));
const batch = () => new OperationSet({ operations: [], completed_op_id: 0 });
const settle = () => new Promise<void>((r) => setImmediate(r));

/**
 * The dispatcher's waiting batches with a stand-in for the hand-over (every processor the rule picks takes the batch:
 * the transport is hand-over.ts's and the e2e suites'), time on a ManualClock.
 */
function setup(processors: string[]) {
  const clock = new ManualClock(0);
  const pool = new ProcessorPool(300_000);
  for (const n of processors) pool.register(n, aor(n), 'h', 1);
  const handedTo: string[] = [];
  const handOver: Pick<HandOver, 'place'> = {
    place: async (target, b, o, opts) => {
      const p = pickProcessor(pool.all(), opts.exclude);
      if (!p) return undefined;
      pool.assign(p, target.id, o, b);
      handedTo.push(p.name);
      return p;
    },
  };
  const lost: { ops: number[]; why: string }[] = [];
  const sessions = new Map<number, DispatchTarget>([[1, { id: 1, collection: 'c', coreSession: aor('core') }]]);
  const owners: BatchOwners = {
    target: (id) => sessions.get(id),
    processed: () => undefined,
    lost: async (o, why) => void lost.push({ ops: o.map((x) => x.opId), why }),
  };
  const dispatcher = new Dispatcher({ log: createLogger('dispatcher-spec', {}, { level: 'silent' }), clock, pool, handOver, owners });
  const orphan = (from: string, ...ids: number[]): Omit<WaitingBatch, 'seq'> => ({ kind: 'orphan', from, sessionId: 1, batch: batch(), ops: ops(1, ...ids), lostWhy: `${from} died` });
  return { clock, pool, dispatcher, handedTo, lost, sessions, orphan };
}

describe('Dispatcher: batches waiting for an item processor', () => {
  it('an orphan goes to another free processor at once, never back to the dead one', async () => {
    const { pool, dispatcher, handedTo, orphan } = setup(['a', 'b']);
    pool.declareDead('a');
    await dispatcher.enqueue([orphan('a', 1, 2)]);
    expect(handedTo).toEqual(['b']);
    expect(dispatcher.waitingCount()).toBe(0);
  });

  it('an orphan waits while another live processor is busy, and new batches get processors_busy meanwhile', async () => {
    const { pool, dispatcher, handedTo, lost, orphan } = setup(['a', 'b']);
    pool.assign(pool.get('b')!, 1, ops(1, 9));
    pool.declareDead('a');
    await dispatcher.enqueue([orphan('a', 1, 2)]);
    expect(dispatcher.waitingCount('orphan')).toBe(1);
    await expect(dispatcher.placeNew({ id: 1, collection: 'c', coreSession: aor('core') }, batch(), ops(1, 10))).rejects.toThrow(ProcessorsBusy);
    pool.processed('b', 9, 9);
    dispatcher.kick();
    await settle();
    expect(handedTo).toEqual(['b']);
    expect(lost).toEqual([]);
    expect(dispatcher.waitingCount()).toBe(0);
  });

  it('an orphan is lost at once when no other processor is live', async () => {
    const { pool, dispatcher, lost, orphan } = setup(['a']);
    pool.declareDead('a');
    await dispatcher.enqueue([orphan('a', 1, 2)]);
    expect(lost).toEqual([{ ops: [1, 2], why: 'a died' }]);
  });

  it('an orphan of a closed session is lost: its processor died', async () => {
    const { pool, dispatcher, lost, sessions, orphan } = setup(['a', 'b']);
    sessions.delete(1);
    pool.declareDead('a');
    await dispatcher.enqueue([orphan('a', 3)]);
    expect(lost).toEqual([{ ops: [3], why: 'item processor a declared dead' }]);
  });

  it('a re-dispatch waits, looked at again on a backoff, for a processor that registers later', async () => {
    const { clock, pool, dispatcher, handedTo } = setup([]);
    let taken = 0;
    await dispatcher.enqueue([{ kind: 'redispatch', sessionId: 1, batch: batch(), ops: ops(1, 5), deadline: clock.now() + 60_000, lostWhy: 'late', taken: () => taken++ }]);
    expect(dispatcher.waitingCount('redispatch')).toBe(1);
    pool.register('late', aor('late'), 'h', 2);
    clock.advance(200);
    await settle();
    expect(handedTo).toEqual(['late']);
    expect(taken).toBe(1);
  });

  it('a re-dispatch that no processor takes before its deadline is lost; one no longer wanted is dropped', async () => {
    const { clock, dispatcher, lost } = setup([]);
    let lostHook = 0;
    let wanted = true;
    await dispatcher.enqueue([
      { kind: 'redispatch', sessionId: 1, batch: batch(), ops: ops(1, 5), deadline: clock.now() + 1000, lostWhy: 'no processor within 1000 ms', lost: () => lostHook++ },
      { kind: 'redispatch', sessionId: 1, batch: batch(), ops: ops(1, 6), deadline: clock.now() + 1000, lostWhy: 'never', wanted: () => wanted },
    ]);
    wanted = false;
    for (let t = 0; t < 12; t++) {
      clock.advance(200);
      await settle();
    }
    expect(lost).toEqual([{ ops: [5], why: 'no processor within 1000 ms' }]);
    expect(lostHook).toBe(1);
    expect(dispatcher.waitingCount()).toBe(0);
    expect(clock.pending).toBe(0);
  });
});
