/**
 * XML-RPC decoder on the saxes SAX parser: chunks in (bytes or text), one message out.
 *
 *   const decoder = new XmlRpcDecoder({ expect: 'request' });
 *   for await (const chunk of body) decoder.write(chunk); // refuses a DOCTYPE or an oversized body early
 *   const { methodName, params } = decoder.end();
 *
 * Security: saxes never reads a DTD, and a DOCTYPE is refused as soon as it has been read, so no entity is ever
 * declared; a reference to any entity but the five predefined ones is refused too (character references are fine).
 * Input is limited to `maxBytes` and arrays/structs to `maxDepth` levels. Unknown elements are refused; attributes,
 * comments and processing instructions are ignored.
 *
 * Byte input is UTF-8 (a BOM is skipped) unless its XML declaration names ISO-8859-1 (also read: US-ASCII, read as
 * UTF-8); any other declared encoding, UTF-16 included, is refused. A string input's declared encoding is ignored.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { CodecError } from '../errors';
import {
  XmlRpcForbiddenError,
  XmlRpcParseError,
  XmlRpcStructureError,
  XmlRpcTooDeepError,
  XmlRpcTooLargeError,
  XmlRpcTypeError,
  XmlRpcValueError,
} from './errors';
import { XmlRpcFault } from './fault';
import {
  parseXmlRpcBase64,
  parseXmlRpcBoolean,
  parseXmlRpcDateTime,
  parseXmlRpcDouble,
  parseXmlRpcInt,
  type Fail,
} from './scalars';
import { XMLRPC_DEFAULT_MAX_DEPTH, XmlRpcDouble, type XmlRpcStruct, type XmlRpcValue } from './values';

export const XMLRPC_DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

export interface XmlRpcDecodeOptions {
  /** Largest accepted input in bytes (UTF-8 bytes for string input); default 8 MiB. */
  maxBytes?: number;
  /** Deepest accepted nesting of arrays and structs; default 64. */
  maxDepth?: number;
  /** Return `<double>` values as XmlRpcDouble instead of number, so that re-encoding keeps them doubles. */
  wrapDoubles?: boolean;
}

/** A decoded `<methodCall>`. */
export interface XmlRpcRequest {
  readonly kind: 'request';
  readonly methodName: string;
  readonly params: XmlRpcValue[];
}

/** A decoded `<methodResponse>` with its one param. */
export interface XmlRpcValueResponse {
  readonly kind: 'value';
  readonly value: XmlRpcValue;
}

/** A decoded `<methodResponse>` with a `<fault>`. */
export interface XmlRpcFaultResponse {
  readonly kind: 'fault';
  readonly fault: XmlRpcFault;
}

export type XmlRpcResponse = XmlRpcValueResponse | XmlRpcFaultResponse;
export type XmlRpcMessage = XmlRpcRequest | XmlRpcResponse;

interface XmlRpcExpected {
  request: XmlRpcRequest;
  response: XmlRpcResponse;
  any: XmlRpcMessage;
}

export type XmlRpcExpect = keyof XmlRpcExpected;

export interface XmlRpcDecoderOptions<E extends XmlRpcExpect = XmlRpcExpect> extends XmlRpcDecodeOptions {
  /** Which root element is accepted: 'request' (`<methodCall>`), 'response' (`<methodResponse>`) or 'any'. */
  expect?: E;
}

const TYPE_TAGS: readonly string[] = [
  'int', 'i4', 'i8', 'boolean', 'string', 'double', 'dateTime.iso8601', 'base64', 'nil', 'array', 'struct',
];
/** Allowed element children per element; elements not listed have none. */
const CHILDREN: Readonly<Record<string, readonly string[]>> = {
  methodCall: ['methodName', 'params'],
  methodResponse: ['params', 'fault'],
  params: ['param'],
  param: ['value'],
  fault: ['value'],
  value: TYPE_TAGS,
  array: ['data'],
  data: ['value'],
  struct: ['member'],
  member: ['name', 'value'],
};
/** Parents whose children may repeat; every other parent takes each child at most once. */
const REPEATING = new Set(['params', 'data', 'struct']);
/** Parents with exactly one child element whatever its name. */
const SINGLE_CHILD = new Set(['value', 'methodResponse']);
/** Elements whose character data is kept. */
const TEXT_TAGS = new Set([
  'value', 'methodName', 'name', 'int', 'i4', 'i8', 'boolean', 'string', 'double', 'dateTime.iso8601', 'base64',
]);
const NOT_XML_SPACE = /[^ \t\r\n]/;

