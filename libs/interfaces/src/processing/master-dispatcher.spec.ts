import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Implementation, type ProxyOf, validateArgs, validateResult } from '../define-interface';
import { ASSIGN_DISPATCHER_NONE_AVAILABLE } from './constants';
import { masterDispatcherInterface as md } from './master-dispatcher';
import { failure, overTheWire, signatureOf } from './spec-fixtures';

// Copied from the specs: MS-FSCDFT 3.1.4.1 and MS-FSDPD 3.3.4.1-3.3.4.3, plus unregister_dispatcher of MS-FSDPD
// appendix A (`pragma version master_dispatcher 5.0`). Section 3 names the item processor argument `name`.
const SPEC: [string, string[]][] = [
  ['register_dispatcher', ['node_id']],
  ['unregister_dispatcher', ['node_id']],
  ['register_procserver', ['name']],
  ['assign_dispatcher', ['name']],
  ['unregister_procserver', ['name']],
];

describe('processing::master_dispatcher', () => {
  it('is version 5.0 with the methods and parameters of the specs, in order', () => {
    expect(md.type).toBe('processing::master_dispatcher');
    expect(md.version).toBe('5.0');
    expect(signatureOf(md)).toEqual(SPEC);
  });

  it('declares no user exceptions (only middleware exceptions, MS-FSCDFT 3.1.4.1, MS-FSDPD 3.3.4)', () => {
    for (const m of Object.values(md.methods)) expect(m.raises ?? []).toEqual([]);
  });

  it.each([
    ['register_dispatcher', [0]],
    ['register_dispatcher', [7]],
    ['unregister_dispatcher', [3]],
    ['register_procserver', ['procserver_1']],
    ['assign_dispatcher', ['procserver_1']],
    ['unregister_procserver', ['procserver_1']],
  ] as const)('%s accepts %j (also after a msgpack round trip)', (name, args) => {
    const def = md.methods[name];
    expect(validateArgs(def, args)).toEqual({ ok: true, args });
    expect(validateArgs(def, overTheWire(args))).toEqual({ ok: true, args });
  });

  it.each([
    ['register_dispatcher', 'node_id', /missing/, []],
    ['register_dispatcher', 'node_id', /number/, ['1']],
    ['register_dispatcher', 'node_id', /int/, [1.5]],
    ['register_dispatcher', 'node_id', />=0/, [-1]],
    ['register_dispatcher', 'node_id', /2147483647/, [2 ** 31]],
    ['unregister_dispatcher', 'node_id', /number/, [null]],
    ['register_procserver', 'name', /string/, [42]],
    ['register_procserver', 'name', /non-empty/, ['']],
    ['assign_dispatcher', 'name', /missing/, []],
    ['unregister_procserver', 'name', /missing|string/, [undefined]],
    ['register_procserver', '#1', /too many/, ['a', 'b']],
  ] as const)('%s - bad %s is refused, the reason matching %s', (name, argument, reason, args) => {
    expect(failure(md.methods[name], args)).toEqual({ argument, reason: expect.stringMatching(reason) });
  });

  it('void methods accept undefined (server side) and null (after msgpack) as result', () => {
    for (const name of ['register_dispatcher', 'unregister_dispatcher', 'register_procserver', 'unregister_procserver'] as const) {
      expect(validateResult(md.methods[name], undefined).ok).toBe(true);
      expect(validateResult(md.methods[name], null).ok).toBe(true);
      expect(validateResult(md.methods[name], 0).ok).toBe(false);
    }
  });

  it('assign_dispatcher returns a dispatcher id (1 when none is available, MS-FSDPD 3.3.4.2)', () => {
    expect(validateResult(md.methods.assign_dispatcher, ASSIGN_DISPATCHER_NONE_AVAILABLE)).toEqual({ ok: true, value: 1 });
    expect(validateResult(md.methods.assign_dispatcher, 0).ok).toBe(true);
    expect(validateResult(md.methods.assign_dispatcher, '1').ok).toBe(false);
    expect(validateResult(md.methods.assign_dispatcher, -1).ok).toBe(false);
    expect(validateResult(md.methods.assign_dispatcher, null).ok).toBe(false);
  });

  it('infers proxy and implementation types', () => {
    expectTypeOf<ProxyOf<typeof md>['assign_dispatcher']>().toEqualTypeOf<(name: string) => Promise<number>>();
    expectTypeOf<Parameters<ProxyOf<typeof md>['register_dispatcher']>>().toEqualTypeOf<[node_id: number]>();
    const nodes = new Set<number>();
    // functions with no return statement (void) fit, as do ones returning undefined or null
    const impl: Implementation<typeof md> = {
      register_dispatcher: (nodeId) => {
        nodes.add(nodeId);
      },
      unregister_dispatcher: async (nodeId) => {
        nodes.delete(nodeId);
      },
      register_procserver: () => undefined,
      assign_dispatcher: () => ASSIGN_DISPATCHER_NONE_AVAILABLE,
      unregister_procserver: () => null,
    };
    expect(Object.keys(impl)).toEqual(Object.keys(md.methods));
  });
});
