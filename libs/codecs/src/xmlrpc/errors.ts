import { CodecError } from '../errors';

/**
 * XML-RPC codec failures, one class per failure. All are CodecErrors with a stable `code`; decode errors carry the
 * byte offset in the input where the problem was found (for string input: the offset in its UTF-8 encoding).
 *
 * A fault sent by the peer is not among them: that is a valid message, decoded to an {@link XmlRpcFault}.
 */

/** The input is not well-formed XML, not valid UTF-8, or declares an encoding this codec does not read. */
export class XmlRpcParseError extends CodecError {
  override name = 'XmlRpcParseError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('XMLRPC_PARSE', message, options);
  }
}

/** The input uses a feature refused for safety: a DOCTYPE / DTD, or an entity other than the five predefined. */
export class XmlRpcForbiddenError extends CodecError {
  override name = 'XmlRpcForbiddenError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('XMLRPC_FORBIDDEN', message, options);
  }
}

/** The input is larger than `maxBytes`. */
export class XmlRpcTooLargeError extends CodecError {
  override name = 'XmlRpcTooLargeError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('XMLRPC_TOO_LARGE', message, options);
  }
}

/** Arrays and structs are nested deeper than `maxDepth` (decoding), or a value to encode is nested too deep. */
export class XmlRpcTooDeepError extends CodecError {
  override name = 'XmlRpcTooDeepError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('XMLRPC_TOO_DEEP', message, options);
  }
}

/**
 * Well-formed XML that is not an XML-RPC message of the expected kind: an unexpected, missing or repeated element,
 * text where only elements may be, a fault struct without faultCode/faultString.
 */
export class XmlRpcStructureError extends CodecError {
  override name = 'XmlRpcStructureError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('XMLRPC_STRUCTURE', message, options);
  }
}

/** A scalar whose text is not valid for its type: bad int, i4 out of range, bad boolean, double, dateTime, base64. */
export class XmlRpcValueError extends CodecError {
  override name = 'XmlRpcValueError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('XMLRPC_VALUE', message, options);
  }
}

/**
 * A type XML-RPC cannot carry: an unknown type element inside `<value>` when decoding; when encoding, a JS value
 * with no XML-RPC form (undefined, function, symbol, class instance, non-finite double, out-of-range bigint,
 * invalid Date, a string with characters XML 1.0 cannot hold, a cycle, null without `allowNil`).
 */
export class XmlRpcTypeError extends CodecError {
  override name = 'XmlRpcTypeError';
  constructor(message: string, options: { offset?: number; cause?: unknown } = {}) {
    super('XMLRPC_TYPE', message, options);
  }
}
