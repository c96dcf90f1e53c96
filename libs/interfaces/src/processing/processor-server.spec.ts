import { OperationSet, SubsystemIdSet } from '@esp/codecs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Aor } from '../aor';
import { type ProxyOf, validateArgs, validateResult } from '../define-interface';
import { ShuttingDown, SystemResourceError, userExceptionFromWire } from '../user-exceptions';
import { CORE_PROCESSING_SESSION_TYPE, processorServerInterface as ps } from './processor-server';
import { aor, batch, failure, overTheWire, signatureOf, toIndexing } from './spec-fixtures';

// Copied from MS-FSDPD 3.1.4.1 and appendix A (`pragma version processor_server 5.2`).
const SPEC: [string, string[]][] = [
  // and ours, last and optional: batch_token (the distributor's token, for the indexer)
  ['process', ['next_subsystem_session', 'session_id', 'collection', 'batch', 'subsystem_ids', 'batch_token']],
  ['flush', []],
  ['reassign', []],
];

const indexingSession = aor(CORE_PROCESSING_SESSION_TYPE, { name: '', host: 'indexer.example.test', port: 15000, interface_version: '5.0' });
const good = (): unknown[] => [indexingSession, 3, 'news', batch(), toIndexing()];
const withArg = (i: number, v: unknown): unknown[] => {
  const a = good();
  a[i] = v;
  return a;
};

describe('processing::processor_server', () => {
  it('is version 5.2 with the methods and parameters of the spec, in order', () => {
    expect(ps.type).toBe('processing::processor_server');
    expect(ps.version).toBe('5.2');
    expect(signatureOf(ps)).toEqual(SPEC);
  });

  it('process raises shutting_down and system_resource_error (MS-FSDPD 3.1.4.1)', () => {
    expect(ps.methods.process.raises).toEqual(['shutting_down', 'system_resource_error']);
    expect(userExceptionFromWire('shutting_down', 'stopping')).toBeInstanceOf(ShuttingDown);
    const e = userExceptionFromWire('system_resource_error', 'out of memory');
    expect(e).toBeInstanceOf(SystemResourceError);
    expect(e.message).toBe('out of memory');
  });

  it('process accepts a real batch and subsystem id set, before and after a msgpack round trip', () => {
    expect(validateArgs(ps.methods.process, good()).ok).toBe(true);
    const wire = overTheWire(good());
    const r = validateArgs(ps.methods.process, wire);
    expect(r).toEqual({ ok: true, args: [...wire, undefined] });
    if (r.ok) {
      expect(r.args[3]).toBeInstanceOf(OperationSet);
      expect(r.args[4]).toBeInstanceOf(SubsystemIdSet);
    }
  });

  it('process takes the batch token as an optional last argument', () => {
    expect(validateArgs(ps.methods.process, [...good(), 'A'.repeat(43)])).toMatchObject({ ok: true, args: [...good(), 'A'.repeat(43)] });
  });

  it('flush and reassign take no arguments', () => {
    expect(validateArgs(ps.methods.flush, [])).toEqual({ ok: true, args: [] });
    expect(validateArgs(ps.methods.reassign, [])).toEqual({ ok: true, args: [] });
    expect(failure(ps.methods.flush, [1])).toMatchObject({ argument: '#0', reason: expect.stringMatching(/too many/) });
  });

  it.each([
    ['next_subsystem_session', /coreprocessing::session/, withArg(0, { ...indexingSession, interface_type: 'processing::session' })],
    ['next_subsystem_session', /missing|object/, withArg(0, undefined)],
    ['session_id', /number/, withArg(1, '3')],
    ['session_id', />=0/, withArg(1, -3)],
    ['session_id', /2147483647/, withArg(1, 2 ** 40)],
    ['collection', /string/, withArg(2, ['news'])],
    ['batch', /cht::documentmessages::operation_set entity \(OperationSet\), got a plain object/, withArg(3, { completed_op_id: 0, operations: [] })],
    ['batch', /operation_set.*got an instance of SubsystemIdSet/, withArg(3, toIndexing())],
    ['batch', /operation_set.*got null/, withArg(3, null)],
    ['subsystem_ids', /MUST be set to "indexing"/, withArg(4, new SubsystemIdSet({ ids: [] }))],
    ['subsystem_ids', /subsystem_id_set/, withArg(4, ['indexing'])],
    ['subsystem_ids', /missing/, good().slice(0, 4)],
    ['batch_token', /string/, [...good(), 42]],
  ] as const)('process - bad %s is refused, the reason matching %s', (argument, reason, args) => {
    expect(failure(ps.methods.process, args)).toEqual({ argument, reason: expect.stringMatching(reason) });
  });

  it('void results accept undefined and null', () => {
    for (const m of Object.values(ps.methods)) {
      expect(validateResult(m, undefined).ok).toBe(true);
      expect(validateResult(m, null).ok).toBe(true);
      expect(validateResult(m, false).ok).toBe(false);
    }
  });

  it('infers proxy types', () => {
    expectTypeOf<Parameters<ProxyOf<typeof ps>['process']>>().toEqualTypeOf<
      [next_subsystem_session: Aor, session_id: number, collection: string, batch: OperationSet, subsystem_ids: SubsystemIdSet, batch_token?: string]
    >();
  });
});
