/**
 * Cheetah entities as one msgpackr extension. An entity is written in msgpackr's "tag" form: the 3 bytes
 * `d4 43 00` (fixext 1, type CHEETAH_EXT_TYPE) followed by the MessagePack array
 * `[typeId, checksum, ...fields]`, fields in `cheetah.fields` order, entity-typed fields and collection elements
 * being such extensions again. Decoding looks the class up by (checksum, type id) and builds it through its
 * constructor, so a decoded entity passed the same checks as a constructed one.
 *
 * msgpackr keeps extensions in one registry for the whole process: once this module is loaded, every Packr and
 * Unpackr of the process writes and reads Cheetah entities.
 */
import { Packr, type Unpackr, addExtension } from 'msgpackr';
import { CodecError } from '../errors';
import { CheetahEncodeError, CheetahMalformedError } from './cheetah-errors';
import { type CheetahDescriptor, type CheetahFieldWriter, CheetahEntity } from './entity';
import { decodeCheetahWire } from './registry';

/** The msgpackr extension type number of Cheetah entities ('C'). */
export const CHEETAH_EXT_TYPE = 0x43;

/** msgpackr's allocator for an extension's own bytes: call it once, before packing anything else. */
type Allocate = (size: number) => { target: Uint8Array; targetView: DataView; position: number };

function packEntity(value: CheetahEntity, allocate: Allocate, pack: CheetahFieldWriter): void {
  const d = (value.constructor as unknown as { readonly cheetah?: CheetahDescriptor }).cheetah;
  if (d === undefined) {
    allocate(0); // hand msgpackr its buffer back before failing
    throw new CheetahEncodeError(`${value.constructor.name} is not an entity of the Cheetah tables`);
  }
  const length = d.fields.length + 2;
  const typeId = d.typeId;
  const checksum = d.checksum;
  const out = allocate((length < 16 ? 4 : 6) + (typeId < 0x40 ? 1 : 2) + 5);
  const target = out.target;
  let p = out.position;
  target[p++] = 0xd4; // fixext 1: msgpackr's tag form, the value follows
  target[p++] = CHEETAH_EXT_TYPE;
  target[p++] = 0;
  if (length < 16) {
    target[p++] = 0x90 | length;
  } else {
    target[p++] = 0xdc;
    target[p++] = length >> 8;
    target[p++] = length & 0xff;
  }
  // below 0x40 so that an Unpackr using records does not take it for a record id
  if (typeId < 0x40) {
    target[p++] = typeId;
  } else {
    target[p++] = 0xcc;
    target[p++] = typeId;
  }
  if (checksum < 0) {
    target[p++] = 0xd2;
    out.targetView.setInt32(p, checksum);
  } else {
    target[p++] = 0xce;
    out.targetView.setUint32(p, checksum);
  }
  value.encodeCheetahFields(pack);
}

function readEntity(data: unknown): CheetahEntity {
  if (!Array.isArray(data) || data.length < 2) {
    throw new CheetahMalformedError('a Cheetah extension must hold an array [typeId, checksum, ...fields]');
  }
  return decodeCheetahWire(data);
}

/** Any other layout of the extension (ext 8/16/32, fixext 2..16 with our type): not written by this codec. */
const cheetahExtension = Object.assign(
  (_bytes: Uint8Array): never => {
    throw new CheetahMalformedError('a Cheetah extension must use the fixext 1 tag form: d4 43 00, then the value');
  },
  {
    Class: CheetahEntity,
    type: CHEETAH_EXT_TYPE,
    pack: packEntity,
    read: readEntity,
  },
);

let registered = false;

/**
 * Makes msgpackr write and read Cheetah entities. msgpackr's extension registry is process-wide, so this covers
 * every Packr/Unpackr (the argument is returned for chaining); it is done once, when this module loads.
 */
export function registerCheetahExtension(): void;
export function registerCheetahExtension<T extends Unpackr>(packr: T): T;
export function registerCheetahExtension<T extends Unpackr>(packr?: T): T | undefined {
  if (!registered) {
    addExtension(cheetahExtension as unknown as Parameters<typeof addExtension>[0]);
    registered = true;
  }
  return packr;
}

registerCheetahExtension();

/**
 * The codec's own Packr: plain MessagePack maps and arrays (no records, no structured clone), byte arrays copied
 * out of the input.
 */
export const cheetahPackr = new Packr({
  useRecords: false,
  structuredClone: false,
  moreTypes: false,
  mapsAsObjects: true,
  copyBuffers: true,
});

/** Encodes any MessagePack value that may hold Cheetah entities anywhere inside. Throws CodecError subclasses. */
export function encodeCheetah(value: unknown): Uint8Array {
  try {
    return cheetahPackr.pack(value);
  } catch (e) {
    if (e instanceof CodecError) throw e;
    throw new CheetahEncodeError(`cannot encode value: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * Decodes one MessagePack value (the whole input), building Cheetah entities wherever they occur. Every failure
 * is a CodecError subclass: CheetahUnknownTypeError, CheetahChecksumError, CheetahFieldError,
 * CheetahConstraintError, or CheetahMalformedError (which wraps msgpackr's own errors).
 */
export function decodeCheetah(bytes: Uint8Array): unknown {
  try {
    return cheetahPackr.unpack(bytes) as unknown;
  } catch (e) {
    if (e instanceof CodecError) throw e;
    throw new CheetahMalformedError(`not a valid MessagePack value: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
}
