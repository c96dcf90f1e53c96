/**
 * Test helper: Python's xmlrpc.client (via xmlrpc-oracle.py, one python3 process per batch) and a tagged-JSON
 * bridge for values, so that int/double, dates and bytes keep their XML-RPC types across the two languages.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { XMLRPC_INT_MAX, XMLRPC_INT_MIN, XmlRpcDouble, type XmlRpcInput, type XmlRpcStruct, type XmlRpcValue } from '../values';

const ORACLE = fileURLToPath(new URL('./xmlrpc-oracle.py', import.meta.url));

export type Tagged =
  | ['int', number]
  | ['double', string]
  | ['bool', boolean]
  | ['str', string]
  | ['date', string]
  | ['bin', string]
  | ['nil']
  | ['array', Tagged[]]
  | ['struct', [string, Tagged][]];

export type PyDumpCase =
  | { type: 'request'; method: string; params: Tagged[]; encoding?: string }
  | { type: 'response'; value: Tagged; encoding?: string }
  | { type: 'fault'; code: number; string: string; encoding?: string };

export interface PyDumped {
  xml: string;
  /** base64 of the body as Python would send it, in the declared encoding */
  bytes: string;
}

export type PyLoaded = { method: string | null; params: Tagged[] } | { fault: [number, string] } | { error: string };

function runOracle<T>(mode: 'dumps' | 'loads', input: unknown): T {
  const run = spawnSync('python3', [ORACLE, mode], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`xmlrpc-oracle.py ${mode} failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** `xmlrpc.client.dumps` for each case, in one python3 process. */
export function pythonDumps(cases: readonly PyDumpCase[]): PyDumped[] {
  return runOracle('dumps', cases);
}

/** `xmlrpc.client.loads(xml, use_builtin_types=True)` for each body, in one python3 process. */
export function pythonLoads(bodies: readonly string[]): PyLoaded[] {
  return runOracle('loads', bodies);
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

export function dateText(d: Date): string {
  return (
    `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`
  );
}

function setMember(target: XmlRpcStruct, key: string, value: XmlRpcValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const isInt = (n: number): boolean => Number.isInteger(n) && n >= XMLRPC_INT_MIN && n <= XMLRPC_INT_MAX;

/** What encoding then decoding (with `wrapDoubles`) should give back for an input value. */
export function normalize(v: XmlRpcInput): XmlRpcValue {
  if (typeof v === 'number') return isInt(v) ? (v === 0 ? 0 : v) : new XmlRpcDouble(v);
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return new Date(Math.floor(v.getTime() / 1000) * 1000);
  if (v instanceof Uint8Array) return Uint8Array.from(v);
  if (Array.isArray(v)) return (v as readonly XmlRpcInput[]).map(normalize);
  if (v !== null && typeof v === 'object' && !(v instanceof XmlRpcDouble)) {
    const out: XmlRpcStruct = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) setMember(out, k, normalize(x));
    return out;
  }
  return v as XmlRpcValue;
}

/** Tags an (input or decoded) value the way our encoder types it. */
export function toTagged(v: XmlRpcInput | undefined): Tagged {
  if (v === null) return ['nil'];
  switch (typeof v) {
    case 'number':
      return isInt(v) ? ['int', v] : ['double', Object.is(v, -0) ? '-0.0' : String(v)];
    case 'bigint':
      return ['int', Number(v)];
    case 'boolean':
      return ['bool', v];
    case 'string':
      return ['str', v];
    default:
  }
  if (v instanceof XmlRpcDouble) return ['double', Object.is(v.value, -0) ? '-0.0' : String(v.value)];
  if (v instanceof Date) return ['date', dateText(v)];
  if (v instanceof Uint8Array) return ['bin', Buffer.from(v).toString('base64')];
  if (Array.isArray(v)) return ['array', (v as readonly XmlRpcInput[]).map((x) => toTagged(x))];
  if (typeof v === 'object') {
    return ['struct', Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, toTagged(x)])];
  }
  throw new Error(`cannot tag ${typeof v}`);
}

/** The value a tagged value stands for, in the decoded form (`wrapDoubles`). */
export function fromTagged(t: Tagged): XmlRpcValue {
  switch (t[0]) {
    case 'int':
      return t[1];
    case 'double':
      return new XmlRpcDouble(Number(t[1]));
    case 'bool':
      return t[1];
    case 'str':
      return t[1];
    case 'date': {
      const s = t[1];
      const d = new Date(0);
      d.setUTCFullYear(Number(s.slice(0, 4)), Number(s.slice(4, 6)) - 1, Number(s.slice(6, 8)));
      d.setUTCHours(Number(s.slice(9, 11)), Number(s.slice(12, 14)), Number(s.slice(15, 17)), 0);
      return d;
    }
    case 'bin':
      return Uint8Array.from(Buffer.from(t[1], 'base64'));
    case 'nil':
      return null;
    case 'array':
      return t[1].map(fromTagged);
    case 'struct': {
      const out: XmlRpcStruct = {};
      for (const [k, x] of t[1]) setMember(out, k, fromTagged(x));
      return out;
    }
  }
}
