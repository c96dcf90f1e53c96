import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineInterface, method, validateArgs, type ProxyOf } from './define-interface';
import { versionCompatible } from './interface-version';
import { nameServerInterface } from './name-server';
import { AlreadyBound, ResolveException, UserException, userExceptionFromWire } from './user-exceptions';

const demo = defineInterface({
  type: 'demo::echo',
  version: '1.2',
  methods: {
    echo: method({ params: [['text', z.string()], ['times', z.number().int().min(1).default(1)]], returns: z.string() }),
  },
});

describe('validateArgs', () => {
  it('accepts good arguments and applies defaults', () => {
    expect(validateArgs(demo.methods.echo, ['hi'])).toEqual({ ok: true, args: ['hi', 1] });
  });
  it('names the argument that has the wrong type, and why', () => {
    const r = validateArgs(demo.methods.echo, [42]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.argument).toBe('text');
      expect(r.reason).toMatch(/string/);
    }
  });
  it('reports a missing argument by name', () => {
    const r = validateArgs(nameServerInterface.methods.resolve, ['a', 'b']);
    expect(r).toMatchObject({ ok: false, argument: 'interface_version', reason: expect.stringMatching(/missing/) });
  });
  it('refuses too many arguments', () => {
    expect(validateArgs(demo.methods.echo, ['a', 1, 2])).toMatchObject({ ok: false, reason: expect.stringMatching(/too many/) });
  });
  it('checks nested values (an AOR with a bad port)', () => {
    const r = validateArgs(nameServerInterface.methods.bind, ['n', { name: 'n', object_id: 'o', host: 'h', port: 70000, interface_type: 't', interface_version: '1.0' }]);
    expect(r).toMatchObject({ ok: false, argument: 'aor', reason: expect.stringMatching(/port/) });
  });
  it('infers proxy types from the definition', () => {
    expectTypeOf<ProxyOf<typeof demo>['echo']>().parameters.toEqualTypeOf<[string, number]>();
    expectTypeOf<ProxyOf<typeof demo>['echo']>().returns.toEqualTypeOf<Promise<string>>();
  });
});

describe('versionCompatible', () => {
  it.each([
    ['5.1', '5.1', true],
    ['5.1', '5.0', true],
    ['5.0', '5.1', false],
    ['6.0', '5.0', false],
    ['4.9', '5.0', false],
    ['5.x', '5.0', false],
  ])('server %s serves client %s: %s', (s, c, ok) => {
    expect(versionCompatible(s, c)).toBe(ok);
  });
});

describe('user exceptions', () => {
  it('are rebuilt from their wire code as the same class', () => {
    const e = userExceptionFromWire('resolve_exception', 'nothing bound', { name: 'x' });
    expect(e).toBeInstanceOf(ResolveException);
    expect(e).toBeInstanceOf(UserException);
    expect(e.data).toEqual({ name: 'x' });
    expect(userExceptionFromWire('already_bound', 'm')).toBeInstanceOf(AlreadyBound);
  });
  it('keep an unknown code on a plain UserException', () => {
    const e = userExceptionFromWire('no_such_thing', 'm');
    expect(e.constructor).toBe(UserException);
    expect(e.code).toBe('no_such_thing');
  });
  it('refuse a reserved method name', () => {
    expect(() => defineInterface({ type: 't', version: '1.0', methods: { __ping: method({ params: [], returns: z.void() }) } })).toThrow(/reserved/);
  });
});
