import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError } from '../errors';
import {
  XmlRpcDecoder,
  decodeXmlRpcMessage,
  decodeXmlRpcRequest,
  decodeXmlRpcResponse,
  encodeXmlRpcFault,
  encodeXmlRpcRequest,
  encodeXmlRpcResponse,
  type XmlRpcInput,
} from './index';
import { methodNameArb, mutatedDocumentArb, tokenSoupArb, xmlRpcInputArb, xmlString } from './testing/arbitraries';
import { normalize } from './testing/python-oracle';

const valueArb = xmlRpcInputArb({ withCR: true });
const encodeOptions = { allowNil: true };
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Runs `decode` and fails the property unless it returns or throws a CodecError. */
function onlyCodecErrors(decode: () => unknown): void {
  try {
    decode();
  } catch (e) {
    if (!(e instanceof CodecError)) throw new Error(`threw a non-CodecError: ${String(e)}`, { cause: e });
  }
}

/** Cuts `bytes` at the given points (taken modulo its length). */
function split(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    parts.push(bytes.subarray(from, p));
    from = p;
  }
  parts.push(bytes.subarray(from));
  return parts;
}

const documentArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(methodNameArb, fc.array(valueArb, { maxLength: 4 })).map(([m, ps]) => encodeXmlRpcRequest(m, ps, encodeOptions)),
  valueArb.map((v) => encodeXmlRpcResponse(v, encodeOptions)),
  fc.tuple(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), xmlString()).map(([c, s]) => encodeXmlRpcFault(c, s)),
);

describe('xmlrpc properties - round trip', () => {
  it('round trip - request: decode(encode(method, params)) gives the params back (doubles wrapped)', () => {
    fc.assert(
      fc.property(methodNameArb, fc.array(valueArb, { maxLength: 5 }), (method, params) => {
        const back = decodeXmlRpcRequest(encodeXmlRpcRequest(method, params, encodeOptions), { wrapDoubles: true });
        expect(back).toEqual({ kind: 'request', methodName: method, params: params.map(normalize) });
      }),
      { numRuns: 300 },
    );
  });

  it('round trip - response and fault', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        const back = decodeXmlRpcResponse(encodeXmlRpcResponse(value, encodeOptions), { wrapDoubles: true });
        expect(back).toEqual({ kind: 'value', value: normalize(value) });
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), xmlString({ withCR: true }), (code, text) => {
        const back = decodeXmlRpcResponse(encodeXmlRpcFault(code, text));
        expect(back.kind === 'fault' && [back.fault.faultCode, back.fault.faultString]).toEqual([code, text]);
      }),
      { numRuns: 200 },
    );
  });

  it('round trip - the same message whatever the chunking of its UTF-8 bytes', () => {
    fc.assert(
      fc.property(valueArb, fc.array(fc.nat(), { maxLength: 8 }), (value: XmlRpcInput, cuts) => {
        const bytes = utf8(encodeXmlRpcResponse(value, encodeOptions));
        const d = new XmlRpcDecoder({ expect: 'response', wrapDoubles: true });
        for (const part of split(bytes, cuts)) d.write(part);
        expect(d.end()).toEqual({ kind: 'value', value: normalize(value) });
      }),
      { numRuns: 200 },
    );
  });
});

describe('xmlrpc properties - hostile input only ever raises CodecError', () => {
  it('fuzz - mutated valid documents, as text and as bytes', () => {
    fc.assert(
      fc.property(mutatedDocumentArb(documentArb), (doc) => {
        onlyCodecErrors(() => decodeXmlRpcMessage(doc));
        onlyCodecErrors(() => decodeXmlRpcMessage(utf8(doc), { wrapDoubles: true }));
        onlyCodecErrors(() => decodeXmlRpcRequest(doc, { maxDepth: 1, maxBytes: 200 }));
      }),
      { numRuns: 1000 },
    );
  });

  it('fuzz - mutated documents fed in random chunks', () => {
    fc.assert(
      fc.property(mutatedDocumentArb(documentArb), fc.array(fc.nat(), { maxLength: 6 }), (doc, cuts) => {
        onlyCodecErrors(() => {
          const d = new XmlRpcDecoder({ expect: 'response' });
          for (const part of split(utf8(doc), cuts)) d.write(part);
          return d.end();
        });
      }),
      { numRuns: 500 },
    );
  });

  it('fuzz - markup soup, random unicode text and random bytes', () => {
    fc.assert(
      fc.property(tokenSoupArb, (soup) => {
        onlyCodecErrors(() => decodeXmlRpcMessage(soup));
        onlyCodecErrors(() => decodeXmlRpcMessage(`<methodResponse><params><param><value>${soup}</value></param></params></methodResponse>`));
        onlyCodecErrors(() => decodeXmlRpcMessage(`<methodCall><methodName>m</methodName>${soup}</methodCall>`));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => onlyCodecErrors(() => decodeXmlRpcMessage(text))),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        onlyCodecErrors(() => decodeXmlRpcMessage(bytes));
        onlyCodecErrors(() => decodeXmlRpcMessage(Uint8Array.from([...utf8('<?xml version="1.0"?><methodResponse>'), ...bytes])));
      }),
      { numRuns: 500 },
    );
  });

  it('fuzz - the encoders raise only CodecError on arbitrary JS values', () => {
    const anything = fc.anything({
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withSparseArray: true,
      withNullPrototype: true,
      withObjectString: true,
      withBoxedValues: true,
    });
    fc.assert(
      fc.property(anything, fc.boolean(), (value, allowNil) => {
        onlyCodecErrors(() => encodeXmlRpcResponse(value as XmlRpcInput, { allowNil }));
        onlyCodecErrors(() => encodeXmlRpcRequest('m', [value as XmlRpcInput], { allowNil }));
      }),
      { numRuns: 1000 },
    );
  });
});
