/**
 * XML-RPC encoders: methodCall, methodResponse with one param, methodResponse with a fault. They return the XML
 * text (UTF-8 declared); the transport encodes it with `new TextEncoder().encode(xml)`.
 */
import { XmlRpcTooDeepError, XmlRpcTypeError } from './errors';
import { XmlRpcFault } from './fault';
import { escapeXmlText, formatXmlRpcBase64, formatXmlRpcDateTime, formatXmlRpcDouble } from './scalars';
import {
  XMLRPC_DEFAULT_MAX_DEPTH,
  XMLRPC_INT_MAX,
  XMLRPC_INT_MIN,
  XmlRpcDouble,
  isXmlRpcStruct,
  type XmlRpcInput,
} from './values';

export interface XmlRpcEncodeOptions {
  /** Encode null as `<nil/>` (Python's `allow_none=True`). Default false: null is refused, as Python does. */
  allowNil?: boolean;
  /** Deepest nesting of arrays and structs; default 64, as for decoding. */
  maxDepth?: number;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** Where a value sits, for error messages: `result.rows[3].name`. */
function describePath(root: string, path: readonly (string | number)[]): string {
  return path.reduce<string>((out, step) => (typeof step === 'number' ? `${out}[${step}]` : `${out}.${step}`), root);
}

class ValueWriter {
  private out = '';
  private readonly ancestors = new Set<object>();
  private readonly path: (string | number)[] = [];
  private readonly allowNil: boolean;
  private readonly maxDepth: number;
  private root = '';

  constructor(options: XmlRpcEncodeOptions) {
    this.allowNil = options.allowNil ?? false;
    this.maxDepth = options.maxDepth ?? XMLRPC_DEFAULT_MAX_DEPTH;
  }

  raw(text: string): void {
    this.out += text;
  }

  text(text: string, what: string): void {
    const escaped = escapeXmlText(text);
    if (escaped === undefined) {
      throw new XmlRpcTypeError(`${what} contains a character XML 1.0 cannot represent (a control character or lone surrogate)`);
    }
    this.out += escaped;
  }

  /** A top-level `<value>`; `root` names it in error messages. */
  topValue(v: XmlRpcInput | undefined, root: string): void {
    this.root = root;
    this.value(v);
  }

  private where(): string {
    return describePath(this.root, this.path);
  }

  private value(v: XmlRpcInput | undefined): void {
    this.out += '<value>';
    this.inner(v);
    this.out += '</value>';
  }

  private inner(v: XmlRpcInput | undefined): void {
    switch (typeof v) {
      case 'number':
        if (Number.isInteger(v) && v >= XMLRPC_INT_MIN && v <= XMLRPC_INT_MAX) {
          this.out += `<int>${v === 0 ? 0 : v}</int>`;
        } else {
          this.double(v);
        }
        return;
      case 'bigint':
        if (v < BigInt(XMLRPC_INT_MIN) || v > BigInt(XMLRPC_INT_MAX)) {
          throw new XmlRpcTypeError(`${this.where()}: bigint ${v} is outside the XML-RPC <int> (32-bit) range`);
        }
        this.out += `<int>${v}</int>`;
        return;
      case 'boolean':
        this.out += v ? '<boolean>1</boolean>' : '<boolean>0</boolean>';
        return;
      case 'string': {
        const escaped = escapeXmlText(v);
        if (escaped === undefined) this.text(v, `${this.where()}: string`);
        else this.out += `<string>${escaped}</string>`;
        return;
      }
      case 'object':
        this.object(v);
        return;
      default:
        throw new XmlRpcTypeError(`${this.where()}: cannot encode ${typeof v} in XML-RPC`);
    }
  }

  private double(n: number): void {
    if (!Number.isFinite(n)) throw new XmlRpcTypeError(`${this.where()}: XML-RPC <double> cannot carry ${n}`);
    this.out += `<double>${formatXmlRpcDouble(n)}</double>`;
  }

