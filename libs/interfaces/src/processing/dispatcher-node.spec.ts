import { FeedingPriority, Guarantee, GuaranteeSet } from '@esp/codecs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Aor } from '../aor';
import { type ProxyOf, validateArgs, validateResult } from '../define-interface';
import { SessionNotOwned, UnknownCollection, UnsupportedGuaranteeSet, userExceptionFromWire } from '../user-exceptions';
import { EXTERNAL_SESSION_PORT_OFFSET } from './constants';
import { dispatcherNodeInterface as dn, OPERATION_CALLBACK_TYPE, PROCESSING_SESSION_TYPE } from './dispatcher-node';
import { guaranteeSetOf, sessionGuarantees } from './session-guarantees';
import { aor, BASE_PORT, failure, noGuarantees, overTheWire, priorityGuarantees, signatureOf } from './spec-fixtures';

// Copied from MS-FSCDFT 3.5.4.1-3.5.4.7 and appendix A (`pragma version dispatcher_node 5.1`).
const SPEC: [string, string[]][] = [
  ['create_session', ['id', 'collection', 'callback', 'guarantees', 'priority']],
  ['create', ['id', 'collection', 'guarantees', 'priority', 'external_client']],
  ['recreate', ['id', 'collection', 'guarantees', 'priority', 'external_client']],
  ['destroy_session', ['id']],
  ['remove_sessions', ['coll']],
  ['get_sessions', []],
  ['get_load', []],
];

const callback = aor(OPERATION_CALLBACK_TYPE, { name: '', host: 'client.example.test', port: 40000, interface_version: '5.0' });
const session = aor(PROCESSING_SESSION_TYPE, { name: '', port: BASE_PORT + EXTERNAL_SESSION_PORT_OFFSET, interface_version: '5.1' });

