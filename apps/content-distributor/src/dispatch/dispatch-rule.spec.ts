import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { excludedFor, newBatchMustWait, pickProcessor, waitingOrder, whenNoneTook, type ProcessorState, type WaitingState } from './dispatch-rule';

const proc = (name: string, o: Partial<ProcessorState> = {}): ProcessorState => ({ name, busy: false, terminating: false, dead: false, lastUsed: 0, ...o });

/** A little world: processors, and batches that start waiting at the clock's time. */
class World {
  readonly clock = new ManualClock(1_000);
  readonly processors: ProcessorState[] = [];
  readonly waiting: WaitingState[] = [];
  private seq = 0;
  private tick = 0;

  add(...names: string[]): this {
    for (const n of names) this.processors.push(proc(n));
    return this;
  }

  get(name: string): ProcessorState {
    const p = this.processors.find((e) => e.name === name);
    if (!p) throw new Error(name);
    return p;
  }

  /** What the dispatcher does once the rule picked: assign (busy, used now). */
  assign(name: string): void {
    Object.assign(this.get(name), { busy: true, lastUsed: ++this.tick });
  }

  orphan(from: string): WaitingState {
    const w: WaitingState = { kind: 'orphan', seq: this.seq++, from };
    this.waiting.push(w);
    return w;
  }

  redispatch(deadlineMs: number): WaitingState {
    const w: WaitingState = { kind: 'redispatch', seq: this.seq++, deadline: this.clock.now() + deadlineMs };
    this.waiting.push(w);
    return w;
  }
}

describe('dispatch rule: which processor gets a batch (MS-FSDPD 3.5.6)', () => {
  it('pick - a free processor, least recently used first', () => {
    const w = new World().add('a', 'b', 'c');
    expect(pickProcessor(w.processors)?.name).toBe('a');
    w.assign('a');
    expect(pickProcessor(w.processors)?.name).toBe('b');
    w.assign('b');
    w.assign('c');
    expect(pickProcessor(w.processors)).toBeUndefined();
    Object.assign(w.get('b'), { busy: false });
    Object.assign(w.get('a'), { busy: false });
    expect(pickProcessor(w.processors)?.name).toBe('a'); // a was used before b
  });

  it('pick - never a busy, shutting down, dead or excluded processor', () => {
    const w = new World().add('busy', 'terminating', 'dead', 'tried', 'free');
    Object.assign(w.get('busy'), { busy: true });
    Object.assign(w.get('terminating'), { terminating: true });
    Object.assign(w.get('dead'), { dead: true });
    Object.assign(w.get('free'), { lastUsed: 5 });
    expect(pickProcessor(w.processors, new Set(['tried']))?.name).toBe('free');
    expect(pickProcessor(w.processors, new Set(['tried', 'free']))).toBeUndefined();
  });

  it('pick - an orphan never goes back to the processor declared dead, even once it is alive again', () => {
    const w = new World().add('a', 'b');
    const o = w.orphan('a');
    expect(pickProcessor(w.processors, excludedFor(o))?.name).toBe('b');
    w.assign('b');
    expect(pickProcessor(w.processors, excludedFor(o))).toBeUndefined();
    expect(excludedFor(w.redispatch(1000)).size).toBe(0);
  });
});

describe('dispatch rule: which batch goes next', () => {
  it('order - orphans and re-dispatches alike, in arrival order', () => {
    const w = new World();
    const r1 = w.redispatch(60_000);
    const o1 = w.orphan('a');
    const r2 = w.redispatch(60_000);
    const o2 = w.orphan('b');
    expect(waitingOrder([o2, r2, o1, r1])).toEqual([r1, o1, r2, o2]);
  });

  it('new batch - waits for orphans first, then for re-dispatches, else goes', () => {
    const w = new World();
    expect(newBatchMustWait(w.waiting)).toBeUndefined();
    w.redispatch(60_000);
    expect(newBatchMustWait(w.waiting)).toBe('redispatches');
    w.orphan('a');
    expect(newBatchMustWait(w.waiting)).toBe('orphans');
  });
});

describe('dispatch rule: a waiting batch no processor took', () => {
  it('orphan - waits while another live processor is busy, lost when none is', () => {
    const w = new World().add('dead', 'b', 'c');
    Object.assign(w.get('dead'), { dead: true });
    const o = w.orphan('dead');
    w.assign('b');
    w.assign('c');
    expect(whenNoneTook(o, w.processors, w.clock.now())).toBe('wait');
    Object.assign(w.get('b'), { terminating: true });
    expect(whenNoneTook(o, w.processors, w.clock.now())).toBe('wait');
    Object.assign(w.get('c'), { dead: true });
    expect(whenNoneTook(o, w.processors, w.clock.now())).toBe('lose');
  });

  it('orphan - its own processor busy again (alive, took a new batch) does not keep it waiting', () => {
    const w = new World().add('a');
    const o = w.orphan('a');
    w.assign('a');
    expect(whenNoneTook(o, w.processors, w.clock.now())).toBe('lose');
  });

  it('orphan - time does not make it lost while a processor is busy', () => {
    const w = new World().add('dead', 'b');
    Object.assign(w.get('dead'), { dead: true });
    const o = w.orphan('dead');
    w.assign('b');
    w.clock.advance(3_600_000);
    expect(whenNoneTook(o, w.processors, w.clock.now())).toBe('wait');
  });

  it('re-dispatch - waits up to its deadline, even with no processor at all, then is lost', () => {
    const w = new World();
    const r = w.redispatch(60_000);
    expect(whenNoneTook(r, w.processors, w.clock.now())).toBe('wait');
    w.clock.advance(60_000);
    expect(whenNoneTook(r, w.processors, w.clock.now())).toBe('wait');
    w.clock.advance(1);
    expect(whenNoneTook(r, w.processors, w.clock.now())).toBe('lose');
  });

  it('re-dispatch - each batch on its own deadline', () => {
    const w = new World();
    const early = w.redispatch(1_000);
    w.clock.advance(500);
    const late = w.redispatch(1_000);
    w.clock.advance(501);
    expect(whenNoneTook(early, w.processors, w.clock.now())).toBe('lose');
    expect(whenNoneTook(late, w.processors, w.clock.now())).toBe('wait');
  });
});
