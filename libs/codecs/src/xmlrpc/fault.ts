/**
 * An XML-RPC fault: the peer's `<fault>` answer, with its faultCode and faultString. It is a valid response, not a
 * decode error, so it is not a CodecError. It extends Error so that a server method can `throw new XmlRpcFault(...)`
 * and the transport encode it with `encodeXmlRpcFault(fault)`.
 */
export class XmlRpcFault extends Error {
  override name = 'XmlRpcFault';

  constructor(
    readonly faultCode: number,
    readonly faultString: string,
  ) {
    super(`XML-RPC fault ${faultCode}: ${faultString}`);
  }
}
