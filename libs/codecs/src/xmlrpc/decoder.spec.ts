import { describe, expect, it } from 'vitest';
import { CodecError } from '../errors';
import {
  XmlRpcDecoder,
  XmlRpcDouble,
  XmlRpcFault,
  XmlRpcParseError,
  XmlRpcStructureError,
  XmlRpcTypeError,
  XmlRpcValueError,
  decodeXmlRpcMessage,
  decodeXmlRpcRequest,
  decodeXmlRpcResponse,
  encodeXmlRpcRequest,
  type XmlRpcValue,
} from './index';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A response document around one `<value>` body. */
const resp = (value: string): string => `<methodResponse><params><param>${value}</param></params></methodResponse>`;

function valueOf(valueXml: string): XmlRpcValue {
  const r = decodeXmlRpcResponse(resp(valueXml));
  if (r.kind !== 'value') throw new Error('expected a value');
  return r.value;
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

describe('xmlrpc decode - values', () => {
  it('value - bare text without a type is a string, kept exactly', () => {
    expect(valueOf('<value>  hello\n world </value>')).toBe('  hello\n world ');
    expect(valueOf('<value></value>')).toBe('');
    expect(valueOf('<value/>')).toBe('');
    expect(valueOf('<value><string/></value>')).toBe('');
    expect(valueOf('<value><string> a </string></value>')).toBe(' a ');
  });

  it('value - whitespace around a typed value is ignored (pretty-printed documents)', () => {
    const xml = `<?xml version="1.0"?>
      <methodResponse>
        <params>
          <param>
            <value>
              <struct>
                <member>
                  <name>n</name>
                  <value>
                    <i4> 7 </i4>
                  </value>
                </member>
              </struct>
            </value>
          </param>
        </params>
      </methodResponse>`;
    expect(decodeXmlRpcResponse(xml)).toEqual({ kind: 'value', value: { n: 7 } });
  });

  it('int - int, i4 and i8, with sign, leading zeros and surrounding whitespace', () => {
    expect(valueOf('<value><int>42</int></value>')).toBe(42);
    expect(valueOf('<value><i4>-2147483648</i4></value>')).toBe(-2147483648);
    expect(valueOf('<value><int>+0007</int></value>')).toBe(7);
    expect(valueOf('<value><int>-0</int></value>')).toBe(0);
    expect(Object.is(valueOf('<value><int>-0</int></value>'), 0)).toBe(true);
    expect(valueOf('<value><i8>9007199254740991</i8></value>')).toBe(9007199254740991);
    expect(valueOf('<value><i8>-4294967296</i8></value>')).toBe(-4294967296);
  });

  it('double - decimal forms, exponents and Python inf/nan; number by default, XmlRpcDouble with wrapDoubles', () => {
    expect(valueOf('<value><double>1</double></value>')).toBe(1);
    expect(valueOf('<value><double>-1.5e3</double></value>')).toBe(-1500);
    expect(valueOf('<value><double>.5</double></value>')).toBe(0.5);
    expect(valueOf('<value><double>5.</double></value>')).toBe(5);
    expect(valueOf('<value><double>inf</double></value>')).toBe(Infinity);
    expect(valueOf('<value><double>-inf</double></value>')).toBe(-Infinity);
    expect(valueOf('<value><double>nan</double></value>')).toBeNaN();
    expect(decodeXmlRpcResponse(resp('<value><double>2.0</double></value>'), { wrapDoubles: true })).toEqual({
      kind: 'value',
      value: new XmlRpcDouble(2),
    });
  });

  it('boolean - 0 and 1', () => {
    expect(valueOf('<value><boolean>1</boolean></value>')).toBe(true);
    expect(valueOf('<value><boolean> 0 </boolean></value>')).toBe(false);
  });

  it('dateTime - Python form, dashed, compact time, fraction, Z and offsets; a naive time is UTC', () => {
    const d = (s: string): XmlRpcValue => valueOf(`<value><dateTime.iso8601>${s}</dateTime.iso8601></value>`);
    expect(d('19980717T14:08:55')).toEqual(new Date('1998-07-17T14:08:55Z'));
    expect(d('1998-07-17T14:08:55')).toEqual(new Date('1998-07-17T14:08:55Z'));
    expect(d('19980717T140855')).toEqual(new Date('1998-07-17T14:08:55Z'));
    expect(d('19980717T14:08:55.25Z')).toEqual(new Date('1998-07-17T14:08:55.250Z'));
    expect(d('19980717T14:08:55+02:00')).toEqual(new Date('1998-07-17T12:08:55Z'));
    expect(d('19980717T14:08:55-0130')).toEqual(new Date('1998-07-17T15:38:55Z'));
    expect(d('00010101T00:00:00')).toEqual(new Date('0001-01-01T00:00:00Z'));
    expect(d('20240229T23:59:59')).toEqual(new Date('2024-02-29T23:59:59Z'));
  });

  it('base64 - with line breaks, with and without padding, empty', () => {
    expect(valueOf('<value><base64>AQID\nBA==\n</base64></value>')).toEqual(new Uint8Array([1, 2, 3, 4]));
    expect(valueOf('<value><base64>AQIDBA</base64></value>')).toEqual(new Uint8Array([1, 2, 3, 4]));
    expect(valueOf('<value><base64></base64></value>')).toEqual(new Uint8Array([]));
    expect(valueOf('<value><base64>+/+/</base64></value>')).toEqual(new Uint8Array([0xfb, 0xff, 0xbf]));
  });

  it('nil - <nil/> decodes to null', () => {
    expect(valueOf('<value><nil/></value>')).toBeNull();
    expect(valueOf('<value><nil></nil></value>')).toBeNull();
  });

  it('array and struct - empty, nested, a struct member may give its value before its name, last duplicate wins', () => {
    expect(valueOf('<value><array><data/></array></value>')).toEqual([]);
    expect(valueOf('<value><struct/></value>')).toEqual({});
    expect(
      valueOf(
        '<value><array><data><value>a</value><value><array><data><value><int>1</int></value></data></array></value></data></array></value>',
      ),
    ).toEqual(['a', [1]]);
    expect(
      valueOf(
        '<value><struct><member><value><int>1</int></value><name>a</name></member>' +
          '<member><name>a</name><value><int>2</int></value></member><member><name/><value/></member></struct></value>',
      ),
    ).toEqual({ a: 2, '': '' });
  });

  it('text - CDATA, comments, processing instructions, predefined entities and character references', () => {
    expect(valueOf('<value><string><![CDATA[<not> & markup]]> &lt;&gt;&amp;&quot;&apos; &#65;&#x1F600;</string></value>')).toBe(
      `<not> & markup <>&"' A😀`,
    );
    expect(valueOf('<!-- c --><value><?pi body?><string>a<!-- c -->b</string></value>')).toBe('ab');
  });

  it('attributes are ignored', () => {
    const xml = '<methodResponse xmlns:ex="http://ws.apache.org/xmlrpc/namespaces/extensions"><params><param><value a="1"><int>5</int></value></param></params></methodResponse>';
    expect(decodeXmlRpcResponse(xml)).toEqual({ kind: 'value', value: 5 });
  });
});

describe('xmlrpc decode - messages', () => {
  it('request - method name and params; <params> may be left out; method name whitespace trimmed', () => {
    expect(decodeXmlRpcRequest('<methodCall><methodName>a.b</methodName><params><param><value><int>1</int></value></param><param><value>x</value></param></params></methodCall>')).toEqual({
      kind: 'request',
      methodName: 'a.b',
      params: [1, 'x'],
    });
    expect(decodeXmlRpcRequest('<methodCall><methodName>\n  ping\n</methodName></methodCall>')).toEqual({
      kind: 'request',
      methodName: 'ping',
      params: [],
    });
  });

  it('response - a fault is returned as an XmlRpcFault, not thrown, and is not a CodecError', () => {
    const r = decodeXmlRpcResponse(
      '<methodResponse><fault><value><struct><member><name>faultCode</name><value><int>4</int></value></member>' +
        '<member><name>faultString</name><value><string>Too many parameters.</string></value></member>' +
        '<member><name>extra</name><value>ignored</value></member></struct></value></fault></methodResponse>',
    );
    expect(r.kind).toBe('fault');
    if (r.kind !== 'fault') return;
    expect(r.fault).toBeInstanceOf(XmlRpcFault);
    expect(r.fault).toBeInstanceOf(Error);
    expect(r.fault).not.toBeInstanceOf(CodecError);
    expect(r.fault.faultCode).toBe(4);
    expect(r.fault.faultString).toBe('Too many parameters.');
    expect(r.fault.message).toBe('XML-RPC fault 4: Too many parameters.');
  });

  it('message - decodeXmlRpcMessage takes either root; the specific decoders refuse the other one', () => {
    const call = encodeXmlRpcRequest('m', [1]);
    expect(decodeXmlRpcMessage(call)).toEqual({ kind: 'request', methodName: 'm', params: [1] });
    expect(decodeXmlRpcMessage(resp('<value>v</value>'))).toEqual({ kind: 'value', value: 'v' });
    expect(errorOf(() => decodeXmlRpcResponse(call))).toBeInstanceOf(XmlRpcStructureError);
    expect(errorOf(() => decodeXmlRpcRequest(resp('<value/>'))).message).toMatch(/root element <methodResponse> is not <methodCall>/);
  });
});

describe('xmlrpc decode - bytes and chunks', () => {
  const doc = encodeXmlRpcRequest('Ünïcødé.method', ['日本語 😀 é', { 'ключ': [1, 2.5, new Uint8Array([9])] }]);
  const want = decodeXmlRpcRequest(doc);

  it('chunks - one byte at a time gives the same request as the whole string', () => {
    const d = new XmlRpcDecoder({ expect: 'request' });
    for (const b of utf8(doc)) d.write(Uint8Array.of(b));
    expect(d.end()).toEqual(want);
  });

  it('chunks - split buffers at every position, and one UTF-16 unit at a time, give the same request', () => {
    const bytes = utf8(doc);
    for (let cut = 0; cut <= bytes.length; cut += 7) {
      const d = new XmlRpcDecoder({ expect: 'request' });
      d.write(bytes.subarray(0, cut));
      d.write(bytes.subarray(cut));
      expect(d.end()).toEqual(want);
    }
    const d = new XmlRpcDecoder();
    for (const c of doc.split('')) d.write(c);
    expect(d.end()).toEqual(want);
  });

  it('bytes - a UTF-8 BOM is skipped, in bytes and in a string', () => {
    expect(decodeXmlRpcRequest(Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8(doc)]))).toEqual(want);
    expect(decodeXmlRpcRequest(`\uFEFF${doc}`)).toEqual(want);
  });

  it('bytes - ISO-8859-1 declared in the XML declaration is honoured, even split in tiny chunks', () => {
    const body = Uint8Array.from(
      Buffer.from(`<?xml version='1.0' encoding='ISO-8859-1'?>${resp('<value>caf\u00e9 \u00ff</value>')}`, 'latin1'),
    );
    expect(decodeXmlRpcResponse(body)).toEqual({ kind: 'value', value: 'café ÿ' });
    const d = new XmlRpcDecoder({ expect: 'response' });
    for (let i = 0; i < body.length; i += 3) d.write(body.subarray(i, i + 3));
    expect(d.end()).toEqual({ kind: 'value', value: 'café ÿ' });
  });

  it('bytes - invalid UTF-8, UTF-16 and undeclared-for encodings are parse errors', () => {
    const bad = Uint8Array.from([...utf8('<methodResponse><params><param><value>'), 0xc3, 0x28, ...utf8('</value></param></params></methodResponse>')]);
    expect(errorOf(() => decodeXmlRpcResponse(bad))).toBeInstanceOf(XmlRpcParseError);
    expect(errorOf(() => decodeXmlRpcResponse(Uint8Array.from([0xff, 0xfe, 0x3c, 0])))).toBeInstanceOf(XmlRpcParseError);
    const sjis = errorOf(() => decodeXmlRpcResponse(utf8(`<?xml version="1.0" encoding="Shift_JIS"?>${resp('<value/>')}`)));
    expect(sjis).toBeInstanceOf(XmlRpcParseError);
    expect(sjis.message).toMatch(/unsupported encoding "Shift_JIS"/);
    const truncated = utf8(resp('<value>é</value>')).subarray(0, 40);
    expect(errorOf(() => decodeXmlRpcResponse(truncated))).toBeInstanceOf(XmlRpcParseError);
  });

  it('decoder - misuse is reported as a parse error, and a failed decoder keeps failing', () => {
    const d = new XmlRpcDecoder();
    d.write('<methodCall>');
    expect(errorOf(() => d.write(utf8('x')))).toBeInstanceOf(XmlRpcParseError);
    expect(errorOf(() => d.end()).message).toMatch(/cannot mix/);
    const e = new XmlRpcDecoder();
    e.write(encodeXmlRpcRequest('m'));
    e.end();
    expect(errorOf(() => e.write('x')).message).toMatch(/write after end/);
  });
});