describe('processing::dispatcher_node', () => {
  it('is version 5.1 with the seven methods and parameters of the spec, in order; ours: an optional owner_token last on the session methods', () => {
    expect(dn.type).toBe('processing::dispatcher_node');
    expect(dn.version).toBe('5.1');
    const OURS = ['create_session', 'create', 'recreate', 'destroy_session'];
    expect(signatureOf(dn)).toEqual(SPEC.map(([m, p]) => [m, OURS.includes(m) ? [...p, 'owner_token'] : p]));
  });

  it('session creation raises unknown_collection and core::unsupported_guarantee_set (MS-FSCDFT 3.5.4.1-3.5.4.3), and ours, session_not_owned', () => {
    for (const name of ['create_session', 'create', 'recreate'] as const) {
      expect([...(dn.methods[name].raises ?? [])].sort()).toEqual(['session_not_owned', 'unknown_collection', 'unsupported_guarantee_set']);
    }
    expect(userExceptionFromWire('unknown_collection', 'no such collection: x')).toBeInstanceOf(UnknownCollection);
    expect(userExceptionFromWire('unsupported_guarantee_set', 'x')).toBeInstanceOf(UnsupportedGuaranteeSet);
    expect(userExceptionFromWire('session_not_owned', 'x')).toBeInstanceOf(SessionNotOwned);
    expect(dn.methods.destroy_session.raises).toEqual(['session_not_owned']);
    for (const name of ['remove_sessions', 'get_sessions', 'get_load'] as const) {
      expect(dn.methods[name].raises ?? []).toEqual([]);
    }
  });

  it('owner_token: optional (the spec signature still validates), nil taken as none, at least 16 characters', () => {
    const token = 'k'.repeat(43);
    expect(validateArgs(dn.methods.create_session, [1, 'news', callback, noGuarantees(), 0])).toMatchObject({ ok: true });
    expect(validateArgs(dn.methods.create_session, [1, 'news', callback, noGuarantees(), 0, token])).toMatchObject({ ok: true, args: [1, 'news', callback, noGuarantees(), 0, token] });
    expect(validateArgs(dn.methods.recreate, overTheWire([1, 'news', noGuarantees(), 0, false, null]))).toMatchObject({ ok: true, args: [1, 'news', noGuarantees(), 0, false, undefined] });
    expect(validateArgs(dn.methods.destroy_session, [1, token])).toEqual({ ok: true, args: [1, token] });
    expect(failure(dn.methods.create, [1, 'news', noGuarantees(), 0, false, 'short'])).toEqual({ argument: 'owner_token', reason: expect.stringMatching(/16/) });
    expect(failure(dn.methods.destroy_session, [1, 42])).toEqual({ argument: 'owner_token', reason: expect.stringMatching(/string/) });
  });

  describe('good arguments validate, with real entities, before and after a msgpack round trip', () => {
    const cases: [keyof typeof dn.methods, unknown[]][] = [
      ['create_session', [1, 'news', callback, priorityGuarantees(), 0]],
      ['create_session', [0, 'news', callback, noGuarantees(), 0]],
      ['create', [2, 'news', priorityGuarantees(), 0, true]],
      ['create', [2, 'news', noGuarantees(), 0, false]],
      ['recreate', [2, 'news', priorityGuarantees(), 0, false]],
      ['destroy_session', [0]],
      ['remove_sessions', ['news']],
      ['get_sessions', []],
      ['get_load', []],
    ];
    it.each(cases)('%s %#', (name, args) => {
      const local = validateArgs(dn.methods[name], args);
      expect(local.ok).toBe(true);
      const wire = validateArgs(dn.methods[name], overTheWire(args));
      // an owner_token left out arrives as undefined
      const unsent = dn.methods[name].params.length - args.length;
      expect(wire).toEqual({ ok: true, args: [...overTheWire(args), ...Array<undefined>(unsent).fill(undefined)] });
      if (wire.ok && name === 'create_session') expect(wire.args[3]).toBeInstanceOf(GuaranteeSet);
    });
  });

  const good = (): unknown[] => [1, 'news', priorityGuarantees(), 0, false];
  const withArg = (i: number, v: unknown): unknown[] => {
    const a = good();
    a[i] = v;
    return a;
  };

  it.each([
    ['create', 'id', /number/, withArg(0, '1')],
    ['create', 'id', />=0/, withArg(0, -1)],
    ['create', 'id', /2147483647/, withArg(0, 2 ** 31)],
    ['create', 'collection', /string/, withArg(1, 7)],
    ['create', 'collection', /non-empty/, withArg(1, '')],
    ['create', 'guarantees', /cht::core::guarantee_set entity \(GuaranteeSet\), got a plain object/, withArg(2, { guarantees: [] })],
    ['create', 'guarantees', /guarantee_set.*got an instance of FeedingPriority/, withArg(2, new FeedingPriority())],
    ['create', 'priority', /MUST be 0/, withArg(3, 1)],
    ['create', 'priority', /number/, withArg(3, '0')],
    ['create', 'external_client', /boolean/, withArg(4, 'yes')],
    ['create', 'external_client', /missing/, good().slice(0, 4)],
    ['recreate', 'external_client', /boolean/, withArg(4, 0)],
    ['create_session', 'callback', /port/, [1, 'news', { ...callback, port: 70000 }, noGuarantees(), 0]],
    ['create_session', 'callback', /coreprocessing::operation_callback/, [1, 'news', session, noGuarantees(), 0]],
    ['create_session', 'callback', /object/, [1, 'news', 'not-an-aor', noGuarantees(), 0]],
    ['create_session', 'priority', /int/, [1, 'news', callback, noGuarantees(), 0.5]],
    ['destroy_session', 'id', />=0/, [-1]],
    ['destroy_session', 'id', /missing/, []],
    ['remove_sessions', 'coll', /string/, [null]],
    ['get_sessions', '#0', /too many/, [1]],
  ] as const)('%s - bad %s is refused, the reason matching %s', (name, argument, reason, args) => {
    expect(failure(dn.methods[name], args)).toEqual({ argument, reason: expect.stringMatching(reason) });
  });

  it('a well-formed guarantee set the distributor cannot keep is not a bad argument: it reaches the server, which raises unsupported_guarantee_set (MS-FSCDFT 2.2.5)', () => {
    for (const guarantees of [[new Guarantee()], [new FeedingPriority(), new FeedingPriority()], [new FeedingPriority(), new Guarantee()]]) {
      const set = new GuaranteeSet({ guarantees });
      expect(failure(dn.methods.create, withArg(2, set))).toBe('ok');
      expect(() => sessionGuarantees(set)).toThrow(UnsupportedGuaranteeSet);
    }
    expect(sessionGuarantees(priorityGuarantees())).toEqual({ priority: 0 });
    expect(sessionGuarantees(noGuarantees())).toEqual({ priority: undefined });
    expect(sessionGuarantees(guaranteeSetOf({ priority: 0 }))).toEqual({ priority: 0 });
    expect(guaranteeSetOf({ priority: undefined }).guarantees).toEqual([]);
  });

  it('session creation returns a processing::session proxy, not another object', () => {
    for (const name of ['create_session', 'create', 'recreate'] as const) {
      expect(validateResult(dn.methods[name], session).ok).toBe(true);
      expect(validateResult(dn.methods[name], callback).ok).toBe(false);
      expect(validateResult(dn.methods[name], null).ok).toBe(false);
    }
  });

  it('results: session id lists, a load, and void for destroy_session (undefined or null)', () => {
    expect(validateResult(dn.methods.get_sessions, [0, 1, 5]).ok).toBe(true);
    expect(validateResult(dn.methods.remove_sessions, []).ok).toBe(true);
    expect(validateResult(dn.methods.get_sessions, [1, '2']).ok).toBe(false);
    expect(validateResult(dn.methods.get_load, 12).ok).toBe(true);
    expect(validateResult(dn.methods.get_load, 1.5).ok).toBe(false);
    expect(validateResult(dn.methods.destroy_session, undefined).ok).toBe(true);
    expect(validateResult(dn.methods.destroy_session, null).ok).toBe(true);
  });

  it('infers proxy types', () => {
    expectTypeOf<ProxyOf<typeof dn>['create']>().returns.toEqualTypeOf<Promise<Aor>>();
    expectTypeOf<ProxyOf<typeof dn>['get_sessions']>().toEqualTypeOf<() => Promise<number[]>>();
    expectTypeOf<Parameters<ProxyOf<typeof dn>['create_session']>>().toEqualTypeOf<
      [id: number, collection: string, callback: Aor, guarantees: GuaranteeSet, priority: number, arg?: string | undefined]
    >();
  });
});
