import { XmlRpcDouble, XmlRpcFault, type XmlRpcInput, type XmlRpcValue } from '@esp/codecs';

/** Fault codes (the XML-RPC "fault code interoperability" values for transport and call errors). */
export const FAULT_PARSE_ERROR = -32700;
export const FAULT_INVALID_REQUEST = -32600;
export const FAULT_METHOD_NOT_FOUND = -32601;
export const FAULT_INVALID_PARAMS = -32602;
export const FAULT_INTERNAL_ERROR = -32603;

export type ParamType = 'int' | 'string' | 'array' | 'string[]' | 'struct' | 'any';

export interface MethodSpec<C> {
  readonly params: readonly { readonly name: string; readonly type: ParamType; readonly optional?: boolean }[];
  readonly run: (args: XmlRpcValue[], caller: C) => XmlRpcInput | Promise<XmlRpcInput>;
}

export function typeName(v: XmlRpcValue): string {
  if (v === null) return 'nil';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'string' || typeof v === 'boolean') return typeof v === 'string' ? 'string' : 'boolean';
  if (v instanceof XmlRpcDouble) return 'double';
  if (v instanceof Date) return 'dateTime';
  if (v instanceof Uint8Array) return 'base64';
  return Array.isArray(v) ? 'array' : 'struct';
}

function fits(v: XmlRpcValue, t: ParamType): boolean {
  switch (t) {
    case 'any':
      return true;
    case 'int':
      return typeof v === 'number' && Number.isInteger(v);
    case 'string':
      return typeof v === 'string';
    case 'array':
      return Array.isArray(v);
    case 'string[]':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'struct':
      return typeName(v) === 'struct';
  }
}

/**
 * A table of XML-RPC methods: checks the parameter count and types before running one, and answers what is wrong
 * with a fault that names the method, the parameter and the expected type.
 */
export function methodTable<C>(iface: string, methods: Record<string, MethodSpec<C>>): (method: string, params: XmlRpcValue[], caller: C) => Promise<XmlRpcInput> {
  const names = Object.keys(methods).sort();
  return async (method, params, caller) => {
    const spec = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!spec) throw new XmlRpcFault(FAULT_METHOD_NOT_FOUND, `unknown method "${method}"; the ${iface} interface has ${names.join(', ')}`);
    const required = spec.params.filter((p) => !p.optional).length;
    const signature = `${method}(${spec.params.map((p) => `${p.type} ${p.name}`).join(', ')})`;
    if (params.length < required || params.length > spec.params.length) {
      const count = required === spec.params.length ? `${required}` : `${required} to ${spec.params.length}`;
      throw new XmlRpcFault(FAULT_INVALID_PARAMS, `${signature} takes ${count} parameters, got ${params.length}`);
    }
    params.forEach((v, i) => {
      const p = spec.params[i];
      if (p && !fits(v, p.type)) throw new XmlRpcFault(FAULT_INVALID_PARAMS, `${signature}: parameter ${p.name} must be ${p.type}, got ${typeName(v)}`);
    });
    return spec.run(params, caller);
  };
}
