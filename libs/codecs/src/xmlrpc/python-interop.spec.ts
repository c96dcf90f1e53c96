import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  XmlRpcDouble,
  decodeXmlRpcRequest,
  decodeXmlRpcResponse,
  encodeXmlRpcFault,
  encodeXmlRpcRequest,
  encodeXmlRpcResponse,
  type XmlRpcInput,
} from './index';
import { methodNameArb, xmlRpcInputArb } from './testing/arbitraries';
import {
  fromTagged,
  normalize,
  pythonDumps,
  pythonLoads,
  toTagged,
  type PyDumpCase,
  type PyDumped,
} from './testing/python-oracle';

const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);

/** Every type, edge values, nesting, unicode and markup characters. No CR: Python writes it raw and XML turns it into LF. */
const VALUES: readonly XmlRpcInput[] = [
  0, 1, -1, 42, 2147483647, -2147483648,
  new XmlRpcDouble(0), new XmlRpcDouble(-0), new XmlRpcDouble(7), 1.5, -2.25, 0.1, 1e300, -1e-300, 5e-324,
  2147483648, -2147483649, 1e21, 123456789.125, Number.MAX_SAFE_INTEGER,
  true, false,
  '', 'plain', '  spaced  ', 'line1\nline2\ttab', `<tag attr="x"> & 'apos' ]]> &amp; &#65;`,
  'ünïcødé ✓ 日本語 𝄞 😀', 'a\u0085b\u2028c\u00a0d', '\uFFFD\uE000',
  new Date(Date.UTC(2024, 1, 29, 23, 59, 59)), new Date(Date.UTC(1970, 0, 1)), new Date(Date.UTC(1999, 11, 31, 12, 0, 0)),
  new Date('0001-01-01T00:00:00Z'), new Date('9999-12-31T23:59:59Z'),
  new Uint8Array([]), new Uint8Array([0, 255, 1, 254]), allBytes,
  null,
  [], [1, 'two', [3, [new XmlRpcDouble(4.5), [[]]]], null], {},
  {
    nested: { deeper: { list: [{ k: 'v' }, { k: 'w', n: 2 }] } },
    'weird key <&>"\'': 1,
    ключ: 'значение',
    '': 'empty key',
    bin: new Uint8Array([1, 2, 3]),
    when: new Date(Date.UTC(2010, 5, 15, 8, 30, 0)),
    flag: false,
  },
  // MS-FSDPD 3.7.4.2 ModuleStatus-like struct
  { Started: '2024-01-01 10:00:00', Idletime: 12, Uptime: 3600, CurrentWork: [], Verbosity: 'info' },
];

const FAULTS: readonly [number, string][] = [
  [1, 'boom'],
  [-32601, 'method "x" not found <&> ]]>'],
  [0, ''],
  [2147483647, 'ünïcødé 😀'],
  [-2147483648, 'line1\nline2'],
];

const METHODS = ['GetStatus', 'system.listMethods', 'status/Reset_Container:1'];

