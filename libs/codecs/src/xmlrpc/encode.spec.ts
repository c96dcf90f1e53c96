import { describe, expect, it } from 'vitest';
import { CodecError } from '../errors';
import {
  XmlRpcDouble,
  XmlRpcFault,
  XmlRpcTooDeepError,
  XmlRpcTypeError,
  decodeXmlRpcResponse,
  encodeXmlRpcFault,
  encodeXmlRpcRequest,
  encodeXmlRpcResponse,
  type XmlRpcInput,
} from './index';

/** The `<value>` inside an encoded response. */
function encodedValue(v: XmlRpcInput): string {
  const xml = encodeXmlRpcResponse(v, { allowNil: true });
  const m = /<param><value>(.*)<\/value><\/param>/s.exec(xml);
  if (!m) throw new Error(xml);
  return m[1]!;
}

function errorOf(run: () => unknown): CodecError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
  throw new Error('expected a CodecError, nothing was thrown');
}

describe('xmlrpc encode - documents', () => {
  it('request - exact text of a small methodCall', () => {
    expect(encodeXmlRpcRequest('examples.getStateName', [41])).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><methodCall><methodName>examples.getStateName</methodName>' +
        '<params><param><value><int>41</int></value></param></params></methodCall>',
    );
    expect(encodeXmlRpcRequest('ping')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><methodCall><methodName>ping</methodName><params></params></methodCall>',
    );
  });

  it('response - exact text of a methodResponse', () => {
    expect(encodeXmlRpcResponse('South Dakota')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><methodResponse><params><param><value><string>South Dakota</string>' +
        '</value></param></params></methodResponse>',
    );
  });

  it('fault - faultCode and faultString struct, from numbers or from an XmlRpcFault', () => {
    const xml = encodeXmlRpcFault(4, 'Too many parameters.');
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><methodResponse><fault><value><struct>' +
        '<member><name>faultCode</name><value><int>4</int></value></member>' +
        '<member><name>faultString</name><value><string>Too many parameters.</string></value></member>' +
        '</struct></value></fault></methodResponse>',
    );
    expect(encodeXmlRpcFault(new XmlRpcFault(4, 'Too many parameters.'))).toBe(xml);
  });
});

describe('xmlrpc encode - numbers', () => {
  it('number - an integer within int32 is <int>, anything else is <double>', () => {
    expect(encodedValue(0)).toBe('<int>0</int>');
    expect(encodedValue(-0)).toBe('<int>0</int>');
    expect(encodedValue(2147483647)).toBe('<int>2147483647</int>');
    expect(encodedValue(-2147483648)).toBe('<int>-2147483648</int>');
    expect(encodedValue(2147483648)).toBe('<double>2147483648.0</double>');
    expect(encodedValue(-2147483649)).toBe('<double>-2147483649.0</double>');
    expect(encodedValue(1.5)).toBe('<double>1.5</double>');
    expect(encodedValue(0.1)).toBe('<double>0.1</double>');
    expect(encodedValue(1e21)).toBe('<double>1e+21</double>');
    expect(encodedValue(5e-324)).toBe('<double>5e-324</double>');
  });

  it('XmlRpcDouble - forces <double>, keeps -0', () => {
    expect(encodedValue(new XmlRpcDouble(2))).toBe('<double>2.0</double>');
    expect(encodedValue(new XmlRpcDouble(-0))).toBe('<double>-0.0</double>');
    expect(encodedValue(new XmlRpcDouble(0.25))).toBe('<double>0.25</double>');
    expect(new XmlRpcDouble(2).valueOf() + 1).toBe(3);
  });

  it('bigint - within int32 is <int>', () => {
    expect(encodedValue(7n)).toBe('<int>7</int>');
    expect(encodedValue(-2147483648n)).toBe('<int>-2147483648</int>');
  });
});

describe('xmlrpc encode - other types', () => {
  it('string - &, <, > and CR escaped; quotes, tabs, LF and unicode as they are', () => {
    expect(encodedValue(`a<b>&c"d'e\tf\ng\rh ]]> 日本 😀`)).toBe(
      `<string>a&lt;b&gt;&amp;c"d'e\tf\ng&#13;h ]]&gt; 日本 😀</string>`,
    );
    expect(decodeXmlRpcResponse(encodeXmlRpcResponse('x\r\ny\rz'))).toEqual({ kind: 'value', value: 'x\r\ny\rz' });
  });

  it('boolean, base64 and nil', () => {
    expect(encodedValue(true)).toBe('<boolean>1</boolean>');
    expect(encodedValue(false)).toBe('<boolean>0</boolean>');
    expect(encodedValue(new Uint8Array([0, 1, 2, 253, 254, 255]))).toBe('<base64>AAEC/f7/</base64>');
    expect(encodedValue(Buffer.from('hi'))).toBe('<base64>aGk=</base64>');
    expect(encodedValue(new Uint8Array(new ArrayBuffer(8), 2, 3).fill(255))).toBe('<base64>////</base64>');
    expect(encodedValue(null)).toBe('<nil/>');
  });

  it('date - naive YYYYMMDDTHH:MM:SS from the UTC fields, milliseconds dropped, 4-digit year', () => {
    expect(encodedValue(new Date('2024-02-29T23:59:59.999Z'))).toBe('<dateTime.iso8601>20240229T23:59:59</dateTime.iso8601>');
    expect(encodedValue(new Date('0099-01-02T03:04:05Z'))).toBe('<dateTime.iso8601>00990102T03:04:05</dateTime.iso8601>');
    expect(encodedValue(new Date('1998-07-17T14:08:55+02:00'))).toBe('<dateTime.iso8601>19980717T12:08:55</dateTime.iso8601>');
  });

  it('array and struct - nested; undefined members left out; __proto__ and null-prototype objects are structs', () => {
    expect(encodedValue([1, ['a']])).toBe(
      '<array><data><value><int>1</int></value><value><array><data><value><string>a</string></value></data></array></value></data></array>',
    );
    expect(encodedValue({ a: 1, skipped: undefined })).toBe('<struct><member><name>a</name><value><int>1</int></value></member></struct>');
    const proto = JSON.parse('{"__proto__": 5}') as XmlRpcInput;
    expect(encodedValue(proto)).toBe('<struct><member><name>__proto__</name><value><int>5</int></value></member></struct>');
    const bare = Object.create(null) as Record<string, XmlRpcInput>;
    bare['k'] = 'v';
    expect(encodedValue(bare)).toBe('<struct><member><name>k</name><value><string>v</string></value></member></struct>');
  });

  it('shared (non-cyclic) references are encoded each time they appear', () => {
    const shared = { x: 1 };
    expect(decodeXmlRpcResponse(encodeXmlRpcResponse([shared, shared, { again: shared }]))).toEqual({
      kind: 'value',
      value: [{ x: 1 }, { x: 1 }, { again: { x: 1 } }],
    });
  });
});

