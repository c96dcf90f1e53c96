/**
 * The XML-RPC value model.
 *
 *   XML-RPC              decoded as                      encoded from
 *   <int>, <i4>, <i8>    number                          number that is an integer within int32; bigint within int32
 *   <double>             number (XmlRpcDouble with       any other finite number; XmlRpcDouble forces <double>
 *                        `wrapDoubles`)
 *   <boolean>            boolean                         boolean
 *   <string>, bare text  string                          string
 *   <dateTime.iso8601>   Date                            Date (UTC fields, whole seconds, `YYYYMMDDTHH:MM:SS`)
 *   <base64>             Uint8Array                      Uint8Array (and so Buffer)
 *   <array>              XmlRpcValue[]                   arrays
 *   <struct>             plain object (XmlRpcStruct)     plain objects (prototype Object.prototype or null)
 *   <nil/>               null                            null, only with `allowNil` (as Python's allow_none)
 */
export type XmlRpcScalar = number | boolean | string | Date | Uint8Array | XmlRpcDouble | null;

/** A decoded XML-RPC value. */
export type XmlRpcValue = XmlRpcScalar | XmlRpcValue[] | XmlRpcStruct;

/** A decoded `<struct>`: a plain object whose own properties are the members (a `__proto__` member is an own property). */
export interface XmlRpcStruct {
  [member: string]: XmlRpcValue;
}

/**
 * What the encoders accept: the value model, read-only, plus bigint (within int32). Struct members whose value is
 * `undefined` are left out, as JSON.stringify does; `undefined` anywhere else is refused.
 */
export type XmlRpcInput = XmlRpcScalar | bigint | readonly XmlRpcInput[] | XmlRpcInputStruct;

/** A struct to encode. */
export interface XmlRpcInputStruct {
  readonly [member: string]: XmlRpcInput | undefined;
}

/**
 * Forces `<double>` on the wire for a number that would otherwise go out as `<int>` (an integer within int32):
 * `encodeXmlRpcResponse(new XmlRpcDouble(2))` sends `<double>2.0</double>`. Decoding with `wrapDoubles: true`
 * returns `<double>` values in this wrapper, so that int and double survive a round trip.
 */
export class XmlRpcDouble {
  constructor(readonly value: number) {}

  valueOf(): number {
    return this.value;
  }

  toString(): string {
    return String(this.value);
  }
}

/** Default limit on nested arrays/structs, for decoding and encoding. */
export const XMLRPC_DEFAULT_MAX_DEPTH = 64;

export const XMLRPC_INT_MIN = -0x8000_0000;
export const XMLRPC_INT_MAX = 0x7fff_ffff;

/** True for a plain object (prototype Object.prototype or null), the only objects encoded as `<struct>`. */
export function isXmlRpcStruct(value: unknown): value is XmlRpcInputStruct {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