  private object(v: Exclude<XmlRpcInput, number | bigint | boolean | string>): void {
    if (v === null) {
      if (!this.allowNil) throw new XmlRpcTypeError(`${this.where()}: null cannot be encoded unless allowNil is set`);
      this.out += '<nil/>';
    } else if (v instanceof XmlRpcDouble) {
      if (typeof v.value !== 'number') throw new XmlRpcTypeError(`${this.where()}: XmlRpcDouble holds a ${typeof v.value}`);
      this.double(v.value);
    } else if (v instanceof Date) {
      const year = v.getUTCFullYear();
      if (Number.isNaN(v.getTime()) || year < 0 || year > 9999) {
        throw new XmlRpcTypeError(`${this.where()}: Date ${String(v)} has no YYYYMMDDTHH:MM:SS form (year 0 to 9999)`);
      }
      this.out += `<dateTime.iso8601>${formatXmlRpcDateTime(v)}</dateTime.iso8601>`;
    } else if (v instanceof Uint8Array) {
      this.out += `<base64>${formatXmlRpcBase64(v)}</base64>`;
    } else if (Array.isArray(v)) {
      this.enter(v);
      this.out += '<array><data>';
      const items: readonly (XmlRpcInput | undefined)[] = v;
      for (let i = 0; i < items.length; i++) {
        this.path.push(i);
        this.value(items[i]);
        this.path.pop();
      }
      this.out += '</data></array>';
      this.ancestors.delete(v);
    } else if (isXmlRpcStruct(v)) {
      this.enter(v);
      this.out += '<struct>';
      for (const key of Object.keys(v)) {
        const member = v[key];
        if (member === undefined) continue;
        this.out += '<member><name>';
        this.text(key, `${this.where()}: member name`);
        this.out += '</name>';
        this.path.push(key);
        this.value(member);
        this.path.pop();
        this.out += '</member>';
      }
      this.out += '</struct>';
      this.ancestors.delete(v);
    } else {
      const kind = (v as object).constructor?.name ?? 'object';
      throw new XmlRpcTypeError(`${this.where()}: cannot encode a ${kind} in XML-RPC (only plain objects become structs)`);
    }
  }

  private enter(container: object): void {
    if (this.ancestors.has(container)) throw new XmlRpcTypeError(`${this.where()}: cannot encode a cyclic structure`);
    if (this.ancestors.size >= this.maxDepth) {
      throw new XmlRpcTooDeepError(`${this.where()}: arrays and structs nested deeper than ${this.maxDepth}`);
    }
    this.ancestors.add(container);
  }

  toString(): string {
    return this.out;
  }
}

/** `<methodCall>` for `method` with `params`. */
export function encodeXmlRpcRequest(
  method: string,
  params: readonly XmlRpcInput[] = [],
  options: XmlRpcEncodeOptions = {},
): string {
  if (typeof method !== 'string' || method.length === 0) throw new XmlRpcTypeError('method name must be a non-empty string');
  const w = new ValueWriter(options);
  w.raw(`${XML_DECLARATION}<methodCall><methodName>`);
  w.text(method, 'method name');
  w.raw('</methodName><params>');
  for (let i = 0; i < params.length; i++) {
    w.raw('<param>');
    w.topValue(params[i], `params[${i}]`);
    w.raw('</param>');
  }
  w.raw('</params></methodCall>');
  return w.toString();
}

/** `<methodResponse>` carrying `value` as its one param. */
export function encodeXmlRpcResponse(value: XmlRpcInput, options: XmlRpcEncodeOptions = {}): string {
  const w = new ValueWriter(options);
  w.raw(`${XML_DECLARATION}<methodResponse><params><param>`);
  w.topValue(value, 'result');
  w.raw('</param></params></methodResponse>');
  return w.toString();
}

/** `<methodResponse><fault>` with the faultCode (an int32) and faultString. */
export function encodeXmlRpcFault(fault: XmlRpcFault): string;
export function encodeXmlRpcFault(faultCode: number, faultString: string): string;
export function encodeXmlRpcFault(codeOrFault: number | XmlRpcFault, faultString?: string): string {
  const [code, text] = codeOrFault instanceof XmlRpcFault ? [codeOrFault.faultCode, codeOrFault.faultString] : [codeOrFault, faultString];
  if (!Number.isInteger(code) || code < XMLRPC_INT_MIN || code > XMLRPC_INT_MAX) {
    throw new XmlRpcTypeError(`faultCode must be an integer within int32, got ${code}`);
  }
  if (typeof text !== 'string') throw new XmlRpcTypeError('faultString must be a string');
  const w = new ValueWriter({});
  w.raw(`${XML_DECLARATION}<methodResponse><fault>`);
  w.topValue({ faultCode: code, faultString: text }, 'fault');
  w.raw('</fault></methodResponse>');
  return w.toString();
}
