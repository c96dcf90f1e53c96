import { DocumentError, OperationState, OperationStatusInfo } from '@esp/codecs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Aor } from '../aor';
import { type ProxyOf, validateArgs, validateResult } from '../define-interface';
import { procserverHandlerInterface as ph } from './procserver-handler';
import { aor, failure, overTheWire, processedStatus, signatureOf } from './spec-fixtures';

// Copied from MS-FSDPD 3.5.4.1-3.5.4.4 and appendix A (flush_pipelines is only in the appendix). Version: the bind
// and resolve tables of 3.5.3 / 3.6.3 say 5.0; appendix A says 5.2 (see procserver-handler.ts).
const SPEC: [string, string[]][] = [
  ['register_procserver', ['procserver', 'name', 'hostname', 'pid', 'priority']],
  ['unregister_procserver', ['name']],
  ['processed', ['name', 'completed', 'status']],
  ['flush_pipelines', []],
  ['renew', ['name', 'period']],
];

const procserver = aor('processing::processor_server', { name: '', host: 'ip1.example.test', port: 16000, interface_version: '5.2' });

describe('processing::procserver_handler', () => {
  it('is version 5.0 (the bind/resolve tables) with the methods and parameters of the spec, in order', () => {
    expect(ph.type).toBe('processing::procserver_handler');
    expect(ph.version).toBe('5.0');
    expect(signatureOf(ph)).toEqual(SPEC);
    for (const m of Object.values(ph.methods)) expect(m.raises ?? []).toEqual([]);
  });

  it.each([
    ['register_procserver', [procserver, 'procserver_1', 'ip1.example.test', 4242, 0]],
    ['unregister_procserver', ['procserver_1']],
    ['processed', ['procserver_1', true, processedStatus()]],
    ['processed', ['procserver_1', false, processedStatus({ first_op_id: 5, last_op_id: 5 })]],
    ['flush_pipelines', []],
    ['renew', ['procserver_1', 300]],
  ] as const)('%s accepts good arguments, before and after a msgpack round trip', (name, args) => {
    expect(validateArgs(ph.methods[name], args).ok).toBe(true);
    const wire = overTheWire(args);
    expect(validateArgs(ph.methods[name], wire)).toEqual({ ok: true, args: wire });
  });

  it('processed receives the status as an OperationStatusInfo after a round trip', () => {
    const r = validateArgs(ph.methods.processed, overTheWire(['procserver_1', true, processedStatus()]));
    expect(r.ok && r.args[2]).toBeInstanceOf(OperationStatusInfo);
  });

  const reg = (i: number, v: unknown): unknown[] => {
    const a: unknown[] = [procserver, 'procserver_1', 'ip1.example.test', 4242, 0];
    a[i] = v;
    return a;
  };

  it.each([
    ['register_procserver', 'procserver', /processing::processor_server/, reg(0, { ...procserver, interface_type: 'processing::dispatcher_node' })],
    ['register_procserver', 'procserver', /object/, reg(0, 'procserver_1')],
    ['register_procserver', 'name', /string/, reg(1, 1)],
    ['register_procserver', 'hostname', /non-empty/, reg(2, '')],
    ['register_procserver', 'pid', /number/, reg(3, '4242')],
    ['register_procserver', 'pid', />0/, reg(3, 0)],
    ['register_procserver', 'pid', /2147483647/, reg(3, 2 ** 32)],
    ['register_procserver', 'priority', /MUST be 0/, reg(4, 1)],
    ['register_procserver', 'priority', /received undefined/, reg(4, undefined)],
    ['unregister_procserver', 'name', /missing/, []],
    ['processed', 'completed', /boolean/, ['procserver_1', 'true', processedStatus()]],
    ['processed', 'status', /operation_status_info entity \(OperationStatusInfo\), got a plain object/, ['procserver_1', true, { first_op_id: 1, last_op_id: 2 }]],
    ['processed', 'status', /subsystem MUST be "processing"/, ['procserver_1', true, processedStatus({ subsystem: 'indexing' })]],
    ['processed', 'status', /state MUST be operation_state::completed/, ['procserver_1', true, processedStatus({ state: OperationState.lost })]],
    ['processed', 'status', /missing/, ['procserver_1', true]],
    ['renew', 'period', />0/, ['procserver_1', 0]],
    ['renew', 'period', /int/, ['procserver_1', 1.5]],
    ['renew', 'period', /2147483647/, ['procserver_1', 2 ** 31]],
    ['renew', 'name', /string/, [undefined, 300]],
    ['flush_pipelines', '#0', /too many/, [true]],
  ] as const)('%s - bad %s is refused, the reason matching %s', (name, argument, reason, args) => {
    expect(failure(ph.methods[name], args)).toEqual({ argument, reason: expect.stringMatching(reason) });
  });

  it('processed carries errors in the status (the state stays completed)', () => {
    const err = new DocumentError({
      error_code: 1,
      suggested_action: 0,
      description: 'stage failed',
      subsystem: 'processing',
      session_id: 3,
      operation_id: 1,
      arguments: [],
    });
    expect(validateArgs(ph.methods.processed, ['procserver_1', true, processedStatus({ errors: [err] })]).ok).toBe(true);
  });

  it('void results accept undefined and null', () => {
    for (const m of Object.values(ph.methods)) {
      expect(validateResult(m, undefined).ok).toBe(true);
      expect(validateResult(m, null).ok).toBe(true);
    }
  });

  it('infers proxy types', () => {
    expectTypeOf<Parameters<ProxyOf<typeof ph>['register_procserver']>>().toEqualTypeOf<
      [procserver: Aor, name: string, hostname: string, pid: number, priority: number]
    >();
    expectTypeOf<ProxyOf<typeof ph>['renew']>().toEqualTypeOf<(name: string, period: number) => Promise<void | null>>();
  });
});