describe('xmlrpc - Python xmlrpc.client.dumps bodies decode here', () => {
  const cases: PyDumpCase[] = [
    { type: 'request', method: METHODS[0]!, params: VALUES.map((v) => toTagged(v)) },
    { type: 'request', method: METHODS[1]!, params: [] },
    ...VALUES.map((v, i): PyDumpCase => ({ type: 'request', method: METHODS[i % METHODS.length]!, params: [toTagged(v)] })),
    ...VALUES.map((v): PyDumpCase => ({ type: 'response', value: toTagged(v) })),
    { type: 'response', value: toTagged(VALUES as XmlRpcInput[]) },
    ...FAULTS.map(([code, string]): PyDumpCase => ({ type: 'fault', code, string })),
    { type: 'response', value: ['str', 'café naïve ÿ'], encoding: 'iso-8859-1' },
    { type: 'request', method: 'Ping', params: [['str', 'ascii only']], encoding: 'us-ascii' },
  ];
  let dumped: PyDumped[] = [];
  beforeAll(() => {
    dumped = pythonDumps(cases); // one python3 process for all of them
  });

  it('python dumps - every request, response and fault decodes to the expected value, from text and from bytes', () => {
    expect(dumped).toHaveLength(cases.length);
    cases.forEach((c, i) => {
      const { xml, bytes } = dumped[i]!;
      const raw = Uint8Array.from(Buffer.from(bytes, 'base64'));
      for (const input of c.encoding === undefined ? [xml, raw] : [raw]) {
        if (c.type === 'request') {
          expect(decodeXmlRpcRequest(input, { wrapDoubles: true }), xml).toEqual({
            kind: 'request',
            methodName: c.method,
            params: c.params.map(fromTagged),
          });
        } else if (c.type === 'response') {
          expect(decodeXmlRpcResponse(input, { wrapDoubles: true }), xml).toEqual({ kind: 'value', value: fromTagged(c.value) });
        } else {
          const r = decodeXmlRpcResponse(input);
          expect(r.kind, xml).toBe('fault');
          if (r.kind === 'fault') expect([r.fault.faultCode, r.fault.faultString]).toEqual([c.code, c.string]);
        }
      }
    });
  });

  it('python dumps - doubles decode to plain numbers by default, ints stay ints', () => {
    const [body] = pythonDumps([{ type: 'response', value: ['array', [['int', 3], ['double', '3.0'], ['double', '0.5']]] }]);
    const r = decodeXmlRpcResponse(body!.xml);
    expect(r).toEqual({ kind: 'value', value: [3, 3, 0.5] });
  });

  it('python dumps - long base64 is split in lines by Python and still decodes', () => {
    const xml = dumped[cases.findIndex((c) => c.type === 'response' && c.value[0] === 'bin' && c.value[1].length > 300)]!.xml;
    expect(xml).toMatch(/<base64>\n[A-Za-z0-9+/=]+\n[A-Za-z0-9+/=]+/);
    expect(decodeXmlRpcResponse(xml)).toEqual({ kind: 'value', value: allBytes });
  });
});

describe('xmlrpc - our bodies load in Python xmlrpc.client.loads', () => {
  it('python loads - every request, response and fault loads to the expected value', () => {
    const bodies: string[] = [];
    const expected: unknown[] = [];
    const add = (xml: string, want: unknown): void => {
      bodies.push(xml);
      expected.push(want);
    };
    add(encodeXmlRpcRequest(METHODS[0]!, VALUES, { allowNil: true }), { method: METHODS[0], params: VALUES.map(normalize) });
    add(encodeXmlRpcRequest(METHODS[1]!, []), { method: METHODS[1], params: [] });
    VALUES.forEach((v, i) => {
      const method = METHODS[i % METHODS.length]!;
      add(encodeXmlRpcRequest(method, [v], { allowNil: true }), { method, params: [normalize(v)] });
      add(encodeXmlRpcResponse(v, { allowNil: true }), { method: null, params: [normalize(v)] });
    });
    // CR survives our encoding (as &#13;), unlike Python's own
    for (const s of ['a\rb', 'crlf\r\nend', '\r']) add(encodeXmlRpcResponse(s), { method: null, params: [s] });
    for (const [code, string] of FAULTS) add(encodeXmlRpcFault(code, string), { fault: [code, string] });

    const loaded = pythonLoads(bodies);
    loaded.forEach((got, i) => {
      const decoded = 'params' in got ? { method: got.method, params: got.params.map(fromTagged) } : got;
      expect(decoded, bodies[i]).toEqual(expected[i]);
    });
  });
});

describe('xmlrpc - random values cross both ways', () => {
  it('python interop - 300 random values: python dumps -> decode and encode -> python loads agree', () => {
    const values = fc.sample(xmlRpcInputArb(), { numRuns: 300, seed: 20240229 });
    const methods = fc.sample(methodNameArb, { numRuns: 300, seed: 7 });

    const dumped = pythonDumps(values.map((v, i) => ({ type: 'request', method: methods[i]!, params: [toTagged(v)] })));
    dumped.forEach(({ xml }, i) => {
      expect(decodeXmlRpcRequest(xml, { wrapDoubles: true }), xml).toEqual({
        kind: 'request',
        methodName: methods[i],
        params: [normalize(values[i]!)],
      });
    });

    const loaded = pythonLoads(values.map((v, i) => encodeXmlRpcRequest(methods[i]!, [v], { allowNil: true })));
    loaded.forEach((got, i) => {
      expect('params' in got ? { method: got.method, params: got.params.map(fromTagged) } : got).toEqual({
        method: methods[i],
        params: [normalize(values[i]!)],
      });
    });
  });
});
