import { z } from 'zod';

/** One positional parameter of an FSIDL method: its name (as in the spec tables) and its runtime schema. */
export type Param = readonly [name: string, schema: z.ZodType];

export interface MethodDef<P extends readonly Param[] = readonly Param[], R extends z.ZodType = z.ZodType> {
  readonly params: P;
  readonly returns: R;
  /** Names of the user exceptions this method may raise (documentation and client-side typing). */
  readonly raises?: readonly string[];
  readonly doc?: string;
}

export interface InterfaceDef<M extends Record<string, MethodDef> = Record<string, MethodDef>> {
  /** FSIDL type, e.g. "processing::master_dispatcher". */
  readonly type: string;
  /** "major.minor", e.g. "5.1". */
  readonly version: string;
  readonly methods: M;
  readonly doc?: string;
}

/**
 * The TypeScript argument tuple of a parameter list. Trailing parameters whose schema may give undefined (arguments
 * added to a spec signature, which callers of the spec's signature do not send) are optional; one with a default
 * stays required, as the implementation always gets a value.
 */
export type ArgsOf<P extends readonly Param[]> = P extends readonly [...infer I extends readonly Param[], readonly [string, infer S extends z.ZodType]]
  ? undefined extends z.output<S>
    ? [...ArgsOf<I>, arg?: z.output<S>]
    : [...AllArgsOf<I>, z.output<S>]
  : AllArgsOf<P>;

/** Every parameter required (those before the last required one). */
type AllArgsOf<P extends readonly Param[]> = { -readonly [K in keyof P]: P[K] extends readonly [string, infer S extends z.ZodType] ? z.output<S> : never };
export type ResultOf<D extends MethodDef> = z.output<D['returns']>;

/** What a server object implements for an interface: one (possibly async) function per method. */
export type Implementation<I extends InterfaceDef> = {
  [K in keyof I['methods']]: (...args: ArgsOf<I['methods'][K]['params']>) => ResultOf<I['methods'][K]> | Promise<ResultOf<I['methods'][K]>>;
};

/** What a client proxy offers for an interface: one async function per method, plus __ping. */
export type ProxyOf<I extends InterfaceDef> = {
  [K in keyof I['methods']]: (...args: ArgsOf<I['methods'][K]['params']>) => Promise<ResultOf<I['methods'][K]>>;
} & { __ping(): Promise<void> };

export function method<const P extends readonly Param[], R extends z.ZodType>(def: { params: P; returns: R; raises?: readonly string[]; doc?: string }): MethodDef<P, R> {
  return def;
}

/** Defines an interface; the one source for server dispatch, client proxies, validation and docs. */
export function defineInterface<const M extends Record<string, MethodDef>>(def: { type: string; version: string; methods: M; doc?: string }): InterfaceDef<M> {
  if (!/^\d+\.\d+$/.test(def.version)) throw new Error(`interface ${def.type}: version must be "major.minor", got "${def.version}"`);
  if ('__ping' in def.methods) throw new Error(`interface ${def.type}: __ping is reserved`);
  return Object.freeze(def);
}

export type ValidationResult = { ok: true; args: unknown[] } | { ok: false; argument: string; index: number; reason: string };

function describeIssue(err: z.ZodError): string {
  return err.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * Checks positional arguments against a method's parameter list: the count first, then each argument. Says which
 * argument failed and why. Parsed values replace the raw ones (defaults applied, transforms run).
 */
export function validateArgs(def: MethodDef, args: readonly unknown[]): ValidationResult {
  const params = def.params;
  if (args.length > params.length) {
    return { ok: false, argument: `#${params.length}`, index: params.length, reason: `too many arguments: expected ${params.length}, got ${args.length}` };
  }
  const out = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) {
    const [name, schema] = params[i] as Param;
    if (i >= args.length && !schema.safeParse(undefined).success) {
      return { ok: false, argument: name, index: i, reason: `missing argument (expected ${params.length}, got ${args.length})` };
    }
    const r = schema.safeParse(args[i]);
    if (!r.success) return { ok: false, argument: name, index: i, reason: describeIssue(r.error) };
    out[i] = r.data;
  }
  return { ok: true, args: out };
}

/** Checks a method's return value (a server must not send what its interface does not promise). */
export function validateResult(def: MethodDef, value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  const r = def.returns.safeParse(value);
  return r.success ? { ok: true, value: r.data } : { ok: false, reason: describeIssue(r.error) };
}