describe('xmlrpc encode - errors', () => {
  it('unrepresentable values - a type error naming where the value was', () => {
    const cyclic: unknown[] = [1];
    cyclic.push(cyclic);
    const cyclicStruct: Record<string, unknown> = {};
    cyclicStruct['self'] = { back: cyclicStruct };
    class Point {
      x = 1;
    }
    const cases: [unknown, RegExp][] = [
      [undefined, /result: cannot encode undefined/],
      [[1, undefined], /result\[1\]: cannot encode undefined/],
      [[1, , 3], /result\[1\]: cannot encode undefined/], // eslint-disable-line no-sparse-arrays
      [() => 1, /cannot encode function/],
      [Symbol('s'), /cannot encode symbol/],
      [{ deep: [Number.NaN] }, /result\.deep\[0\]: XML-RPC <double> cannot carry NaN/],
      [Infinity, /cannot carry Infinity/],
      [new XmlRpcDouble(-Infinity), /cannot carry -Infinity/],
      [new Map([['a', 1]]), /cannot encode a Map/],
      [new Set([1]), /cannot encode a Set/],
      [new Point(), /cannot encode a Point/],
      [/re/, /cannot encode a RegExp/],
      [cyclic, /result\[1\]: cannot encode a cyclic structure/],
      [cyclicStruct, /result\.self\.back: cannot encode a cyclic structure/],
      [null, /null cannot be encoded unless allowNil/],
      [{ k: null }, /result\.k: null cannot be encoded/],
      ['nul \u0000 char', /string contains a character XML 1.0 cannot represent/],
      ['lone \uD800 surrogate', /XML 1.0 cannot represent/],
      ['\uFFFE', /XML 1.0 cannot represent/],
      [{ 'bad\u0001key': 1 }, /member name contains a character/],
      [new Date(Number.NaN), /has no YYYYMMDDTHH:MM:SS form/],
      [new Date('+010000-01-01T00:00:00Z'), /has no YYYYMMDDTHH:MM:SS form/],
      [2147483648n, /outside the XML-RPC <int> \(32-bit\) range/],
    ];
    for (const [v, message] of cases) {
      const e = errorOf(() => encodeXmlRpcResponse(v as XmlRpcInput));
      expect(e, String(message)).toBeInstanceOf(XmlRpcTypeError);
      expect(e.code).toBe('XMLRPC_TYPE');
      expect(e.message).toMatch(message);
    }
  });

  it('method name and fault - checked', () => {
    expect(errorOf(() => encodeXmlRpcRequest('', []))).toBeInstanceOf(XmlRpcTypeError);
    expect(errorOf(() => encodeXmlRpcRequest('a\u0000b', []))).toBeInstanceOf(XmlRpcTypeError);
    expect(errorOf(() => encodeXmlRpcRequest('m', [1, undefined as unknown as XmlRpcInput])).message).toMatch(/params\[1\]/);
    expect(errorOf(() => encodeXmlRpcFault(1.5, 'x'))).toBeInstanceOf(XmlRpcTypeError);
    expect(errorOf(() => encodeXmlRpcFault(2 ** 31, 'x'))).toBeInstanceOf(XmlRpcTypeError);
    expect(errorOf(() => encodeXmlRpcFault(1, undefined as unknown as string))).toBeInstanceOf(XmlRpcTypeError);
  });

  it('too deep - nesting beyond maxDepth (default 64) is refused; the limit is configurable', () => {
    const nest = (n: number): XmlRpcInput => {
      let v: XmlRpcInput = 1;
      for (let i = 0; i < n; i++) v = i % 2 ? [v] : { v };
      return v;
    };
    expect(() => encodeXmlRpcResponse(nest(64))).not.toThrow();
    expect(errorOf(() => encodeXmlRpcResponse(nest(65)))).toBeInstanceOf(XmlRpcTooDeepError);
    expect(errorOf(() => encodeXmlRpcResponse(nest(100_000)))).toBeInstanceOf(XmlRpcTooDeepError);
    expect(errorOf(() => encodeXmlRpcResponse(nest(3), { maxDepth: 2 }))).toBeInstanceOf(XmlRpcTooDeepError);
    expect(() => encodeXmlRpcResponse(nest(200), { maxDepth: 200 })).not.toThrow();
  });
});
