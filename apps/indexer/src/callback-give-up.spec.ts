import { OperationState, OperationStatusInfo } from '@esp/codecs';
import { CallbackSender } from '@esp/content-client';
import type { Aor } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { CallTimeout, ObjectNotExist } from '@esp/middleware';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { giveUpWhenGone } from './callback-give-up';

const log = createLogger('give-up-test', {}, { level: 'silent' });
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
};
const aor: Aor = { name: '', object_id: 'cb', host: 'h', port: 1, interface_type: 'coreprocessing::operation_callback', interface_version: '5.1' };
const status = (op: number) => new OperationStatusInfo({ first_op_id: op, last_op_id: op, state: OperationState.completed, subsystem: 'indexing', errors: [], warnings: [] });

/** A sender of durable statuses as the indexer makes it: backoff 100 ms to 1 s, given up after 60 s gone. */
function setup() {
  const clock = new ManualClock();
  const state = { fail: (): unknown => new ObjectNotExist('nobody serves cb') as unknown };
  let ok = false;
  const givenUp: number[] = [];
  const sender = new CallbackSender<OperationStatusInfo>({
    proxy: () => ({
      callbacks: async () => {
        if (!ok) throw state.fail();
      },
    }),
    target: aor,
    statusOf: (s) => s,
    retry: { initialMs: 100, maxMs: 1000 },
    giveUp: giveUpWhenGone(60_000, clock),
    onGivenUp: (items) => givenUp.push(...items.map((s) => s.first_op_id)),
    clock,
    log,
  });
  const run = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 100) {
      clock.advance(100);
      await settle();
    }
  };
  return { clock, sender, state, givenUp, run, up: (v: boolean) => (ok = v) };
}

describe('giveUpWhenGone: statuses owed to a callback object nobody serves', () => {
  it('are retried while the object is gone for less than the give-up time, and given up (handed to onGivenUp) after it', async () => {
    const { sender, givenUp, run } = setup();
    sender.enqueue([status(1), status(2)]);
    await settle();
    await run(58_000);
    expect(givenUp).toEqual([]);
    expect(sender.backlog).toBe(2);
    await run(4_000);
    expect(givenUp).toEqual([1, 2]);
    expect(sender.backlog).toBe(0);
    expect(await sender.idle(0)).toBe(true);
  });

  it('a failure of another kind (a timeout: the client is slow, not gone) starts the count again; so does a delivery', async () => {
    const { sender, state, givenUp, run, up } = setup();
    sender.enqueue([status(1)]);
    await settle();
    await run(50_000);
    state.fail = () => new CallTimeout('slow client');
    await run(3_000);
    state.fail = () => new ObjectNotExist('gone again');
    await run(50_000);
    expect(givenUp).toEqual([]);
    up(true);
    await run(2_000);
    expect(sender.backlog).toBe(0);
    up(false);
    sender.enqueue([status(2)]);
    await settle();
    await run(50_000);
    expect(givenUp).toEqual([]);
    await run(12_000);
    expect(givenUp).toEqual([2]);
  });
});
