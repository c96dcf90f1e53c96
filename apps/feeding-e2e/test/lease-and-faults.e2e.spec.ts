import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { Action, OperationLost, OperationState, type OperationStatusInfo } from '@esp/codecs';
import {
  DISPATCHER_NAME,
  dispatcherNodeName,
  masterDispatcherInterface,
  processorServerInterface,
  procserverHandlerInterface,
  ShuttingDown,
} from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chain } from './chain';

const log = createLogger('e2e', {}, { level: 'warn' });
const text = (i: number, prefix: string): FeedDocument => ({ id: `${prefix}-${i}`, attributes: { title: `${prefix} ${i}`, body: `text of ${prefix} ${i}`, content_type: 'text/plain' } });

describe('faults in the feeding chain', () => {
  let chain: Chain;
  beforeAll(async () => {
    chain = await Chain.start({
      collections: ['faults'],
      processors: 2,
      leaseSeconds: 3,
      // this suite is about the Lease Timeout (MS-FSDPD 3.5.5): PPP liveness (1 s x 3 by default) would race it for a
      // killed processor and re-dispatch the batch instead of reporting it lost, so it is set far beyond the lease
      liveness: 30,
      // and the gone probe would declare a killed one dead at once (no responders): off too
      goneProbe: false,
      // documents named slow-* take 15 ms each: a batch of 100 takes 1.5 s, inside the 3 s lease
      pipeline: {
        pipelines: { standard: [{ type: 'utf8' }, { type: 'fail', name: 'slow', delay_ms: 15, delay_id_pattern: '^slow-' }, { type: 'normalize' }] },
        default_pipeline: 'standard',
      },
    });
  });
  afterAll(async () => {
    await chain?.stop();
  });

  it('an item processor killed (SIGKILL) in the middle of a batch: its operations come back lost with the spec fields, are resubmitted, and complete', async () => {
    const statuses: OperationStatusInfo[] = [];
    const client = await FeedingClient.open({ mw: chain.client, collection: 'faults', log, onStatus: (s) => statuses.push(s) });
    for (let i = 0; i < 100; i++) await client.feed(text(i, 'slow'));
    await client.flush();
    // the batch (op ids 1..100) is in an item processor now: find which, and kill it mid-batch
    const holder = await waitFor(() => chain.holderOf(client.sessionId, 1), { what: 'the item processor holding the batch', timeoutMs: 10_000 });
    await holder.kill();
    // more work keeps flowing to the survivor meanwhile
    for (let i = 0; i < 200; i++) await client.feed(text(i, 'fast'));
    const { stats, outcomes, unfinished } = await client.drain(60_000);
    expect(unfinished).toEqual([]);
    expect(stats.duplicateFinals).toBe(0);
    expect(stats.lost).toBe(100);
    expect(stats.resubmitted).toBe(100);
    expect(stats.completed).toBe(300);
    expect(stats.failed).toBe(0);
    for (let i = 0; i < 100; i++) expect(outcomes.get(`slow-${i}`)).toMatchObject({ kind: 'completed', attempts: 2 });
    // the lost callbacks carry exactly what MS-FSDPD 3.5.5 says
    const lost = statuses.filter((s) => s.state === OperationState.lost);
    const errors = lost.flatMap((s) => [...s.errors]);
    expect(errors.map((e) => e.operation_id).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    for (const e of errors) {
      expect(e).toBeInstanceOf(OperationLost);
      expect(e).toMatchObject({
        error_code: 4,
        suggested_action: Action.resubmit,
        subsystem: 'processing',
        description: 'failed to submit operation to next subsystem',
        session_id: client.sessionId,
        arguments: [],
      });
    }
    await client.close();
  }, 120_000);

  it('an item processor in Terminating state answers shutting_down; the distributor stops using it and the feed completes', async () => {
    let calls = 0;
    const stub = await chain.client.activate(
      processorServerInterface,
      {
        process: () => {
          calls++;
          throw new ShuttingDown('item processor stub is terminating');
        },
        flush: () => undefined,
        reassign: () => undefined,
      },
      { object_id: 'terminating-stub', port: 1 },
    );
    const { proxy: master } = await chain.client.names.resolveProxy(masterDispatcherInterface, DISPATCHER_NAME);
    await master.register_procserver('terminating-stub');
    const id = await master.assign_dispatcher('terminating-stub');
    const { proxy: handler } = await chain.client.names.resolveProxy(procserverHandlerInterface, dispatcherNodeName(id));
    await handler.register_procserver(stub.aor, 'terminating-stub', 'stub-host', 4242, 0);
    const client = await FeedingClient.open({ mw: chain.client, collection: 'faults', log });
    for (let i = 0; i < 300; i++) await client.feed(text(i, 'after-terminating'));
    const { stats, unfinished } = await client.drain(60_000);
    expect(unfinished).toEqual([]);
    expect(stats.completed).toBe(300);
    // asked once (it had never been used, so it was the least recently used), never again
    expect(calls).toBe(1);
    await client.close();
  }, 60_000);
});
