/**
 * XML-RPC codec (MS-FSDPD 2.1, 3.7: status servers, node controllers and config servers). Pure: text or bytes in,
 * values out; the HTTP transport lives elsewhere.
 *
 *   import { encodeXmlRpcRequest, decodeXmlRpcResponse, XmlRpcDouble } from '@esp/codecs';
 *   const body = encodeXmlRpcRequest('GetStatus', ['webcluster', 3, new XmlRpcDouble(1), { verbose: true }]);
 *   const reply = decodeXmlRpcResponse(bytes);            // string or Uint8Array
 *   if (reply.kind === 'fault') throw reply.fault;          // XmlRpcFault { faultCode, faultString }
 *   use(reply.value);
 *
 *   // a server
 *   const { methodName, params } = decodeXmlRpcRequest(body);
 *   const out = encodeXmlRpcResponse(result);             // or encodeXmlRpcFault(1, 'no such method')
 *
 * Value model (see values.ts): int/i4 (int32, range checked) and double decode to number (XmlRpcDouble with
 * `wrapDoubles`); <i8> (an extension Python and Apache read) is accepted on decode within ±(2^53-1) but never written;
 * Python's `inf`/`-inf`/`nan` doubles are read, non-finite numbers are never written. A number is encoded as <int>
 * when it is an integer within int32, else as <double>; XmlRpcDouble forces <double>. Dates are
 * `YYYYMMDDTHH:MM:SS` in UTC (a naive time is read as UTC). Uint8Array is base64, arrays are arrays, plain objects
 * are structs. <nil/> is always decoded (to null); null is encoded only with `allowNil` (Python's allow_none).
 * Decoding refuses DOCTYPE and non-predefined entities, input over `maxBytes` (8 MiB) and nesting over `maxDepth`
 * (64). Failures are CodecError subclasses; a fault response is a value, not an error.
 */
export {
  XmlRpcParseError,
  XmlRpcForbiddenError,
  XmlRpcTooLargeError,
  XmlRpcTooDeepError,
  XmlRpcStructureError,
  XmlRpcValueError,
  XmlRpcTypeError,
} from './errors';
export { XmlRpcFault } from './fault';
export {
  XmlRpcDouble,
  XMLRPC_DEFAULT_MAX_DEPTH,
  XMLRPC_INT_MIN,
  XMLRPC_INT_MAX,
  type XmlRpcScalar,
  type XmlRpcValue,
  type XmlRpcStruct,
  type XmlRpcInput,
  type XmlRpcInputStruct,
} from './values';
export { encodeXmlRpcRequest, encodeXmlRpcResponse, encodeXmlRpcFault, type XmlRpcEncodeOptions } from './encode';
export {
  XmlRpcDecoder,
  decodeXmlRpcRequest,
  decodeXmlRpcResponse,
  decodeXmlRpcMessage,
  XMLRPC_DEFAULT_MAX_BYTES,
  type XmlRpcDecodeOptions,
  type XmlRpcDecoderOptions,
  type XmlRpcExpect,
  type XmlRpcRequest,
  type XmlRpcResponse,
  type XmlRpcValueResponse,
  type XmlRpcFaultResponse,
  type XmlRpcMessage,
} from './decoder';
