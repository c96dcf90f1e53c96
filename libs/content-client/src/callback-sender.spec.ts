import { OperationState, OperationStatusInfo } from '@esp/codecs';
import { ObjectNotExist } from '@esp/middleware';
import type { Aor } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { CallbackSender, type CallbackSenderOptions } from './callback-sender';

const log = createLogger('callback-sender-test', {}, { level: 'silent' });
const settle = () => new Promise<void>((r) => setImmediate(r));
const aor = (id: string): Aor => ({ name: '', object_id: id, host: 'h', port: 1, interface_type: 'processing::operation_callback', interface_version: '5.1' });
const status = (op: number) => new OperationStatusInfo({ first_op_id: op, last_op_id: op, state: OperationState.completed, subsystem: 'indexing', errors: [], warnings: [] });

/** A client's callback objects in memory: each call waits until released, or fails while `failing`. */
function client() {
  const calls: { target: string; ops: number[] }[] = [];
  const state = { failing: undefined as (() => unknown) | undefined, hold: false };
  let release: (() => void) | undefined;
  const proxy = (target: Aor) => ({
    callbacks: async (statuses: OperationStatusInfo[]) => {
      calls.push({ target: target.object_id, ops: statuses.map((s) => s.first_op_id) });
      if (state.hold) await new Promise<void>((r) => (release = r));
      if (state.failing) throw state.failing();
    },
  });
  return { calls, state, proxy, release: () => release?.() };
}

function setup(c: ReturnType<typeof client>, opts: Partial<CallbackSenderOptions<OperationStatusInfo>> = {}) {
  const clock = new ManualClock();
  const delivered: number[] = [];
  const sender = new CallbackSender<OperationStatusInfo>({
    proxy: c.proxy,
    target: aor('cb-1'),
    statusOf: (s) => s,
    onDelivered: (s) => delivered.push(s.first_op_id),
    retry: { initialMs: 100, maxMs: 400 },
    clock,
    log,
    ...opts,
  });
  return { clock, delivered, sender };
}

describe('CallbackSender (statuses to a content client, in order)', () => {
  it('everything that waited while a call was in flight goes in the next call; acknowledged in order', async () => {
    const c = client();
    const { delivered, sender } = setup(c);
    c.state.hold = true;
    sender.enqueue([status(1)]);
    await settle();
    sender.enqueue([status(2), status(3)]);
    sender.enqueue([status(4)]);
    expect(sender.backlog).toBe(4);
    c.state.hold = false;
    c.release();
    expect(await sender.idle(1000)).toBe(true);
    expect(c.calls.map((x) => x.ops)).toEqual([[1], [2, 3, 4]]);
    expect(delivered).toEqual([1, 2, 3, 4]);
    expect(sender.delivered).toBe(4);
  });

  it('a failed call is retried with a doubling backoff, the same statuses first; setTarget tries the new object at once', async () => {
    const c = client();
    const { clock, delivered, sender } = setup(c);
    c.state.failing = () => new Error('timeout');
    sender.enqueue([status(1)]);
    for (const wait of [100, 200, 400, 400]) {
      await settle();
      clock.advance(wait);
    }
    await settle();
    expect(c.calls).toHaveLength(5);
    expect(delivered).toEqual([]);
    sender.enqueue([status(2)]);
    c.state.failing = undefined;
    sender.setTarget(aor('cb-2'));
    expect(await sender.idle(1000)).toBe(true);
    expect(c.calls.slice(4).map((x) => [x.target, x.ops])).toEqual([
      ['cb-1', [1]],
      ['cb-2', [1, 2]],
    ]);
    expect(delivered).toEqual([1, 2]);
  });

  it('maxQueued - beyond it the oldest are dropped, even while in flight; what the call carried and is still there is acknowledged', async () => {
    const c = client();
    const { delivered, sender } = setup(c, { maxQueued: 3 });
    c.state.hold = true;
    sender.enqueue([status(1), status(2)]);
    await settle();
    sender.enqueue([status(3), status(4)]); // 1 dropped while in flight
    c.state.hold = false;
    c.release();
    expect(await sender.idle(1000)).toBe(true);
    expect(c.calls.map((x) => x.ops)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(delivered).toEqual([2, 3, 4]);
    expect(sender.dropped).toBe(1);
  });

  it('giveUp - a client gone for good: everything waiting is dropped and nothing more is tried', async () => {
    const c = client();
    const { clock, sender } = setup(c, { giveUp: (err, failures) => err instanceof ObjectNotExist && failures > 2 });
    c.state.failing = () => new ObjectNotExist('gone');
    sender.enqueue([status(1), status(2)]);
    for (let i = 0; i < 5; i++) {
      await settle();
      clock.advance(400);
    }
    expect(c.calls).toHaveLength(3);
    expect(sender.backlog).toBe(0);
    expect(sender.dropped).toBe(2);
  });

  it('stop keeps what is pending and waits for the call in flight; close drops it; neither takes more', async () => {
    const c = client();
    const { delivered, sender } = setup(c);
    c.state.hold = true;
    sender.enqueue([status(1)]);
    await settle();
    sender.enqueue([status(2)]);
    const stopped = sender.stop();
    c.release();
    await stopped;
    expect(delivered).toEqual([1]);
    expect(sender.backlog).toBe(1);
    sender.enqueue([status(3)]);
    expect(sender.backlog).toBe(1);
    await sender.close();
    expect(sender.backlog).toBe(0);
    expect(c.calls).toHaveLength(1);
  });

  it('idle - false after its timeout while a call cannot get through', async () => {
    const c = client();
    const { clock, sender } = setup(c);
    c.state.failing = () => new Error('away');
    sender.enqueue([status(1)]);
    const idle = sender.idle(250);
    clock.advance(250);
    expect(await idle).toBe(false);
  });
});