describe('xmlrpc decode - errors', () => {
  it('malformed XML - a parse error with the saxes reason and a byte offset', () => {
    for (const xml of [
      '',
      'not xml',
      '<methodResponse><params>',
      '<methodResponse></methodCall>',
      '<methodCall><methodName>a</methodName></methodCall><methodCall/>',
      '<methodResponse><params><param><value>a < b</value></param></params></methodResponse>',
      '<methodResponse><params><param><value>&#0;</value></param></params></methodResponse>',
      '<methodResponse><params><param><value>\u0001</value></param></params></methodResponse>',
      '<methodResponse><params><param><value>&amp</value></param></params></methodResponse>',
    ]) {
      const e = errorOf(() => decodeXmlRpcMessage(xml));
      expect(e, xml).toBeInstanceOf(XmlRpcParseError);
      expect(e.code).toBe('XMLRPC_PARSE');
      expect(e.message).toMatch(/^malformed XML: /);
      expect(e.offset).toBeGreaterThanOrEqual(0);
      expect(e.offset).toBeLessThanOrEqual(utf8(xml).length);
    }
  });

  it('offsets - count UTF-8 bytes, not characters', () => {
    const xml = resp('<value><array><data><value>日本語日本語</value><value><int>x</int></value></data></array></value>');
    const e = errorOf(() => decodeXmlRpcResponse(xml));
    const charIndex = xml.indexOf('x</int>');
    expect(e.offset).toBeGreaterThan(charIndex + 12); // 6 three-byte characters before it
    expect(e.offset).toBeLessThanOrEqual(utf8(xml).length);
  });

  it('unknown types - an unknown element inside <value> is a type error', () => {
    for (const t of ['<float>1</float>', '<ex:nil/>', '<integer>1</integer>', '<dateTime>20240101T00:00:00</dateTime>']) {
      const e = errorOf(() => valueOf(`<value>${t}</value>`));
      expect(e, t).toBeInstanceOf(XmlRpcTypeError);
      expect(e.message).toMatch(/unknown XML-RPC type </);
    }
  });

  it('bad int - non-numeric, fractional, empty, i4 out of 32-bit range, i8 beyond safe integers', () => {
    for (const [tag, text] of [
      ['int', '12a'], ['int', '1.0'], ['int', ''], ['int', '1 2'], ['int', '0x10'], ['int', '1_000'],
      ['i4', '2147483648'], ['int', '-2147483649'], ['int', '99999999999999999999'], ['i8', '9007199254740992'],
    ] as const) {
      const e = errorOf(() => valueOf(`<value><${tag}>${text}</${tag}></value>`));
      expect(e, `${tag} ${text}`).toBeInstanceOf(XmlRpcValueError);
      expect(e.code).toBe('XMLRPC_VALUE');
      expect(e.message).toMatch(new RegExp(`<${tag}>`));
    }
  });

  it('bad boolean, double, base64 and dateTime - value errors that name the type', () => {
    const cases: [string, string][] = [
      ['boolean', '2'], ['boolean', 'true'], ['boolean', ''],
      ['double', '1.2.3'], ['double', 'abc'], ['double', ''], ['double', '1e'], ['double', '0x1p3'],
      ['base64', 'abc$'], ['base64', 'a'], ['base64', 'ab=c'], ['base64', 'A==='], ['base64', 'AB='],
      ['dateTime.iso8601', '2024-13-01T00:00:00'], ['dateTime.iso8601', '20240230T00:00:00'],
      ['dateTime.iso8601', '20230229T00:00:00'], ['dateTime.iso8601', '20240101T24:00:00'],
      ['dateTime.iso8601', '20240101T00:60:00'], ['dateTime.iso8601', 'yesterday'], ['dateTime.iso8601', '20240101'],
      ['dateTime.iso8601', '2024-0101T00:00:00'], ['dateTime.iso8601', '20240101T00:00:00+25:00'],
    ];
    for (const [tag, text] of cases) {
      const e = errorOf(() => valueOf(`<value><${tag}>${text}</${tag}></value>`));
      expect(e, `${tag} ${text}`).toBeInstanceOf(XmlRpcValueError);
      expect(e.message).toContain(`<${tag}>`);
    }
  });

  it('structure - misplaced, missing and repeated elements, stray text', () => {
    const cases: [string, RegExp][] = [
      ['<methodResponse><params></params></methodResponse>', /exactly one <param>, got 0/],
      ['<methodResponse><params><param><value/></param><param><value/></param></params></methodResponse>', /got 2/],
      ['<methodResponse></methodResponse>', /got neither/],
      ['<methodResponse><params><param><value/></param></params><fault/></methodResponse>', /takes a single <params>/],
      ['<methodCall><params/></methodCall>', /<methodName> must come before <params>/],
      ['<methodCall></methodCall>', /needs a <methodName>/],
      ['<methodCall><methodName> </methodName></methodCall>', /<methodName> is empty/],
      ['<methodCall><methodName>a</methodName><methodName>b</methodName></methodCall>', /single <methodName>/],
      [resp('<value><int>1</int><int>2</int></value>'), /<value> takes a single <int>/],
      [resp('<value>x<int>1</int></value>'), /text before <int>/],
      [resp('<value><int>1</int>x</value>'), /text is not allowed inside <value> next to a typed value/],
      [resp('<value><struct>x</struct></value>'), /text is not allowed inside <struct>/],
      [resp('<value><struct><member><name>a</name></member></struct></value>'), /<member> needs a <name> and a <value>/],
      [resp('<value><struct><member><name>a</name><value/><value/></member></struct></value>'), /<member> takes a single <value>/],
      [resp('<value><struct><member><value/><name>a</name><name>b</name></member></struct></value>'), /<member> takes a single <name>/],
      ['<methodCall><methodName>a</methodName><params/><params/></methodCall>', /<methodCall> takes a single <params>/],
      [resp('<value><array><data/><data/></array></value>'), /<array> takes a single <data>/],
      [resp('<value><struct><value/></struct></value>'), /<value> is not allowed inside <struct>/],
      [resp('<value><array><value/></array></value>'), /<value> is not allowed inside <array>/],
      [resp('<value><array></array></value>'), /<array> needs a <data>/],
      [resp('<value><int><int>1</int></int></value>'), /<int> is not allowed inside <int>/],
      [resp('<value><nil>x</nil></value>'), /text is not allowed inside <nil>/],
      ['<methodResponse><params><param></param></params></methodResponse>', /<param> needs a <value>/],
      ['<methodResponse><params><foo/></params></methodResponse>', /<foo> is not allowed inside <params>/],
      ['<methodResponse><fault><value><int>1</int></value></fault></methodResponse>', /must be a struct/],
      [
        '<methodResponse><fault><value><struct><member><name>faultCode</name><value>4</value></member><member><name>faultString</name><value>x</value></member></struct></value></fault></methodResponse>',
        /int faultCode/,
      ],
      [
        '<methodResponse><fault><value><struct><member><name>faultCode</name><value><int>4</int></value></member></struct></value></fault></methodResponse>',
        /string faultString/,
      ],
      ['<foo/>', /root element <foo>/],
    ];
    for (const [xml, message] of cases) {
      const e = errorOf(() => decodeXmlRpcMessage(xml));
      expect(e, xml).toBeInstanceOf(XmlRpcStructureError);
      expect(e.code).toBe('XMLRPC_STRUCTURE');
      expect(e.message, xml).toMatch(message);
      expect(e.offset).toBeGreaterThan(0);
    }
  });
});
