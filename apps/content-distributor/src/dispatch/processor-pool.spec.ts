import { DocumentId, OperationSet } from '@esp/codecs';
import type { Aor } from '@esp/interfaces';
import { describe, expect, it } from 'vitest';
import { isLive, pickProcessor } from './dispatch-rule';
import { ProcessorPool } from './processor-pool';

const aor = (id: string): Aor => ({ name: '', object_id: id, host: 'h', port: 1, interface_type: 'processing::processor_server', interface_version: '5.2' });
const ops = (session: number, ...ids: number[]) => ids.map((opId) => ({ opId, sessionId: session, docId: new DocumentId({ id: `d${opId}` }) }));

describe('ProcessorPool (MS-FSDPD 3.5.1 holders)', () => {
  it('picks a free processor, least recently used first, never a busy or terminating one', () => {
    const pool = new ProcessorPool(300_000);
    const a = pool.register('a', aor('a'), 'h', 10);
    const b = pool.register('b', aor('b'), 'h', 11);
    pool.register('c', aor('c'), 'h', 12).terminating = true;
    expect(pickProcessor(pool.all())?.name).toBe('a');
    pool.assign(a, 1, ops(1, 1, 2));
    expect(pickProcessor(pool.all())?.name).toBe('b');
    pool.assign(b, 1, ops(1, 3));
    expect(pickProcessor(pool.all())).toBeUndefined();
    pool.processed('a', 1, 2);
    pool.processed('b', 3, 3);
    expect(pickProcessor(pool.all())?.name).toBe('a'); // a was used before b
    expect(pickProcessor(pool.all(), new Set(['a']))?.name).toBe('b');
  });

  it('processed drops first..last from the item operation holder and clears busy', () => {
    const pool = new ProcessorPool(1000);
    const a = pool.register('a', aor('a'), 'h', 10);
    pool.assign(a, 7, ops(7, 5, 6, 7));
    const done = pool.processed('a', 5, 7);
    expect(done.map((o) => o.opId)).toEqual([5, 6, 7]);
    expect(a.busy).toBe(false);
    expect(a.inFlight).toEqual([]);
  });

  it('expire hands back every operation held, with its session (session mapper) and document (item identifier holder)', () => {
    const pool = new ProcessorPool(1000);
    const a = pool.register('a', aor('a'), 'h', 10);
    pool.assign(a, 9, ops(9, 1, 2));
    const lost = pool.expire('a');
    expect(lost.map((o) => [o.opId, o.sessionId, o.docId?.id])).toEqual([
      [1, 9, 'd1'],
      [2, 9, 'd2'],
    ]);
    expect(a.busy).toBe(false);
    expect(pool.expire('a')).toEqual([]);
  });

  it('unregister removes the processor and returns what it still held', () => {
    const pool = new ProcessorPool(1000);
    const a = pool.register('a', aor('a'), 'h', 10);
    pool.assign(a, 1, ops(1, 4));
    expect(pool.unregister('a').map((o) => o.opId)).toEqual([4]);
    expect(pool.get('a')).toBeUndefined();
  });

  it('declareDead hands back the batch as sent (one per processor) with its session; a dead processor gets no batch until it is alive again', () => {
    const pool = new ProcessorPool(1000);
    const a = pool.register('a', aor('a'), 'h', 10);
    pool.register('b', aor('b'), 'h', 11);
    const batch = new OperationSet({ operations: [], completed_op_id: 0 });
    pool.assign(a, 3, ops(3, 1, 2), batch);
    const held = pool.declareDead('a');
    expect(held?.sessionId).toBe(3);
    expect(held?.batch).toBe(batch);
    expect(held?.ops.map((o) => o.opId)).toEqual([1, 2]);
    expect(a).toMatchObject({ dead: true, busy: false, inFlight: [], batch: undefined });
    expect(pickProcessor(pool.all())?.name).toBe('b');
    expect(pickProcessor(pool.all(), new Set(['b']))).toBeUndefined();
    expect(pool.all().filter((p) => p.name !== 'b' && isLive(p))).toEqual([]);
    expect(pool.declareDead('a')).toBeUndefined();
    a.dead = false;
    expect(pickProcessor(pool.all(), new Set(['b']))?.name).toBe('a');
  });
});
