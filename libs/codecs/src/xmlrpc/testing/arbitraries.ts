/** fast-check arbitraries for XML-RPC values and hostile documents. */
import fc from 'fast-check';
import { XMLRPC_INT_MAX, XMLRPC_INT_MIN, XmlRpcDouble, type XmlRpcInput } from '../values';

/** One character XML 1.0 can carry, biased toward markup characters; CR only when asked. */
export function xmlChar(options: { withCR?: boolean } = {}): fc.Arbitrary<string> {
  const markup = ['\t', '\n', '<', '>', '&', '"', "'", ']', ' ', ...(options.withCR ? ['\r'] : [])];
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...markup) },
    { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCodePoint(c)) },
    { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }).map((c) => String.fromCodePoint(c)) },
    { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xfffd }).map((c) => String.fromCodePoint(c)) },
    { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
  );
}

export function xmlString(options: { withCR?: boolean; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc.string({ unit: xmlChar(options), maxLength: options.maxLength ?? 16 });
}

export const methodNameArb: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/'),
  minLength: 1,
  maxLength: 24,
});

/** Dates with whole seconds or not, years 1 to 9999 (Python's datetime range). */
export const dateArb: fc.Arbitrary<Date> = fc.date({
  min: new Date('0001-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});

const finiteDouble = fc.double({ noNaN: true, noDefaultInfinity: true });

/** Any value the encoder takes (null included: encode with `allowNil`). */
export function xmlRpcInputArb(options: { withCR?: boolean } = {}): fc.Arbitrary<XmlRpcInput> {
  const scalar: fc.Arbitrary<XmlRpcInput> = fc.oneof(
    fc.integer({ min: XMLRPC_INT_MIN, max: XMLRPC_INT_MAX }),
    finiteDouble,
    finiteDouble.map((n) => new XmlRpcDouble(n)),
    fc.boolean(),
    xmlString(options),
    dateArb,
    fc.uint8Array({ maxLength: 48 }),
    fc.constant(null),
  );
  const { value } = fc.letrec<{ value: XmlRpcInput; array: XmlRpcInput[]; struct: Record<string, XmlRpcInput> }>(
    (tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('struct')),
      array: fc.array(tie('value'), { maxLength: 5 }),
      struct: fc.dictionary(xmlString(options), tie('value'), { maxKeys: 5 }),
    }),
  );
  return value;
}

/** Pieces of markup and trouble to splice into documents. */
const TOKENS = [
  '<', '>', '/', '&', ';', '"', "'", '=', '&amp;', '&lt;', '&#65;', '&#x0;', '&#xD800;', '&lol;', '&#99999999;',
  '<!DOCTYPE a>', '<!DOCTYPE a [<!ENTITY x "y">]>', '<!ENTITY x SYSTEM "file:///etc/passwd">', '<![CDATA[', ']]>',
  '<!--', '-->', '<?pi x?>', '<?xml version="1.0"?>', '<value>', '</value>', '<int>', '</int>', '<i4>', '<i8>',
  '<double>', '<boolean>', '<string>', '<base64>', '<dateTime.iso8601>', '<nil/>', '<array>', '</array>', '<data>',
  '</data>', '<struct>', '</struct>', '<member>', '</member>', '<name>', '</name>', '<param>', '<params>', '<fault>',
  '<methodCall>', '<methodResponse>', '<methodName>', '<bogus>', '\u0000', '\uD800', '\uFEFF', 'é', '😀', '2147483648',
  '-', '1e999', 'nan', '====', '20241301T25:61:61', '\r\n',
];

type Mutation = { at: number; del: number; insert: string };

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  del: fc.nat({ max: 12 }),
  insert: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ unit: 'binary', maxLength: 4 }), fc.constant('')),
});

function mutate(doc: string, mutations: readonly Mutation[]): string {
  let out = doc;
  for (const m of mutations) {
    const at = out.length === 0 ? 0 : m.at % (out.length + 1);
    out = out.slice(0, at) + m.insert + out.slice(at + m.del);
  }
  return out;
}

/** A valid document with a few random splices. */
export function mutatedDocumentArb(docArb: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(docArb, fc.array(mutationArb, { minLength: 1, maxLength: 6 })).map(([doc, ms]) => mutate(doc, ms));
}

/** Random markup soup from the token list and arbitrary characters. */
export const tokenSoupArb: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.constantFrom(...TOKENS), fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 40 })
  .map((parts) => parts.join(''));