class Frame {
  text = '';
  children = 0;
  firstChild = '';
  value: XmlRpcValue = null;
  hasValue = false;
  items: XmlRpcValue[] | undefined = undefined;
  struct: XmlRpcStruct | undefined = undefined;
  name: string | undefined = undefined;
  fault: XmlRpcFault | undefined = undefined;
  constructor(readonly tag: string) {}
}

/** A value closed inside its parent (`<value>`, `<param>`, `<member>`, `<fault>`, `<array>`). */
function give(parent: Frame, value: XmlRpcValue): void {
  parent.value = value;
  parent.hasValue = true;
}

/** Sets a struct member; "__proto__" becomes an own property, so member names cannot pollute prototypes. */
function setMember(struct: XmlRpcStruct, name: string, value: XmlRpcValue): void {
  if (name === '__proto__') {
    Object.defineProperty(struct, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    struct[name] = value;
  }
}

type Encoding = 'utf-8' | 'latin1';

/** Where the parser was, for byte offsets: its position and the chunk of text it was reading. */
interface Mark {
  position: number;
  text: string;
  charStart: number;
  byteStart: number;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;
const XML_DECL_START = [0x3c, 0x3f, 0x78, 0x6d, 0x6c] as const; // "<?xml"
const MAX_DECL_BYTES = 512;
const DECLARED_ENCODING = /^<\?xml[ \t\r\n][^>]*?encoding[ \t\r\n]*=[ \t\r\n]*(["'])([A-Za-z][A-Za-z0-9._-]*)\1/;

function startsWith(bytes: Uint8Array, at: number, prefix: readonly number[]): 'yes' | 'no' | 'maybe' {
  const n = Math.min(prefix.length, bytes.length - at);
  for (let i = 0; i < n; i++) if (bytes[at + i] !== prefix[i]) return 'no';
  return n === prefix.length ? 'yes' : 'maybe';
}

function encodingForLabel(label: string): Encoding | undefined {
  switch (label.toLowerCase()) {
    case 'utf-8':
    case 'utf8':
    case 'us-ascii':
    case 'ascii':
      return 'utf-8';
    case 'iso-8859-1':
    case 'iso8859-1':
    case 'iso_8859-1':
    case 'latin1':
    case 'latin-1':
    case 'l1':
      return 'latin1';
    default:
      return undefined;
  }
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/**
 * Streaming XML-RPC decoder: `write` chunks (all Uint8Array or all string), then `end()` for the message. Any failure
 * is thrown as a CodecError subclass, from `write` as soon as it is seen or from `end`; after one, the decoder
 * rethrows it.
 */
export class XmlRpcDecoder<E extends XmlRpcExpect = 'any'> {
  private readonly expect: XmlRpcExpect;
  private readonly maxBytes: number;
  private readonly maxDepth: number;
  private readonly wrapDoubles: boolean;
  private readonly parser = new SaxesParser({ xmlns: false, position: true });
  private readonly stack: Frame[] = [];
  private depth = 0;
  private result: XmlRpcMessage | undefined;
  private failure: CodecError | undefined;
  private ended = false;
  // a close tag held back until the next event (see the 'closetag' handler), with where the parser was
  private pendingClose: string | undefined;
  private readonly pendingAt: Mark = { position: 0, text: '', charStart: 0, byteStart: 0 };
  private replaying = false;

  // input bookkeeping
  private mode: 'bytes' | 'string' | undefined;
  private bytesIn = 0;
  private pending: Uint8Array | undefined = new Uint8Array(0); // bytes held while sniffing the encoding
  private encoding: Encoding = 'utf-8';
  private utf8: InstanceType<typeof TextDecoder> | undefined;
  private chunkText = '';
  private chunkCharStart = 0;
  private chunkByteStart = 0;
  private charsFed = 0;
  private bytesFed = 0;
  private readonly fail: Fail = (message) => {
    throw new XmlRpcValueError(message, { offset: this.offsetNow() });
  };

  constructor(options: XmlRpcDecoderOptions<E> = {}) {
    this.expect = options.expect ?? 'any';
    this.maxBytes = options.maxBytes ?? XMLRPC_DEFAULT_MAX_BYTES;
    this.maxDepth = options.maxDepth ?? XMLRPC_DEFAULT_MAX_DEPTH;
    this.wrapDoubles = options.wrapDoubles ?? false;
    const p = this.parser;
    p.on('doctype', () => {
      throw new XmlRpcForbiddenError('DOCTYPE declarations (DTDs, entity declarations) are refused', {
        offset: this.offsetNow(),
      });
    });
    p.on('opentag', (tag: SaxesTagPlain) => {
      this.flush();
      this.open(tag.name);
    });
    // saxes reports a close tag before checking that its name matches the open one: hold it until the next event,
    // so that a mismatched close tag is reported as malformed XML rather than as a truncated element
    p.on('closetag', (tag: SaxesTagPlain) => {
      this.flush();
      this.pendingClose = tag.name;
      const at = this.pendingAt;
      at.position = this.parser.position;
      at.text = this.chunkText;
      at.charStart = this.chunkCharStart;
      at.byteStart = this.chunkByteStart;
    });
    p.on('text', (text) => {
      this.flush();
      this.characters(text);
    });
    p.on('cdata', (text) => {
      this.flush();
      this.characters(text);
    });
  }

  /** Feeds the next chunk of the document. */
  write(chunk: Uint8Array | string): void {
    this.guard(() => {
      if (this.ended) throw new XmlRpcParseError('write after end()');
      if (typeof chunk === 'string') this.writeString(chunk);
      else if (chunk instanceof Uint8Array) this.writeBytes(chunk);
      else throw new XmlRpcParseError('input must be a string or a Uint8Array');
    });
  }

  /** Ends the document and returns the message. */
  end(): XmlRpcExpected[E] {
    return this.guard(() => {
      if (this.ended) throw new XmlRpcParseError('end() called twice');
      this.ended = true;
      if (this.mode === 'bytes') {
        if (this.pending !== undefined) this.startBytes(this.pending, true);
        if (this.utf8 !== undefined) this.feed(this.decodeUtf8(undefined));
      }
      this.chunkText = '';
      this.chunkCharStart = this.charsFed;
      this.chunkByteStart = this.bytesFed;
      this.parser.close();
      this.flush();
      if (this.result === undefined) throw new XmlRpcStructureError('no XML-RPC message in the input');
      return this.result as XmlRpcExpected[E];
    });
  }

  private guard<T>(body: () => T): T {
    if (this.failure !== undefined) throw this.failure;
    try {
      return body();
    } catch (e) {
      this.failure = this.asCodecError(e);
      throw this.failure;
    }
  }

  private asCodecError(e: unknown): CodecError {
    if (e instanceof CodecError) return e;
    const message = e instanceof Error ? e.message : String(e);
    const offset = this.offsetNow();
    if (message.endsWith('undefined entity.')) {
      return new XmlRpcForbiddenError(
        `entity references other than &lt; &gt; &amp; &quot; &apos; are refused (saxes: ${message})`,
        { offset, cause: e },
      );
    }
    return new XmlRpcParseError(`malformed XML: ${message}`, { offset, cause: e });
  }

  // ---- input -----------------------------------------------------------------------------------------------------

  private setMode(mode: 'bytes' | 'string'): void {
    if (this.mode !== undefined && this.mode !== mode) throw new XmlRpcParseError('cannot mix string and byte chunks');
    this.mode = mode;
  }

  private count(bytes: number): void {
    this.bytesIn += bytes;
    if (this.bytesIn > this.maxBytes) {
      throw new XmlRpcTooLargeError(`input is larger than the ${this.maxBytes}-byte limit`, { offset: this.maxBytes });
    }
  }

  private writeString(chunk: string): void {
    const first = this.mode === undefined;
    this.setMode('string');
    if (chunk.length > this.maxBytes) this.count(chunk.length); // a UTF-16 unit is at least one UTF-8 byte
    this.count(Buffer.byteLength(chunk, 'utf8'));
    this.feed(first && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk);
  }

  private writeBytes(chunk: Uint8Array): void {
    this.setMode('bytes');
    this.count(chunk.byteLength);
    if (this.pending !== undefined) {
      const joined = new Uint8Array(this.pending.length + chunk.length);
      joined.set(this.pending);
      joined.set(chunk, this.pending.length);
      this.pending = joined;
      this.startBytes(joined, false);
    } else if (this.encoding === 'latin1') {
      this.feed(latin1(chunk));
    } else {
      this.feed(this.decodeUtf8(chunk));
    }
  }

  /** Picks the encoding from a BOM or the XML declaration once enough bytes are in (or at the end), then feeds. */
  private startBytes(bytes: Uint8Array, final: boolean): void {
    let at = 0;
    const bom = startsWith(bytes, 0, UTF8_BOM);
    if (bom === 'maybe' && !final) return;
    if (bom === 'yes') at = 3;
    if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe)) {
      throw new XmlRpcParseError('UTF-16 input is not supported; send UTF-8', { offset: 0 });
    }
    let encoding: Encoding = 'utf-8';
    const decl = startsWith(bytes, at, XML_DECL_START);
    if (decl === 'maybe' && !final) return;
    if (decl === 'yes') {
      const close = bytes.indexOf(0x3e, at);
      if (close < 0 && !final && bytes.length - at < MAX_DECL_BYTES) return;
      const match = close < 0 ? null : DECLARED_ENCODING.exec(latin1(bytes.subarray(at, close + 1)));
      if (match) {
        const label = match[2] ?? '';
        const found = encodingForLabel(label);
        if (found === undefined || (at === 3 && found !== 'utf-8')) {
          throw new XmlRpcParseError(
            `unsupported encoding ${JSON.stringify(label)}${at === 3 ? ' after a UTF-8 byte order mark' : ''}; ` +
              'UTF-8 and ISO-8859-1 are read',
            { offset: at },
          );
        }
        encoding = found;
      }
    }
    this.pending = undefined;
    this.encoding = encoding;
    this.bytesFed = at;
    const rest = bytes.subarray(at);
    if (encoding === 'latin1') {
      this.feed(latin1(rest));
    } else {
      this.feed(this.decodeUtf8(rest));
    }
  }

  private decodeUtf8(chunk: Uint8Array | undefined): string {
    const utf8 = (this.utf8 ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }));
    try {
      return chunk === undefined ? utf8.decode() : utf8.decode(chunk, { stream: true });
    } catch (e) {
      throw new XmlRpcParseError('input is not valid UTF-8', { offset: this.bytesFed, cause: e });
    }
  }

  private feed(text: string): void {
    this.chunkText = text;
    this.chunkCharStart = this.charsFed;
    this.chunkByteStart = this.bytesFed;
    if (text.length > 0) this.parser.write(text);
    this.charsFed += text.length;
    this.bytesFed += this.encoding === 'latin1' ? text.length : Buffer.byteLength(text, 'utf8');
  }

  /** Byte offset of the parser's position (at or just past the construct being handled). */
  private offsetNow(): number {
    const m: Mark = this.replaying
      ? this.pendingAt
      : { position: this.parser.position, text: this.chunkText, charStart: this.chunkCharStart, byteStart: this.chunkByteStart };
    const rel = Math.min(Math.max(m.position - m.charStart, 0), m.text.length);
    const head = m.text.slice(0, rel);
    return m.byteStart + (this.encoding === 'latin1' ? head.length : Buffer.byteLength(head, 'utf8'));
  }

  private flush(): void {
    const tag = this.pendingClose;
    if (tag === undefined) return;
    this.pendingClose = undefined;
    this.replaying = true;
    try {
      this.close(tag);
    } finally {
      this.replaying = false;
    }
  }

  // ---- document --------------------------------------------------------------------------------------------------

  private structure(message: string): never {
    throw new XmlRpcStructureError(message, { offset: this.offsetNow() });
  }

  private open(tag: string): void {
    const parent = this.stack.at(-1);
    if (parent === undefined) {
      const ok =
        (tag === 'methodCall' && this.expect !== 'response') || (tag === 'methodResponse' && this.expect !== 'request');
      if (!ok) {
        const wanted = { request: '<methodCall>', response: '<methodResponse>', any: '<methodCall> or <methodResponse>' };
        this.structure(`root element <${tag}> is not ${wanted[this.expect]}`);
      }
    } else {
      const allowed = CHILDREN[parent.tag];
      if (allowed === undefined || !allowed.includes(tag)) {
        if (parent.tag === 'value') throw new XmlRpcTypeError(`unknown XML-RPC type <${tag}>`, { offset: this.offsetNow() });
        this.structure(`<${tag}> is not allowed inside <${parent.tag}>`);
      }
      if (!REPEATING.has(parent.tag)) {
        const single = SINGLE_CHILD.has(parent.tag);
        if ((single && parent.children > 0) || parent.children >= allowed.length || parent.firstChild === tag) {
          this.structure(`<${parent.tag}> takes a single <${single ? parent.firstChild : tag}>`);
        }
        if (parent.tag === 'methodCall' && tag === 'params' && parent.children === 0) {
          this.structure('<methodName> must come before <params>');
        }
        if (parent.tag === 'value' && NOT_XML_SPACE.test(parent.text)) this.structure(`text before <${tag}> in <value>`);
        if (parent.children === 0) parent.firstChild = tag;
        parent.children += 1;
      }
      if (tag === 'array' || tag === 'struct') {
        this.depth += 1;
        if (this.depth > this.maxDepth) {
          throw new XmlRpcTooDeepError(`arrays and structs nested deeper than ${this.maxDepth}`, { offset: this.offsetNow() });
        }
      }
    }
    const frame = new Frame(tag);
    this.stack.push(frame);
  }

  private characters(text: string): void {
    const top = this.stack.at(-1);
    if (top === undefined) return; // outside the root: saxes refuses anything but whitespace
    if (TEXT_TAGS.has(top.tag) && !(top.tag === 'value' && top.children > 0)) {
      top.text += text;
    } else if (NOT_XML_SPACE.test(text)) {
      this.structure(`text is not allowed inside <${top.tag}>${top.tag === 'value' ? ' next to a typed value' : ''}`);
    }
  }

  private close(tag: string): void {
    const f = this.stack.pop();
    const parent = this.stack.at(-1);
    if (f === undefined) return; // saxes reports close tags only for open elements
    if (parent === undefined) {
      this.closeRoot(f);
      return;
    }
    switch (tag) {
      case 'int':
      case 'i4':
      case 'i8':
        return give(parent, parseXmlRpcInt(f.text, tag, this.fail));
      case 'boolean':
        return give(parent, parseXmlRpcBoolean(f.text, this.fail));
      case 'string':
        return give(parent, f.text);
      case 'double': {
        const n = parseXmlRpcDouble(f.text, this.fail);
        return give(parent, this.wrapDoubles ? new XmlRpcDouble(n) : n);
      }
      case 'dateTime.iso8601':
        return give(parent, parseXmlRpcDateTime(f.text, this.fail));
      case 'base64':
        return give(parent, parseXmlRpcBase64(f.text, this.fail));
      case 'nil':
        return give(parent, null);
      case 'array':
        if (!f.hasValue) this.structure('<array> needs a <data> element');
        this.depth -= 1;
        return give(parent, f.value);
      case 'struct':
        this.depth -= 1;
        return give(parent, f.struct ?? {});
      case 'data':
        return give(parent, f.items ?? []);
      case 'value': {
        const value = f.hasValue ? f.value : f.text; // no type element: the text is a string
        if (parent.tag === 'data') (parent.items ??= []).push(value);
        else give(parent, value);
        return;
      }
      case 'param':
        if (!f.hasValue) this.structure('<param> needs a <value>');
        (parent.items ??= []).push(f.value);
        return;
      case 'fault':
        if (!f.hasValue) this.structure('<fault> needs a <value>');
        parent.fault = this.toFault(f.value);
        return;
      case 'params':
        parent.items = f.items ?? [];
        return;
      case 'name':
        parent.name = f.text;
        return;
      case 'member':
        if (f.name === undefined || !f.hasValue) this.structure('<member> needs a <name> and a <value>');
        setMember((parent.struct ??= {}), f.name, f.value);
        return;
      case 'methodName': {
        const name = f.text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
        if (name === '') this.structure('<methodName> is empty');
        parent.name = name;
        return;
      }
      default:
        this.structure(`unexpected element <${tag}>`); // unreachable: open() refuses unknown elements
    }
  }

  private closeRoot(f: Frame): void {
    if (f.tag === 'methodCall') {
      if (f.name === undefined) this.structure('<methodCall> needs a <methodName>');
      this.result = { kind: 'request', methodName: f.name, params: f.items ?? [] };
    } else if (f.fault !== undefined) {
      this.result = { kind: 'fault', fault: f.fault };
    } else if (f.items === undefined || f.items.length !== 1) {
      this.structure(
        `<methodResponse> needs a <fault> or <params> with exactly one <param>, got ${f.items?.length ?? 'neither'}`,
      );
    } else {
      this.result = { kind: 'value', value: f.items[0] as XmlRpcValue };
    }
  }

  private toFault(value: XmlRpcValue): XmlRpcFault {
    const isStruct =
      typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
    if (!isStruct) this.structure('<fault> value must be a struct with faultCode and faultString');
    const s = value as XmlRpcStruct;
    const code = Object.hasOwn(s, 'faultCode') ? s['faultCode'] : undefined;
    const text = Object.hasOwn(s, 'faultString') ? s['faultString'] : undefined;
    if (typeof code !== 'number' || !Number.isInteger(code)) this.structure('<fault> struct needs an int faultCode');
    if (typeof text !== 'string') this.structure('<fault> struct needs a string faultString');
    return new XmlRpcFault(code, text);
  }
}

function decodeWith<E extends XmlRpcExpect>(
  expect: E,
  xml: string | Uint8Array,
  options: XmlRpcDecodeOptions,
): XmlRpcExpected[E] {
  const decoder = new XmlRpcDecoder<E>({ ...options, expect });
  decoder.write(xml);
  return decoder.end();
}

/** Decodes a `<methodCall>`. */
export function decodeXmlRpcRequest(xml: string | Uint8Array, options: XmlRpcDecodeOptions = {}): XmlRpcRequest {
  return decodeWith('request', xml, options);
}

/** Decodes a `<methodResponse>`: `{ kind: 'value', value }` or `{ kind: 'fault', fault }` (a fault is not thrown). */
export function decodeXmlRpcResponse(xml: string | Uint8Array, options: XmlRpcDecodeOptions = {}): XmlRpcResponse {
  return decodeWith('response', xml, options);
}

/** Decodes either kind of message. */
export function decodeXmlRpcMessage(xml: string | Uint8Array, options: XmlRpcDecodeOptions = {}): XmlRpcMessage {
  return decodeWith('any', xml, options);
}
